"""REPORT.md's section on the significance of the rank differences, of our paper run and of the
paper's own numbers (Demšar 2006), and the page's versions of its tables."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from mlhidden.claims import StoredRuns
from mlhidden.paper.reference import PAPER_TABLES
from mlhidden.paper.sections import Section, html_frame, page_rank
from mlhidden.paper.wording import missing_run
from mlhidden.report import (
    markdown_with_diagram,
    metric_table,
    significance_report,
    significance_rows,
)
from mlhidden.runs import METRICS, OK

# The Wilcoxon control of the significance section: the method the paper proposes.
SIGNIFICANCE_CONTROL = "CCASL+AML"
# Far below the paper's display precision, far above the rank rounding (stats.ranks.RANK_DECIMALS).
RANK_TIE_BREAK = 1e-9
SIGNIFICANCE_TITLE = "Statistical significance of the rank differences (Demšar 2006)"


def paper_units(reference: pd.DataFrame) -> pd.DataFrame:
    """The paper's Tables 'results' and 'scalability' as units, one split per (dataset, method) cell.

    The paper prints only each cell's mean over its splits; as units, its numbers go through the
    same :func:`~mlhidden.report.tables.metric_table` and significance tests as ours. Its means
    are rounded (2 decimals, whole seconds), which ties many cells its ranks tell apart, so each
    value is raised by a multiple of :data:`RANK_TIE_BREAK` that orders them as its printed ranks do:
    the ranks are then the paper's own (its average ranks to the printed digit), and the shown values
    unchanged; the Wilcoxon tests see two such tied means as differing by the least amount.
    """
    columns = []
    for metric, (table_name, paper_metric) in PAPER_TABLES.items():
        rows = reference[(reference["table"] == table_name) & (reference["metric"] == paper_metric)]
        # Upwards only, so that no zero turns into "-0.00": better scores gain more, slower times more.
        steps = rows["rank"].max() - rows["rank"] if METRICS[metric].higher_is_better else rows["rank"]
        values = rows["value"] + RANK_TIE_BREAK * steps
        columns.append(values.set_axis(pd.MultiIndex.from_frame(rows[["dataset", "method"]])).rename(metric))
    return pd.concat(columns, axis=1).reset_index().assign(split=0, status=OK, error="")


def _significance_reports(units, datasets, methods, unavailable) -> list:
    """Per metric of :data:`PAPER_TABLES`: its significance report (the control: :data:`SIGNIFICANCE_CONTROL`)."""
    tables = [metric_table(units, metric, datasets, methods, unavailable) for metric in PAPER_TABLES]
    return [
        significance_report(table, SIGNIFICANCE_CONTROL if SIGNIFICANCE_CONTROL in table.methods else None)
        for table in tables
    ]


def _significance_parts(units, datasets, methods, unavailable, stem: str, figures_dir: Path) -> tuple:
    """Per metric of :data:`PAPER_TABLES`: the tests' Markdown with its CD diagram, and the files drawn."""
    parts, paths = [], []
    for report, metric in zip(_significance_reports(units, datasets, methods, unavailable), PAPER_TABLES):
        text, drawn = markdown_with_diagram(report, figures_dir / f"cd_{stem}_{metric}", figures_dir.parent, level=4)
        parts.append(text + "\n")
        paths += drawn
    return parts, paths


def _paper_units(reference: pd.DataFrame) -> tuple[pd.DataFrame, list, list]:
    """The paper's published means as units, with their datasets and methods in its order."""
    units = paper_units(reference)
    return units, list(dict.fromkeys(units["dataset"])), list(dict.fromkeys(units["method"]))


def significance_tables(runs: StoredRuns, reference: pd.DataFrame) -> list[str]:
    """The page's versions of the significance section's tables, in its order (ours, then the paper's),
    their average ranks the decimals selector's numbers."""
    run = runs["paper"]
    ours = [] if run is None else _significance_reports(run.units, run.datasets, run.methods, run.unavailable)
    tables = []
    for report in [*ours, *_significance_reports(*_paper_units(reference), None)]:
        if report.not_applicable:
            continue
        headers, rows = significance_rows(report, page_rank)
        tables.append(html_frame({row[0]: row[1:] for row in rows}, headers[1:], headers[0]))
    return tables


def significance_section(runs: StoredRuns, reference: pd.DataFrame, figures_dir: Path) -> Section:
    """Friedman, Nemenyi and Wilcoxon–Holm tests of our paper run and of the paper's own numbers.

    The paper reports average ranks without tests; running the same tests on its published means
    shows which of its rank differences were significant at all.
    """
    parts = [
        f"## {SIGNIFICANCE_TITLE}\n\n",
        "Per table, over the datasets where every method has a result: the Friedman test on the ranks with the "
        "Iman–Davenport F statistic; the Nemenyi test, under which two methods differ when their average ranks differ "
        "by at least the critical difference CD (at α = 0.05 and 0.10; the diagrams join methods closer than the CD "
        f"at 0.05); and Wilcoxon signed-rank tests of {SIGNIFICANCE_CONTROL} against every other method on the "
        "per-dataset means, Holm-corrected. The bullet points say in words which differences are significant. "
        "`mlhidden report RUN --stats` writes the same tests for any run.\n\n",
        "### Our paper run\n\n",
    ]
    run = runs["paper"]
    if run is None:
        parts.append(f"Not run: {missing_run('paper')}.\n\n")
        paths = []
    else:
        ours, paths = _significance_parts(run.units, run.datasets, run.methods, run.unavailable, "paper", figures_dir)
        parts += ours
    parts.append(
        "### The paper's own numbers (Table 'results' and Table 'scalability')\n\n"
        "The same tests on the paper's published means (one value per dataset), ranked as the paper ranks them: its "
        "per-dataset ranks order the cells that its rounded values tie, and real ties share their average rank (which "
        "the paper prints rounded down). The average ranks are then exactly the paper's 'avg rank' rows.\n\n"
    )
    theirs, drawn = _significance_parts(*_paper_units(reference), None, "reference", figures_dir)
    return Section("".join(parts + theirs), paths=paths + drawn)
