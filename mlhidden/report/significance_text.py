"""The significance tests as text: Markdown sections and the JSON of ``statistics.json``.

The tests themselves are :mod:`mlhidden.report.significance_tests` and
:mod:`mlhidden.report.significance_splits`; :mod:`mlhidden.report.statistics_files` writes these into
``statistics.md`` and ``statistics.json`` with their critical-difference diagrams.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from mlhidden.escaping import markdown_escape
from mlhidden.report.formats import format_avg_rank, pipe_table
from mlhidden.report.significance_splits import SPLITS_ALPHA, SplitsReport
from mlhidden.report.significance_tests import (
    WILCOXON_ALPHA,
    WILCOXON_ZERO_METHOD,
    SignificanceReport,
    significant_pairs,
)
from mlhidden.stats.uncertainty import format_p


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


def significance_rows(
    report: SignificanceReport, avg_rank: Callable[[float], str] = format_avg_rank, name: Callable[[object], str] = str
) -> tuple[list[str], list[list[str]]]:
    """The per-method table of an applicable report: its headers (the control's name through ``name``)
    and one row per ranked method, its name first (unescaped), its average rank through ``avg_rank``:
    the page shows that number at the decimals its selector asks for, the Markdown at 2."""
    rows: list[list[str]] = []
    by_method = {comparison.method: comparison for comparison in report.wilcoxon}
    for method in report.table.ranked_methods:
        row = [method, avg_rank(report.avg_ranks[method])]
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
        f"R+ / R- vs {name(report.control)}",
        "Wilcoxon p",
        "Holm p",
        "control is",
        f"significant (α = {WILCOXON_ALPHA:.2f})",
    ]
    return headers, rows


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
    headers, rows = significance_rows(report, name=markdown_escape)
    rows = [[markdown_escape(row[0]), *row[1:]] for row in rows]
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


def splits_dict(report: SplitsReport) -> dict[str, Any]:
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
