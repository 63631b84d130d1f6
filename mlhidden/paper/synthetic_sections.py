"""REPORT.md's sections on the generated data, each next to the paper's numbers.

Table 3 (the Logical problem), Table 4 (the synthetic data drawn from random networks) and Fig.
'results_syn1' (two-dimensional data). They are built as the sections on the real datasets are
(:mod:`mlhidden.paper.sections`, whose :class:`~mlhidden.paper.sections.Section` and comparison rows
they share), from the runs of generated data.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from mlhidden.claims import StoredRuns
from mlhidden.paper.dataset_figures import plot_logical, plot_synthetic_2d
from mlhidden.paper.evidence import Evidence, refit_check, synthetic_2d_tables
from mlhidden.paper.reference import SYNTHETIC_2D_BASE_CLASSIFIERS
from mlhidden.paper.sections import (
    Section,
    compared_cell,
    comparison_row,
    flag_note,
    html_frame,
    interval_columns,
    page_frame,
    relative_link,
)
from mlhidden.paper.synthetic_variants import synthetic_variants_table
from mlhidden.paper.wording import missing_run
from mlhidden.report import format_number, markdown_frame, write_table
from mlhidden.runs import METRICS, UNIT_METRICS, load_dataset_spec
from mlhidden.stats import interval_of

LOGICAL_TITLE = "Table 3: the Logical problem"
SYNTHETIC_TITLE = "Table 4: synthetic data"
SYNTHETIC_2D_TITLE = "Fig. 'results_syn1': two-dimensional synthetic data"
_LOGICAL_METRICS = ("hamming_score", "exact_match")
_SYNTHETIC_METRICS = ("exact_match", "hamming_score")


def _logical_rows(evidence: Evidence, reference: pd.DataFrame) -> dict[str, list[dict]]:
    """Table 3's comparison rows: paper model -> one per metric of :data:`_LOGICAL_METRICS`."""
    table = evidence.logical
    assert table is not None
    splits = evidence.logical_splits
    splits = pd.DataFrame(columns=["method", *UNIT_METRICS]) if splits is None else splits
    paper = reference[reference["table"] == "logical"].set_index(["metric", "method"])["value"]
    return {
        model: [
            comparison_row(
                "logical", metric, "Logical", model, table.at[model, metric], paper.get((metric, model), math.nan),
                interval=interval_of(splits.loc[splits["method"] == model, metric])[1:],
            )
            for metric in _LOGICAL_METRICS
        ]
        for model in table.index
    }


def _logical_cells(evidence: Evidence, rows: dict[str, list[dict]], page: bool) -> dict[str, list[str]]:
    """Table 3 as shown, metric (and the splits) -> one cell per model: as text, or as the page's HTML."""
    table = evidence.logical
    assert table is not None
    cells = {
        METRICS[metric].title: [compared_cell(rows[model][i], page=page) for model in rows]
        for i, metric in enumerate(_LOGICAL_METRICS)
    }
    return {**cells, "splits": [str(table.at[model, "n_splits"]) for model in rows]}


def logical_section(evidence: Evidence, reference: pd.DataFrame, tables_dir: Path, figures_dir: Path) -> Section:
    """Table 3 on the Logical problem, ours next to the paper's, with a figure of the problem itself."""
    title = f"## {LOGICAL_TITLE}\n\n"
    table = evidence.logical
    if table is None:
        return Section(title + f"Not run: {missing_run('logical')}.\n")
    rows = _logical_rows(evidence, reference)
    comparisons = [row for model_rows in rows.values() for row in model_rows]
    ours = {
        model: [*(format_number(row["ours"]) for row in model_rows), str(table.at[model, "n_splits"])]
        for model, model_rows in rows.items()
    }
    index = [*(METRICS[metric].title for metric in _LOGICAL_METRICS), "splits"]
    paths = plot_logical(figures_dir / "logical")
    numbers = table.assign(**interval_columns(comparisons, list(table.index), "method"))
    paths += write_table(
        numbers,
        pd.DataFrame(ours, index=index),
        tables_dir / "logical",
        "Table 3: the Logical problem (ours)",
        "Metric",
    )
    shown = pd.DataFrame.from_dict(_logical_cells(evidence, rows, page=False), orient="index", columns=list(rows))
    text = (
        title
        + f"![The Logical problem]({relative_link(paths[0], figures_dir.parent)})\n\n"
        + "Ours (the paper's in parentheses). The labels keep their order (OR, AND, XOR) in every split: CC (b) "
        "chains XOR last, after OR and AND; CC (c) and PCC (c) chain XOR first (PCC with exact inference). "
        "`splits` counts the splits behind each column; ± is the half-width of the 95 % t-interval over them.\n\n"
        + markdown_frame(shown, "Metric") + "\n" + flag_note(comparisons) + "\n"
    )
    return Section(text, comparisons, paths)


def _synthetic_rows(evidence: Evidence, reference: pd.DataFrame) -> dict[str, list[dict]]:
    """Table 4's comparison rows: "kind · method" -> one per metric of :data:`_SYNTHETIC_METRICS`."""
    table = evidence.synthetic
    assert table is not None
    paper = reference[reference["table"] == "synthetic"].set_index(["dataset", "metric", "method"])["value"]
    datasets = evidence.synthetic_datasets
    rows: dict[str, list[dict]] = {}
    for (kind, method), values in table.iterrows():
        rows[f"{kind} · {method}"] = [
            comparison_row(
                "synthetic", metric, kind, method, values[metric], paper.get((kind, metric, method), math.nan),
                interval=interval_of(
                    datasets[(datasets["kind"] == kind) & (datasets["method"] == method)][metric]
                    if datasets is not None else []
                )[1:],
            )
            for metric in _SYNTHETIC_METRICS
        ]
    return rows


def _synthetic_cells(evidence: Evidence, rows: dict[str, list[dict]], page: bool) -> dict[str, list[str]]:
    """Table 4 as shown, "kind · method" -> its metrics' cells and its datasets: as text, or as the page's HTML."""
    table = evidence.synthetic
    assert table is not None
    counts = [f"{int(n)}" for n in table["n_datasets"]]
    return {
        label: [*(compared_cell(row, 3, page=page) for row in label_rows), count]
        for (label, label_rows), count in zip(rows.items(), counts)
    }


def synthetic_section(evidence: Evidence, reference: pd.DataFrame, tables_dir: Path) -> Section:
    """Table 4: per kind of synthetic data and method, the mean over datasets, next to the paper's."""
    title = f"## {SYNTHETIC_TITLE}\n\n"
    table = evidence.synthetic
    if table is None:
        return Section(title + f"Not run: {missing_run('synthetic')}.\n")
    rows = _synthetic_rows(evidence, reference)
    comparisons = [row for label_rows in rows.values() for row in label_rows]
    titles = [METRICS[metric].title for metric in _SYNTHETIC_METRICS]
    shown = pd.DataFrame.from_dict(
        _synthetic_cells(evidence, rows, page=False), orient="index", columns=[*titles, "datasets"]
    )
    ours = table.copy()
    ours.index = list(rows)
    ours_shown = pd.DataFrame(
        {
            **{METRICS[m].title: ours[m].map(lambda v: format_number(v, 3)) for m in _SYNTHETIC_METRICS},
            "datasets": ours["n_datasets"].map(str),
        }
    )
    numbers = table.assign(**interval_columns(comparisons, list(table.index), "kind_method"))
    paths = write_table(
        numbers,
        ours_shown,
        tables_dir / "synthetic",
        "Table 4: mean over the synthetic datasets of each kind (ours)",
        "Data · method",
    )
    text = (
        title
        + "Mean over the synthetic datasets of each kind of the per-dataset score (one 50/50 split each) ± the "
        "half-width of its 95 % t-interval over the datasets; ours, the paper's in parentheses. The paper does not "
        "give D, the input or weight distributions or the label "
        "thresholds, so our datasets are not the paper's (see `mlhidden/data/random_networks.py`).\n\n"
        + markdown_frame(shown, "Data · method")
        + "\n"
        + flag_note(comparisons)
        + "\n"
    )
    return Section(text, comparisons, paths)


def generated_data_tables(evidence: Evidence, runs: StoredRuns, reference: pd.DataFrame) -> dict[str, list[str]]:
    """REPORT.md's sections on generated data (their titles) -> the page's versions of their first
    tables, in order, whose numbers the decimals selector rewrites; a section not run has none.
    They are computed from ``evidence`` and ``runs`` as the sections are: what the text shows, unrounded."""
    tables: dict[str, list[str]] = {}
    if evidence.logical is not None:
        cells = _logical_cells(evidence, _logical_rows(evidence, reference), page=True)
        tables[LOGICAL_TITLE] = [html_frame(cells, list(evidence.logical.index), "Metric")]
    synthetic: list[str] = []
    if evidence.synthetic is not None:
        cells = _synthetic_cells(evidence, _synthetic_rows(evidence, reference), page=True)
        columns = [*(METRICS[metric].title for metric in _SYNTHETIC_METRICS), "datasets"]
        synthetic.append(html_frame(cells, columns, "Data · method"))
    variants = synthetic_variants_table(runs)
    if variants is not None:
        synthetic.append(variants)
    if synthetic:
        tables[SYNTHETIC_TITLE] = synthetic
    two_d = synthetic_2d_tables(runs)
    if two_d is not None:
        tables[SYNTHETIC_2D_TITLE] = [page_frame(frame, "Dataset") for frame in two_d if frame is not None]
    return tables


def synthetic_2d_section(runs: StoredRuns, reference: pd.DataFrame, tables_dir: Path, figures_dir: Path) -> Section:
    """Fig. "results_syn1": the 2-D datasets over their label regions, exact match and base-classifier accuracy.

    The paper's numbers come from other random datasets, so they are shown for comparison only.
    """
    title = f"## {SYNTHETIC_2D_TITLE}\n\n"
    tables = synthetic_2d_tables(runs)
    if tables is None:
        return Section(title + f"Not run: {missing_run('synthetic_2d')}.\n")
    exact, base = tables
    run = runs["synthetic_2d"]
    assert run is not None  # it has tables
    specs = [spec for spec in runs.record("synthetic_2d").datasets if spec.table_name in set(run.datasets)]
    paths = plot_synthetic_2d(
        [(spec.table_name, load_dataset_spec(spec)) for spec in specs], figures_dir / "synthetic_2d"
    )
    paths += write_table(
        exact,
        exact.map(format_number),
        tables_dir / "synthetic_2d_exact_match",
        "Fig. results_syn1: exact match (ours)",
        "Dataset",
    )
    parts = [
        title,
        f"![Two-dimensional synthetic data]({relative_link(paths[0], figures_dir.parent)})\n\n",
        "Points: the first 600 examples, coloured by their label vector y1y2; background: the true label vector of the "
        "generating network. Exact match, mean over the splits (CC (1,2) chains y1 first, CC (2,1) y2 first):\n\n",
        markdown_frame(exact.map(format_number), "Dataset"),
    ]
    if base is not None:
        caption = "Fig. results_syn1: base-classifier accuracy (ours)"
        paths += write_table(
            base, base.map(format_number), tables_dir / "synthetic_2d_base_accuracy", caption, "Dataset"
        )
        check = refit_check(runs, "synthetic_2d") or (0, 0)
        parts += [
            "\nAccuracy of the base classifiers (refits of the stored units on the complex datasets; "
            f"{check[0]} of {check[1]} refits reproduce the stored exact match):\n\n",
            markdown_frame(base.map(format_number), "Dataset"),
        ]
    paper = reference[reference["table"] == "synthetic_2d"]
    paper_table = paper.pivot_table(index="dataset", columns="method", values="value", sort=False)
    columns = [c for c in [*exact.columns, *SYNTHETIC_2D_BASE_CLASSIFIERS] if c in paper_table.columns]
    parts += [
        "\nThe paper's numbers for its two complex samples, for comparison only: they are other random datasets, "
        "so no cell is flagged.\n\n",
        markdown_frame(paper_table[columns].map(format_number), "Paper's dataset"),
    ]
    return Section("".join(parts), paths=paths)
