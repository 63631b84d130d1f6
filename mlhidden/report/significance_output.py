"""The significance tests written out: Markdown sections with their CD diagrams, JSON, ``statistics.md``.

The tests themselves are :mod:`mlhidden.report.significance_tests`; tables go through
:mod:`mlhidden.report.formats` and diagrams through :mod:`mlhidden.report.cd_diagram`.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pandas as pd

from mlhidden.errors import InputWarning
from mlhidden.io import PathLike, write_text
from mlhidden.report.cd_diagram import plot_cd_diagram
from mlhidden.report.escaping import markdown_escape
from mlhidden.report.formats import format_avg_rank, pipe_table
from mlhidden.report.significance_splits import SPLITS_ALPHA, SplitsReport, splits_report
from mlhidden.report.significance_tests import (
    WILCOXON_ALPHA,
    WILCOXON_ZERO_METHOD,
    SignificanceReport,
    significance_report,
    significant_pairs,
)
from mlhidden.report.tables import SUMMARY_METRICS, MetricTable, metric_tables
from mlhidden.runs.metrics import Metric
from mlhidden.runs.record import RunRecord
from mlhidden.runs.store import existing_stores
from mlhidden.stats.replication import split_test_train_ratio
from mlhidden.stats.uncertainty import format_p

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


def _finite(value: float) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


def _significance_sentences(report: SignificanceReport) -> list[str]:
    """The findings in words: Nemenyi per α, then Wilcoxon–Holm, one sentence per significant pair.

    Nemenyi differences are only claimed at the levels where the Friedman test rejects; a level
    that rejects nothing, or finds no pair, says so in one sentence.
    """
    lines: list[str] = []
    if report.friedman_p is None:
        return lines
    p_value, which = report.friedman_p
    for test in report.nemenyi:
        if p_value > test.alpha:
            lines.append(
                f"At α = {test.alpha:.2f} the Friedman test does not reject equal performance"
                f" ({which} p = {format_p(p_value)}), so no pairwise difference is claimed."
            )
            continue
        pairs = significant_pairs(test.significant, report.avg_ranks)
        if not pairs:
            lines.append(
                f"At α = {test.alpha:.2f} no two methods' average ranks differ by the CD ({test.cd:.2f})"
                " or more: the Nemenyi test finds no significant pair."
            )
        for better, worse in pairs:
            lines.append(
                f"At α = {test.alpha:.2f}, {better} ranks significantly better than {worse}"
                f" (avg ranks {report.avg_ranks[better]:.2f} vs {report.avg_ranks[worse]:.2f}, CD {test.cd:.2f})."
            )
    for comparison in report.wilcoxon:
        if comparison.significant:
            lines.append(
                f"Wilcoxon–Holm at α = {WILCOXON_ALPHA:.2f}: {report.control} is significantly"
                f" {comparison.direction} than {comparison.method} on the means of"
                f" {comparison.n_datasets} datasets (adjusted p = {format_p(comparison.p_holm)})."
            )
    return lines


def significance_markdown(report: SignificanceReport, level: int = 2) -> str:
    """A section: the Friedman verdict, a per-method table, the Nemenyi groups, the sentences.

    ``level`` is the heading level, for sections inside a larger document.
    """
    title = report.table.metric.title
    text = f"{'#' * level} {markdown_escape(title)}: significance over datasets\n\n"
    if report.excluded:
        text += f"Not tested (no complete row): {markdown_escape(', '.join(report.excluded))}.\n\n"
    if report.not_applicable:
        return text + f"Tests not applicable: {markdown_escape(report.not_applicable)}.\n"
    if report.caveat:
        text += f"**Caveat**: {markdown_escape(report.caveat)}.\n\n"
    friedman = report.friedman
    assert friedman is not None and report.friedman_p is not None  # every applicable report has both
    n, k = len(report.datasets), len(report.table.ranked_methods)
    text += (
        f"Friedman test over N = {n} datasets and k = {k} methods: χ²_F = {friedman.chi2:.2f}"
        f" (p = {format_p(friedman.chi2_p_value)}); Iman–Davenport F_F = {friedman.f:.2f}"
        f" with ({friedman.df[0]}, {friedman.df[1]}) df, p = {format_p(friedman.p_value)}. The verdicts below and the"
        f" ranks claims use the Friedman {report.friedman_p[1]} p = {format_p(report.friedman_p[0])}"
        " (exact where the design is small enough); the Nemenyi CD compares all pairs, a ranks claim's"
        " Bonferroni–Dunn CD each method with its control.\n\n"
    )
    rows: list[list[str]] = []
    by_method = {comparison.method: comparison for comparison in report.wilcoxon}
    for method in report.table.ranked_methods:
        row = [markdown_escape(method), format_avg_rank(report.avg_ranks[method])]
        comparison = by_method.get(method)
        if comparison is None:
            row += ["control", "", "", "", ""]
        else:
            row += [
                f"{comparison.rank_sum_better:g} / {comparison.rank_sum_worse:g}",
                format_p(comparison.p_value),
                format_p(comparison.p_holm),
                comparison.direction,
                "yes" if comparison.significant else "no",
            ]
        rows.append(row)
    headers = [
        "Method",
        "avg rank",
        f"R+ / R- vs {markdown_escape(report.control)}",
        "Wilcoxon p",
        "Holm p",
        "control is",
        f"significant (α = {WILCOXON_ALPHA:.2f})",
    ]
    alignment = ("left", "right", "right", "right", "right", "left", "left")
    text += pipe_table(rows, headers, alignment) + "\n\n"
    text += (
        f"R+ / R-: rank sums of the datasets where {markdown_escape(report.control)} is better / worse"
        f" (zero differences split between them, zero_method='{WILCOXON_ZERO_METHOD}');"
        " Holm's correction is over the comparisons with the control.\n\n"
    )
    for test in report.nemenyi:
        groups = "; ".join("{" + ", ".join(clique) + "}" for clique in test.cliques)
        text += (
            f"- Nemenyi at α = {test.alpha:.2f}: CD = {test.cd:.2f} (q = {test.q:.3f});"
            f" groups not significantly different: {markdown_escape(groups)}\n"
        )
    sentences = [
        *(f"{method} is not tested: {reason}" for method, reason in report.table.unranked.items()),
        *_significance_sentences(report),
    ]
    if sentences:
        text += "\n" + "".join(f"- {markdown_escape(sentence)}\n" for sentence in sentences)
    return text

def significance_dict(report: SignificanceReport) -> dict[str, Any]:
    """A JSON-ready dict; non-finite numbers (an infinite F_F, a missing p) become None."""
    data: dict[str, Any] = {
        "metric": report.table.metric.name,
        "title": report.table.metric.title,
        "higher_is_better": report.table.metric.higher_is_better,
        "datasets": list(report.datasets),
        "excluded_datasets": list(report.excluded),
        "methods": list(report.table.ranked_methods),
        "unranked": dict(report.table.unranked),
        "avg_ranks": {method: _finite(rank) for method, rank in report.avg_ranks.items()},
        "not_applicable": report.not_applicable,
        "caveat": report.caveat,
    }
    friedman = report.friedman
    if report.not_applicable or friedman is None:
        return data
    data["friedman"] = {
        "chi2": _finite(friedman.chi2),
        "chi2_p_value": _finite(friedman.chi2_p_value),
        "iman_davenport_f": _finite(friedman.f),
        "p_value": _finite(friedman.p_value),
        "df": list(friedman.df),
    }
    data["nemenyi"] = [
        {
            "alpha": test.alpha,
            "q": test.q,
            "cd": test.cd,
            "significant_pairs": significant_pairs(test.significant, report.avg_ranks),
            "cliques": [list(clique) for clique in test.cliques],
        }
        for test in report.nemenyi
    ]
    data["wilcoxon"] = {
        "control": report.control,
        "zero_method": WILCOXON_ZERO_METHOD,
        "alpha": WILCOXON_ALPHA,
        "comparisons": [
            {
                "method": comparison.method,
                "n_datasets": comparison.n_datasets,
                "rank_sum_better": comparison.rank_sum_better,
                "rank_sum_worse": comparison.rank_sum_worse,
                "statistic": _finite(comparison.statistic),
                "p_value": _finite(comparison.p_value),
                "p_holm": _finite(comparison.p_holm),
                "significant": comparison.significant,
                "direction": comparison.direction,
            }
            for comparison in report.wilcoxon
        ],
    }
    return data


def _signed(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:+.3g}"


def splits_markdown(report: SplitsReport, level: int = 2) -> str:
    """A section: the test's setting, each method against the control, the significant differences in words."""
    table, dataset = report.table, markdown_escape(report.dataset)
    text = f"{'#' * level} {markdown_escape(table.metric.title)}: significance over the splits of {dataset}\n\n"
    if report.excluded:
        text += f"Not tested (no complete row): {markdown_escape(', '.join(report.excluded))}.\n\n"
    if report.not_applicable:
        return text + f"Tests not applicable: {markdown_escape(report.not_applicable)}.\n"
    control = markdown_escape(report.control)
    text += (
        f"Corrected resampled t-test over the {report.n_splits} splits of {dataset}, paired by split, with"
        f" n_test/n_train = {report.test_train_ratio:.4g} (the run's protocol); control: {control}.\n\n"
    )
    by_method = {comparison.method: comparison for comparison in report.comparisons}
    rows: list[list[str]] = []
    for method in table.ranked_methods:
        mean = float(table.means.at[report.dataset, method])
        row = [markdown_escape(method), "-" if math.isnan(mean) else table.metric.format(mean)]
        tested = by_method.get(method)
        if tested is None:
            rows.append(row + ["control", "", "", "", "", ""])
            continue
        interval = "" if math.isnan(tested.low) else f" [{_signed(tested.low)}, {_signed(tested.high)}]"
        rows.append(row + [
            _signed(tested.difference) + interval, str(tested.n_splits), format_p(tested.p_value),
            format_p(tested.p_holm), tested.direction, "yes" if tested.significant else "no",
        ])
    headers = [
        "Method", "mean", f"{control} better by [95 % CI]", "splits", "t-test p", "Holm p", "control is",
        f"significant (α = {SPLITS_ALPHA:.2f})",
    ]
    text += pipe_table(rows, headers, ("left", "right", "right", "right", "right", "right", "left", "left")) + "\n\n"
    sentences = [f"{method} is not tested: {reason}" for method, reason in table.unranked.items()]
    sentences += [
        f"Corrected resampled t-test, Holm at α = {SPLITS_ALPHA:.2f}: {report.control} is significantly"
        f" {c.direction} than {c.method} over {c.n_splits} splits (adjusted p = {format_p(c.p_holm)})."
        for c in report.comparisons if c.significant
    ]
    return text + "".join(f"- {markdown_escape(sentence)}\n" for sentence in sentences)


def _splits_dict(report: SplitsReport) -> dict[str, Any]:
    """A JSON-ready dict, keyed as :func:`significance_dict` where the two agree; a missing number becomes None."""
    table = report.table
    data: dict[str, Any] = {
        "metric": table.metric.name,
        "title": table.metric.title,
        "higher_is_better": table.metric.higher_is_better,
        "datasets": [report.dataset],
        "excluded_datasets": list(report.excluded),
        "methods": list(table.ranked_methods),
        "unranked": dict(table.unranked),
        "means": {method: _finite(table.means.at[report.dataset, method]) for method in table.ranked_methods},
        "n_splits": report.n_splits,
        "test_train_ratio": report.test_train_ratio,
        "not_applicable": report.not_applicable,
    }
    if report.not_applicable:
        return data
    data["corrected_t"] = {
        "control": report.control,
        "alpha": SPLITS_ALPHA,
        "comparisons": [
            {key: _finite(value) if isinstance(value, float) else value for key, value in asdict(c).items()}
            for c in report.comparisons
        ],
    }
    return data


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
            document[column] = _splits_dict(report)
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

