"""The significance tests written out: ``statistics.md`` with its CD diagrams, and ``statistics.json``.

Which test each table gets (over its datasets, or over the splits of its one dataset) is decided
here; the text of each is :mod:`mlhidden.report.significance_text`, and the diagrams are drawn by
:mod:`mlhidden.report.cd_diagram`.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from mlhidden.errors import InputWarning
from mlhidden.escaping import markdown_escape
from mlhidden.io import PathLike, write_text
from mlhidden.report.cd_diagram import plot_cd_diagram
from mlhidden.report.significance_splits import SplitsReport, splits_report
from mlhidden.report.significance_tests import SignificanceReport, significance_report
from mlhidden.report.significance_text import significance_dict, significance_markdown, splits_dict, splits_markdown
from mlhidden.report.tables import SUMMARY_METRICS, MetricTable, metric_tables
from mlhidden.runs.metrics import Metric
from mlhidden.runs.record import RunRecord
from mlhidden.runs.store import existing_stores
from mlhidden.stats.replication import split_test_train_ratio

STATISTICS_PREAMBLE = """# Statistical tests over datasets (Demšar 2006)

Per metric, over the datasets where every method has a result: the Friedman test on the
average ranks with the Iman–Davenport F statistic; the Nemenyi post-hoc test (two methods differ
when their average ranks differ by at least the critical difference CD); and Wilcoxon
signed-rank tests of every method against a control on the datasets' means, Holm-corrected.
Ranks: 1 = best, ties averaged, times ranked ascending.
"""
SPLITS_PREAMBLE = """# Statistical tests over one dataset's splits (Nadeau & Bengio 2003)

Per metric, on the one dataset where every method has a result: every method against a control,
paired by split, with the corrected resampled t-test (the variance of the per-split differences
widened to var (1/k + n_test/n_train), since the splits share training rows), Holm-corrected
over the comparisons with the control.
"""
STATISTICS_FILE = "statistics.md"


def markdown_with_diagram(
    report: SignificanceReport, path_stem: PathLike, root: PathLike, level: int = 2
) -> tuple[str, list[Path]]:
    """The report's Markdown section, ending with its critical-difference diagram at the first α.

    The diagram is drawn to ``<path_stem>.png`` and ``.pdf`` and linked by its path relative to
    ``root``, the folder of the Markdown file. Returns ``(markdown, paths written)``; a report
    whose tests are not applicable gets no diagram.
    """
    section = significance_markdown(report, level)
    if report.not_applicable:
        return section, []
    test = report.nemenyi[0]
    metric_title = report.table.metric.title
    title = f"{metric_title}: Nemenyi, α = {test.alpha:.2f}, N = {len(report.datasets)} datasets"
    diagram = plot_cd_diagram(report.avg_ranks, test.cd, path_stem, title)
    link = Path(diagram[0]).relative_to(root).as_posix()
    section += f"\n![Critical-difference diagram, {markdown_escape(metric_title)}]({link})\n"
    return section, diagram


def write_statistics(
    units: pd.DataFrame,
    out_dir: PathLike,
    datasets: Sequence[str],
    methods: Sequence[str],
    unavailable: Mapping[str, str] | None = None,
    control: str | None = None,
    metrics: Iterable[str | Metric] = SUMMARY_METRICS,
) -> list[Path]:
    """Write ``statistics.md``, ``statistics.json`` and ``cd_<metric>.png``/``.pdf`` into ``out_dir``.

    Parameters
    ----------
    units, datasets, methods, unavailable
        As for :func:`mlhidden.report.tables.metric_table`.
    out_dir : str or os.PathLike
    control : str, optional
        The Wilcoxon control for every metric; by default each metric's best average rank.
    metrics : sequence of str
        The metrics to test.

    Returns
    -------
    list of pathlib.Path
        The files written; a metric whose tests are not applicable gets no diagram.

    Warns
    -----
    InputWarning
        Once, when the tests are over fewer than :data:`~mlhidden.report.significance_tests.MIN_DATASETS`
        datasets (the CLI prints it as one ``warning:`` line).
    """
    tables = metric_tables(units, datasets, methods, unavailable, metrics=metrics)
    return write_table_statistics(tables, out_dir, control)


def write_table_statistics(
    tables: Mapping[str, MetricTable], out_dir: PathLike, control: str | None = None,
    test_train_ratios: Mapping[str, float] | None = None,
) -> list[Path]:
    """:func:`write_statistics` of ready tables, ``{metric column: MetricTable}`` (e.g. from stored predictions)."""
    return write_statistics_reports(statistics_reports(tables, control, test_train_ratios), out_dir)


def stored_test_train_ratios(run_dirs: Iterable[PathLike]) -> dict[str, float]:
    """Each dataset's n_test / n_train, from the stored record of a run that split it (merged runs split it alike).

    Keyed by the names the store gave its datasets, which the tables use: a file given by path is named
    by its ``@relation`` there, not by the path its config entry holds.
    """
    ratios: dict[str, float] = {}
    for store in existing_stores(run_dirs):
        ratio = split_test_train_ratio(RunRecord.from_record(store.get_meta("config")))
        for name in store.datasets()["name"]:
            ratios.setdefault(str(name), ratio)
    return ratios


def statistics_reports(
    tables: Mapping[str, MetricTable], control: str | None = None,
    test_train_ratios: Mapping[str, float] | None = None,
) -> dict[str, SignificanceReport | SplitsReport]:
    """Each table's tests: over the splits of its one complete dataset when ``test_train_ratios`` (dataset ->
    n_test / n_train of its splits) knows that dataset, else over its datasets."""
    ratios = test_train_ratios or {}
    reports: dict[str, SignificanceReport | SplitsReport] = {}
    for column, table in tables.items():
        tested = table.ranked_datasets
        if len(tested) == 1 and tested[0] in ratios:
            reports[column] = splits_report(table, tested[0], ratios[tested[0]], control)
        else:
            reports[column] = significance_report(table, control)
    return reports


def write_statistics_reports(reports: Mapping[str, SignificanceReport | SplitsReport], out_dir: PathLike) -> list[Path]:
    """Write ``statistics.md``/``.json`` and the CD diagrams of :func:`statistics_reports` into ``out_dir``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    over_splits = {column: r for column, r in reports.items() if isinstance(r, SplitsReport)}
    over_datasets = {column: r for column, r in reports.items() if isinstance(r, SignificanceReport)}
    for caveat in dict.fromkeys(report.caveat for report in over_datasets.values() if report.caveat):
        warnings.warn(caveat, InputWarning, stacklevel=2)
    paths: list[Path] = []
    sections = [STATISTICS_PREAMBLE] if over_datasets or not over_splits else []
    sections += [SPLITS_PREAMBLE] if over_splits else []
    document: dict[str, Any] = {}
    for column, report in reports.items():
        if isinstance(report, SplitsReport):
            sections.append(splits_markdown(report))
            document[column] = splits_dict(report)
            continue
        section, diagram = markdown_with_diagram(report, out_dir / f"cd_{column}", out_dir)
        sections.append(section)
        paths += diagram
        document[column] = significance_dict(report)
    markdown = out_dir / STATISTICS_FILE
    write_text(markdown, "\n".join(sections))
    summary = out_dir / "statistics.json"
    write_text(summary, json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n")
    return [markdown, summary, *paths]

