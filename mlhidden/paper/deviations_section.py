"""The section "Every deviation, diagnosed": the diagnoses of :mod:`mlhidden.paper.deviations` as REPORT.md
and the page show them, from one set of tables, the page's numbers of ours following its decimals selector."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from mlhidden.paper.deviations import CELL_KEY, category_counts
from mlhidden.paper.sections import html_frame
from mlhidden.paper.wording import DEVIATION
from mlhidden.report import esc, markdown_frame, number

DEVIATIONS_TITLE = "Every deviation, diagnosed"


def _within_shown(names: str, settings: int) -> str:
    """The settings a cell is within the band under, short: "all N", "none of N", or the names."""
    if not names:
        return f"none of {settings}" if settings else "no setting"
    count = len(names.split("; "))
    return f"all {settings}" if count == settings else names.replace("; ", ", ")


def _tables(diagnoses: pd.DataFrame, baselines: pd.DataFrame, agreement: pd.DataFrame,
            shown: Callable[[float, int], str], text: Callable[[object], str]) -> dict[str, pd.DataFrame]:
    """The section's tables after its counts, those it has: "agreement" (each setting's with the paper),
    "baselines" (the trivial ones) and "diagnoses" (every diagnosed cell), each indexed by its first
    column's heading. Our numbers are cells as ``shown`` makes them from (value, decimals), the rest (the
    paper's printed values too) as ``text`` does."""
    tables = {}
    if len(agreement):
        tables["agreement"] = pd.DataFrame(
            {
                "mean |ours - paper|": [shown(v, 3) for v in agreement["mean_abs_difference"]],
                f"cells within {DEVIATION}": [text(f"{v:.0%}") for v in agreement["share_within"]],
                "cells": [text(v) for v in agreement["cells"]],
            },
            index=pd.Index(agreement["setting"], name="Setting"),
        )
    if not baselines.empty:
        hamming, exact = (
            baselines.pivot_table(index="dataset", columns="baseline", values=metric, sort=False)
            for metric in ("hamming_score", "exact_match")
        )
        tables["baselines"] = pd.DataFrame(
            [[f"{shown(h, 3)} / {shown(e, 3)}" for h, e in zip(*rows)] for rows in zip(hamming.values, exact.values)],
            index=hamming.index.rename("Dataset"), columns=hamming.columns,
        )
    if not diagnoses.empty:
        within = [_within_shown(n, k) for n, k in zip(diagnoses["within_band_under"], diagnoses["settings_compared"])]
        texts = {column: diagnoses[column].map(text) for column in [*CELL_KEY[1:], "category", "evidence"]}
        tables["diagnoses"] = (
            diagnoses.assign(
                **texts, ours=[shown(v, 2) for v in diagnoses["ours"]],
                paper=[text(f"{v:.2f}") for v in diagnoses["paper"]], within_band_under=[text(w) for w in within],
            )
            .drop(columns="settings_compared")
            .rename(columns={"within_band_under": f"within {DEVIATION} under"})
            .set_index("table")
            .rename_axis("Table")
        )
    return tables


def deviations_tables(diagnoses: pd.DataFrame, baselines: pd.DataFrame, agreement: pd.DataFrame) -> list[str]:
    """The page's versions of the section's tables, in its order, our numbers the decimals selector's:
    "" for its counts (the page shows the text's), then those of :func:`_tables` it has."""
    text = {*CELL_KEY[1:], f"within {DEVIATION} under", "category", "evidence"}
    return [
        "",
        *(
            html_frame(zip(map(str, t.index), t.values), list(t.columns), str(t.index.name),
                       text=[i for i, column in enumerate(t.columns) if column in text])
            for t in _tables(diagnoses, baselines, agreement, number, esc).values()
        ),
    ]


def deviations_markdown(diagnoses: pd.DataFrame, baselines: pd.DataFrame, agreement: pd.DataFrame) -> str:
    """The counts per category, each setting's agreement with the paper, the trivial baselines and
    every diagnosed cell, as Markdown."""
    counts = category_counts(diagnoses)
    tables = _tables(diagnoses, baselines, agreement, lambda value, digits: f"{value:.{digits}f}", str)
    parts = [
        f"## {DEVIATIONS_TITLE}\n\n",
        f"Each cell of Tables 'results', 3 and 4 that differs from the paper's by more than {DEVIATION}, "
        "with the paper's value outside our 95 % interval (a flagged cell), is put in the first category that applies "
        "(`mlhidden/paper/deviations.py` states the rules): the audit of the paper's numbers found a defect in the "
        "value or its run that explains the difference (see 'Audit of the paper's numbers'); our file differs from "
        "the paper's table of datasets (shape or label cardinality, measured); on the generated data, our BR is off "
        f"the paper's BR by more than {DEVIATION} on the same family and metric (the data differ); the value is "
        f"within {DEVIATION} under at least one of the {len(agreement)} finished settings of the sensitivity study "
        "(all such settings are listed); or unexplained. The flag itself rules out sampling error (the paper's "
        "value is outside our interval), so no category for it is kept.\n\n",
        markdown_frame(counts.rename("cells").to_frame(), "Category"),
        f"\nIn all {len(diagnoses)} cells.\n\n",
    ]
    if "agreement" in tables:
        parts += [
            "How close each finished setting comes to the paper over every compared cell of Tables 'results', 3 and 4 "
            "(best first; for reference: no category depends on this order):\n\n",
            markdown_frame(tables["agreement"], tables["agreement"].index.name), "\n",
        ]
    if "baselines" in tables:
        parts += [
            "Trivial baselines on the paper run's splits (Hamming score / exact match; the mean over the splits):\n\n",
            markdown_frame(tables["baselines"], tables["baselines"].index.name), "\n",
        ]
    if "diagnoses" in tables:
        parts += [
            "<details><summary>Every diagnosed cell</summary>\n\n",
            markdown_frame(tables["diagnoses"], tables["diagnoses"].index.name),
            "\n</details>\n",
        ]
    return "".join(parts)
