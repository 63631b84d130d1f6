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
from mlhidden.paper.sections import Section, compared_cell, comparison_row, flag_note, interval_columns, relative_link
from mlhidden.paper.wording import missing_run
from mlhidden.report import format_number, markdown_frame, write_table
from mlhidden.runs import METRICS, UNIT_METRICS, load_dataset_spec
from mlhidden.stats import interval_of


def logical_section(evidence: Evidence, reference: pd.DataFrame, tables_dir: Path, figures_dir: Path) -> Section:
    """Table 3 on the Logical problem, ours next to the paper's, with a figure of the problem itself."""
    title = "## Table 3: the Logical problem\n\n"
    table = evidence.logical
    if table is None:
        return Section(title + f"Not run: {missing_run('logical')}.\n")
    splits = evidence.logical_splits
    splits = pd.DataFrame(columns=["method", *UNIT_METRICS]) if splits is None else splits
    paper = reference[reference["table"] == "logical"].set_index(["metric", "method"])["value"]
    metrics = {name: METRICS[name].title for name in ("hamming_score", "exact_match")}
    comparisons = []
    compared: dict[str, list] = {}
    ours: dict[str, list] = {}
    for model in table.index:
        compared[model], ours[model] = [], []
        for metric in metrics:
            values = splits.loc[splits["method"] == model, metric]
            row = comparison_row(
                "logical",
                metric,
                "Logical",
                model,
                table.at[model, metric],
                paper.get((metric, model), math.nan),
                interval=interval_of(values)[1:],
            )
            comparisons.append(row)
            compared[model].append(compared_cell(row))
            ours[model].append(format_number(row["ours"]))
        compared[model].append(str(table.at[model, "n_splits"]))
        ours[model].append(str(table.at[model, "n_splits"]))
    index = [*metrics.values(), "splits"]
    paths = plot_logical(figures_dir / "logical")
    numbers = table.assign(**interval_columns(comparisons, list(table.index), "method"))
    paths += write_table(
        numbers,
        pd.DataFrame(ours, index=index),
        tables_dir / "logical",
        "Table 3: the Logical problem (ours)",
        "Metric",
    )
    text = (
        title
        + f"![The Logical problem]({relative_link(paths[0], figures_dir.parent)})\n\n"
        + "Ours (the paper's in parentheses). The labels keep their order (OR, AND, XOR) in every split: CC (b) "
        "chains XOR last, after OR and AND; CC (c) and PCC (c) chain XOR first (PCC with exact inference). "
        "`splits` counts the splits behind each column; ± is the half-width of the 95 % t-interval over them.\n\n"
        + markdown_frame(pd.DataFrame(compared, index=index), "Metric") + "\n" + flag_note(comparisons) + "\n"
    )
    return Section(text, comparisons, paths)


def synthetic_section(evidence: Evidence, reference: pd.DataFrame, tables_dir: Path) -> Section:
    """Table 4: per kind of synthetic data and method, the mean over datasets, next to the paper's."""
    title = "## Table 4: synthetic data\n\n"
    table = evidence.synthetic
    if table is None:
        return Section(title + f"Not run: {missing_run('synthetic')}.\n")
    paper = reference[reference["table"] == "synthetic"].set_index(["dataset", "metric", "method"])["value"]
    datasets = evidence.synthetic_datasets
    comparisons, rows = [], []
    for (kind, method), values in table.iterrows():
        cells = []
        for metric in ("exact_match", "hamming_score"):
            over = (
                datasets[(datasets["kind"] == kind) & (datasets["method"] == method)][metric]
                if datasets is not None
                else []
            )
            row = comparison_row(
                "synthetic",
                metric,
                kind,
                method,
                values[metric],
                paper.get((kind, metric, method), math.nan),
                interval=interval_of(over)[1:],
            )
            comparisons.append(row)
            cells.append(compared_cell(row, 3))
        rows.append((f"{kind} · {method}", [*cells, f"{int(values['n_datasets'])}"]))
    titles = [METRICS[metric].title for metric in ("exact_match", "hamming_score")]
    shown = pd.DataFrame([r[1] for r in rows], index=[r[0] for r in rows], columns=[*titles, "datasets"])
    ours = table.copy()
    ours.index = [f"{kind} · {method}" for kind, method in table.index]
    ours_shown = pd.DataFrame(
        {
            **{METRICS[m].title: ours[m].map(lambda v: format_number(v, 3)) for m in ("exact_match", "hamming_score")},
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


def synthetic_2d_section(runs: StoredRuns, reference: pd.DataFrame, tables_dir: Path, figures_dir: Path) -> Section:
    """Fig. "results_syn1": the 2-D datasets over their label regions, exact match and base-classifier accuracy.

    The paper's numbers come from other random datasets, so they are shown for comparison only.
    """
    title = "## Fig. 'results_syn1': two-dimensional synthetic data\n\n"
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
