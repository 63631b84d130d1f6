"""A stored run's report, or several runs' merged: the files written and the text to print.

What ``mlhidden report`` (and ``run`` after its units) does, callable from Python. The summary
tables and the metrics asked for by name (``--metric``) go through the same writers, so a metric
computed from the stored predictions gets the files a built-in one gets: its wide CSV, its
LaTeX and Markdown tables and, with ``stats``, its significance tests and CD diagram.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from mlhidden.io import PathLike
from mlhidden.report.csv_files import wide_frame, write_frame
from mlhidden.report.formats import render_terminal_summary, to_terminal, write_reports, write_text_tables
from mlhidden.report.significance_splits import SplitsReport
from mlhidden.report.statistics_files import (
    STATISTICS_FILE,
    statistics_reports,
    stored_test_train_ratios,
    write_statistics_reports,
)
from mlhidden.report.stored_metrics import merged_unranked, stored_metrics
from mlhidden.report.tables import SUMMARY_METRICS, MetricTable, metric_tables
from mlhidden.runs.provenance import provenance_lines, stored_precision
from mlhidden.runs.store import load_results


@dataclass
class RunReport:
    """``text``: the tables to print; ``notes``: lines on what they leave out, and on a one-dataset run's
    test; ``paths``: the files written."""

    text: str
    notes: list[str] = field(default_factory=list)
    provenance: list[str] = field(default_factory=list)
    paths: list[Path] = field(default_factory=list)


def report_runs(
    run_dirs: PathLike | Iterable[PathLike], out_dir: PathLike | None = None, *, metrics: Iterable[str] = (),
    stats: bool = False, control: str | None = None, std: bool = False,
    precision: int | None = None, html: bool = False,
) -> RunReport:
    """The report of one run directory or several merged, written into ``out_dir``.

    Without ``metrics``: every built-in table (:func:`~mlhidden.report.formats.write_reports`),
    with ``stats`` the significance tests, with ``html`` the results page; ``out_dir`` None writes
    nothing. With ``metrics`` (names of any metric, e.g. ``ranking_loss``): those metrics' tables
    from the stored predictions, their files only when ``out_dir`` is given. Merged runs whose
    method sets differ are ranked over the methods they share, with a note naming the others.
    ``precision`` is the number of decimals shown (default: the run's ``run --precision``, else as
    many as tell each table's ranks apart).
    """
    run_dirs = [run_dirs] if isinstance(run_dirs, (str, os.PathLike)) else list(run_dirs)
    if metrics:
        return _named_metrics(run_dirs, out_dir, metrics, stats=stats, control=control, std=std, precision=precision)
    results = load_results(run_dirs)
    precision = stored_precision(results.provenance) if precision is None else precision
    unranked = merged_unranked(results)
    footer = provenance_lines(results.provenance)
    grid = (results.units, results.datasets, results.methods, results.unavailable)
    text = render_terminal_summary(*grid, std=std, precision=precision, unranked=unranked)
    report = RunReport(text, results.note_lines(), footer)
    if out_dir is None:
        return report
    out_dir = Path(out_dir)
    units, datasets, methods, unavailable = grid
    report.paths = write_reports(
        units, out_dir, datasets, methods, unavailable, provenance=footer, std=std, notes=results.note_lines(),
        precision=precision, unranked=unranked,
    )
    if stats:
        ranked = [method for method in methods if method not in unranked]
        tables = metric_tables(units, datasets, ranked, unavailable, metrics=SUMMARY_METRICS)
        _write_tests(report, tables, out_dir, control, run_dirs)
    if html:
        from mlhidden.report.html import HTML_FILE, write_html

        report.paths.append(write_html(results, out_dir / HTML_FILE, precision=precision))
    return report


def _named_metrics(
    run_dirs: list[PathLike], out_dir: PathLike | None, metrics: Iterable[str], *, stats: bool, control: str | None,
    std: bool, precision: int | None,
) -> RunReport:
    """The tables of ``metrics`` from the stores (:func:`~mlhidden.report.stored_metrics.stored_metrics`)."""
    results = stored_metrics(run_dirs, list(dict.fromkeys(metrics)), precision=precision)
    parts: list[str] = []
    notes: list[str] = []
    for name, result in results.items():
        if result.table is not None:
            parts.append(to_terminal(result.table, std=std))
        notes += [f"{name}: {line}" for line in result.note_lines()]
    report = RunReport("\n".join(parts), notes + list(results.run_notes), list(results.provenance))
    if out_dir is None:
        return report
    out_dir = Path(out_dir)
    tables = {result.table.metric.name: result for result in results.values() if result.table is not None}
    for column, result in tables.items():
        table = cast(MetricTable, result.table)
        report.paths.append(write_frame(out_dir / f"{column}.csv", wide_frame(table)))
        notes = [*result.note_lines(), *results.run_notes]
        report.paths += write_text_tables(table, out_dir, results.provenance, std=std, notes=notes)
    if stats and tables:
        ready = {column: cast(MetricTable, result.table) for column, result in tables.items()}
        _write_tests(report, ready, out_dir, control, run_dirs)
    return report


def _write_tests(
    report: RunReport, tables: dict[str, MetricTable], out_dir: Path, control: str | None, run_dirs: list[PathLike]
) -> None:
    """The tables' significance tests into ``out_dir``; a test over one dataset's splits gets a line in ``report``."""
    reports = statistics_reports(tables, control, stored_test_train_ratios(run_dirs))
    report.paths += write_statistics_reports(reports, out_dir)
    lines = [
        f"one dataset, {tested.dataset}: "
        + (f"no test applies ({tested.not_applicable})" if tested.not_applicable else
           f"methods compared over its {tested.n_splits} splits (corrected resampled t-test, Holm)")
        + f"; see {STATISTICS_FILE}"
        for tested in reports.values() if isinstance(tested, SplitsReport)
    ]
    report.notes += list(dict.fromkeys(lines))

