"""Results tables: per-dataset means over splits, per-dataset ranks and the average rank.

The input is the tidy ``units`` frame, one row per (dataset, method, split) unit with columns
``dataset``, ``method``, ``split``, ``status`` ("ok" or "failed"), ``error`` and one float column per
metric in :data:`METRICS` (NaN for failed units). Tables follow the configured order of datasets
and methods, never alphabetical order.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from mlhidden.errors import UserError, did_you_mean, unique_match
from mlhidden.report.digits import MAX_DIGITS, MIN_DIGITS, first_separating
from mlhidden.report.ranked_methods import unranked_methods
from mlhidden.runs.metrics import FUNCTION_HINT, LOWER_IS_BETTER, plugin_metric
from mlhidden.runs.run_results import UNIT_KEYS, listed_once, sort_units, table_rows
from mlhidden.runs.status import FAILED, MISSING, OK, PARTIAL, UNAVAILABLE
from mlhidden.runs.unit_warnings import kind_counts
from mlhidden.stats.ranks import rank_rows
from mlhidden.stats.uncertainty import t_interval


@dataclass(frozen=True)
class Metric:
    """How one metric column is titled, ranked and displayed.

    Parameters
    ----------
    column : str
        The column of ``units`` holding the per-split value.
    title : str
        The display title.
    higher_is_better : bool
        Scores rank descending (rank 1 = highest); times rank ascending (rank 1 = fastest).
    is_time : bool
        Times are shown with fewer decimals the longer they are (see :meth:`format`).
    digits : int, optional
        Decimals of every value shown (``--precision``); None for the defaults of :meth:`format`.
    extra_digits : int
        Decimals a time table adds to the defaults of :meth:`format`, to tell its ranks apart.
    plugin : bool
        A metric function of the user's (:func:`mlhidden.runs.metrics.plugin_metric`),
        computed from the stored predictions.
    """

    column: str
    title: str
    higher_is_better: bool = True
    is_time: bool = False
    digits: int | None = None
    plugin: bool = False
    extra_digits: int = 0

    def format(self, value: float) -> str:
        """The display text of a mean.

        Scores get 2 decimals, as in the paper. Times in seconds get whole seconds from 10 s up
        (the paper shows integer seconds), one decimal from 1 s and two below 1 s, so that fast
        methods do not all read "0". With ``digits`` set, every value gets that many, since two
        decimals can hide the differences that decide the ranks.
        """
        if self.digits is not None:
            return f"{value:.{self.digits}f}"
        decimals = 2 if not self.is_time or value < 1 else 1 if value < 10 else 0
        return f"{value:.{min(decimals + self.extra_digits, MAX_DIGITS)}f}"


METRICS: dict[str, Metric] = {
    metric.column: metric
    for metric in (
        Metric("exact_match", "Exact match"),
        Metric("hamming_score", "Hamming score"),
        Metric("micro_f1", "Micro F1"),
        Metric("macro_f1", "Macro F1"),
        Metric("example_f1", "Example F1"),
        Metric("jaccard", "Jaccard index"),
        Metric("train_seconds", "Train time (s)", higher_is_better=False, is_time=True),
        Metric("test_seconds", "Test time (s)", higher_is_better=False, is_time=True),
        Metric("total_seconds", "Time (s)", higher_is_better=False, is_time=True),
    )
}

# Computed from stored label scores (mlhidden.runs.metrics.RANKING_METRICS), not unit columns.
SCORE_METRICS: dict[str, Metric] = {
    metric.column: metric
    for metric in (
        Metric(column, title, higher_is_better=column not in LOWER_IS_BETTER)
        for column, title in (
            ("ranking_loss", "Ranking loss"),
            ("coverage_error", "Coverage error"),
            ("average_precision", "Label ranking average precision"),
            ("one_error", "One-error"),
            ("log_loss", "Log-loss"),
            ("micro_auc", "Micro ROC AUC"),
            ("macro_auc", "Macro ROC AUC"),
        )
    )
}

TRAIN_TIME_METRICS = ("train_seconds", "total_seconds")
REUSED_SECONDS = "reused_seconds"

# The metrics a run's summary tables, tests and ranks: the two scores of every prediction, and the time.
SUMMARY_METRICS = ("exact_match", "hamming_score", "total_seconds")


def get_metric(metric: str | Metric) -> Metric:
    """The :class:`Metric` for a name of :data:`METRICS` or :data:`SCORE_METRICS`, or a plug-in
    metric's import path or entry-point name (a :class:`Metric` is returned as is)."""
    if isinstance(metric, Metric):
        return metric
    known = {**METRICS, **SCORE_METRICS}
    metric = unique_match(metric, known, "metric") or metric
    plugin = None if metric in known else plugin_metric(metric)
    if plugin is not None:
        return Metric(metric, metric, higher_is_better=plugin.higher_is_better, plugin=True)
    if metric not in known:
        raise UserError(
            f"unknown metric '{metric}'",
            hint=f"{did_you_mean(metric, known)}valid metrics: {', '.join(known)}, or {FUNCTION_HINT}",
        )
    return known[metric]


@dataclass(frozen=True, eq=False)
class MetricTable:
    """One metric over datasets x methods: means over the ok splits, ranks and average rank.

    Cells are in one of five states (see :meth:`cell_state`): "ok"; "partial" (some splits
    failed: the mean is over the ok ones and the cell is flagged); "failed" (every split
    failed: no mean, and the worst rank, shared with other failed cells, so that failing never
    pays); "missing" (no unit at all, e.g. a run still in progress: its dataset is not ranked);
    "unavailable" (the dataset could not be run: its row says why and is not ranked).

    Attributes
    ----------
    metric : Metric
        What the values are.
    datasets : tuple of str
        Row order: the configured datasets, then any unavailable ones not among them.
    methods : tuple of str
        Column order.
    means, std : pandas.DataFrame
        datasets x methods mean and sample standard deviation (ddof=1) over the ok splits; NaN
        where there is none.
    ci_low, ci_high : pandas.DataFrame
        datasets x methods 95 % t-interval of the mean over the ok splits
        (:func:`~mlhidden.stats.uncertainty.t_interval`); NaN with fewer than two.
    n_splits, n_failed : pandas.DataFrame
        datasets x methods counts of units and of failed units.
    ranks : pandas.DataFrame
        datasets x methods rank within each ranked dataset, 1 = best, ties averaged; NaN on rows
        that are not ranked.
    avg_rank : pandas.Series
        Per method, the mean rank over the ranked datasets.
    per_split : pandas.DataFrame
        The long per-unit values (dataset, method, split, status, value), for statistical tests.
    unavailable : dict
        Dataset name -> why it could not be run.
    n_warned : pandas.DataFrame
        datasets x methods count of ok units that raised warnings (all 0 when ``units`` has no
        ``n_warnings`` column).
    warning_kinds : dict
        (dataset, method) -> the kinds of warning its units raised
        (:func:`~mlhidden.runs.unit_warnings.warning_kind`), for the cells with any.
    own_work_only : bool
        A train-time table whose units record reused fits apart (``reused_seconds``): its times
        are each method's own work. False for other tables, and for units of older stores, whose
        train times include the fits reused from other methods.
    unranked : dict
        Method -> why it is shown but left out of the ranks (see :func:`metric_table`).
    """

    metric: Metric
    datasets: tuple[str, ...]
    methods: tuple[str, ...]
    means: pd.DataFrame
    std: pd.DataFrame
    ci_low: pd.DataFrame
    ci_high: pd.DataFrame
    n_splits: pd.DataFrame
    n_failed: pd.DataFrame
    ranks: pd.DataFrame
    avg_rank: pd.Series
    per_split: pd.DataFrame
    unavailable: dict[str, str]
    n_warned: pd.DataFrame
    warning_kinds: dict[tuple[str, str], tuple[str, ...]]
    own_work_only: bool = False
    unranked: dict[str, str] = field(default_factory=dict)

    @property
    def ranked_methods(self) -> list[str]:
        """The methods that take part in the ranking, in column order."""
        return [method for method in self.methods if method not in self.unranked]

    @property
    def ranked_datasets(self) -> list[str]:
        """The datasets that take part in the ranking, in row order."""
        return [dataset for dataset in self.datasets if not self.ranks.loc[dataset].isna().all()]

    def cell_state(self, dataset: str, method: str) -> str:
        """One of "ok", "partial", "failed", "missing", "unavailable" (see the class docstring)."""
        if dataset in self.unavailable:
            return UNAVAILABLE
        n_splits = self.n_splits.at[dataset, method]
        n_failed = self.n_failed.at[dataset, method]
        if n_splits == 0:
            return MISSING
        if n_failed == n_splits or math.isnan(self.means.at[dataset, method]):
            return FAILED
        return PARTIAL if n_failed else OK

    def is_best(self, dataset: str, method: str) -> bool:
        """Whether this cell holds the best mean of its (ranked) dataset; ties are all best."""
        # Failed cells rank below every cell with a mean, so the row's best rank is a mean's.
        ranks = self.ranks.loc[dataset]
        return self.cell_state(dataset, method) in (OK, PARTIAL) and ranks[method] == ranks.min()


def metric_table(
    units: pd.DataFrame, metric: str | Metric, datasets: Sequence[str], methods: Sequence[str],
    unavailable: Mapping[str, str] | None = None, *, precision: int | None = None,
    unranked: Mapping[str, str] | None = None,
) -> MetricTable:
    """Means, ranks and average rank of one metric over datasets x methods.

    Parameters
    ----------
    units : pandas.DataFrame
        The tidy per-unit results (see the module docstring).
    metric : str or Metric
        A key of :data:`METRICS`, or a :class:`Metric`.
    datasets, methods : sequence of str
        Row and column order.
    unavailable : dict, optional
        Dataset name -> reason, for datasets that could not be run (they have no units).
    precision : int, optional
        Decimals of the values shown (see :attr:`Metric.digits`); ranks always use the full values.
        By default a table gets as many as tell its ranks apart (:func:`_separating_format`).
    unranked : dict, optional
        Method -> why it is left out of the ranks: its cells show their values without a rank,
        and a row is ranked when every other method has a result on it (merged runs whose method
        sets differ are ranked over the methods they share, see
        :func:`~mlhidden.report.ranked_methods.shared_methods`). The
        trivial baselines are always left out too
        (:func:`~mlhidden.report.ranked_methods.unranked_methods`).

    Returns
    -------
    MetricTable
    """
    metric = get_metric(metric)
    if precision is not None:
        metric = replace(metric, digits=precision)
    unranked = unranked_methods(methods, unranked)
    unavailable = dict(unavailable or {})
    rows = table_rows(datasets, unavailable)
    methods = listed_once(methods, "methods")
    units = sort_units(units, datasets, methods, unavailable)
    if metric.column not in units.columns:
        raise ValueError(f"units lack the metric column '{metric.column}'")

    per_split = units[list(UNIT_KEYS) + ["status"]].assign(value=units[metric.column].astype(float))
    ok = per_split[per_split["status"] == OK].groupby(["dataset", "method"])["value"]

    def grid(series: pd.Series, fill: int | None = None) -> pd.DataFrame:
        frame = series.unstack("method").reindex(index=rows, columns=methods)
        frame = frame.rename_axis(index="dataset", columns="method")
        return frame if fill is None else frame.fillna(fill).astype(int)

    cells = per_split.assign(failed=per_split["status"] == FAILED).groupby(["dataset", "method"])
    means, std, n_ok = grid(ok.mean()), grid(ok.std()), grid(ok.count(), fill=0)
    intervals = [
        [t_interval(means.at[d, m], std.at[d, m], int(n_ok.at[d, m])) for m in methods] for d in rows
    ]
    n_splits = grid(cells.size(), fill=0)
    n_failed = grid(cells["failed"].sum(), fill=0)
    n_warnings = units["n_warnings"].fillna(0) if "n_warnings" in units else pd.Series(0, index=units.index)
    warned = units[(units["status"] == OK) & (n_warnings > 0)]
    n_warned = grid(warned.groupby(["dataset", "method"]).size(), fill=0)
    warning_kinds = {
        cell: tuple(kind_counts(group["warnings"]))
        for cell, group in warned.groupby(["dataset", "method"], sort=False)
    } if "warnings" in warned else {}

    ranked_methods = [method for method in methods if method not in unranked]
    ranked = [
        dataset
        for dataset in rows
        if dataset not in unavailable and (n_splits.loc[dataset, ranked_methods] > 0).all()
    ]
    ranks = rank_rows(means.loc[ranked, ranked_methods], metric.higher_is_better).reindex(index=rows, columns=methods)
    if metric.digits is None:
        metric = _separating_format(metric, means, ranks)
    return MetricTable(
        metric=metric,
        datasets=tuple(rows),
        methods=tuple(methods),
        means=means,
        std=std,
        ci_low=pd.DataFrame([[low for low, _ in row] for row in intervals], index=means.index, columns=means.columns),
        ci_high=pd.DataFrame(
            [[high for _, high in row] for row in intervals], index=means.index, columns=means.columns
        ),
        n_splits=n_splits,
        n_failed=n_failed,
        ranks=ranks,
        avg_rank=ranks.mean(axis=0).rename("avg rank"),
        per_split=per_split,
        unavailable=unavailable,
        n_warned=n_warned,
        warning_kinds=warning_kinds,
        own_work_only=metric.column in TRAIN_TIME_METRICS
        and REUSED_SECONDS in units
        and units[REUSED_SECONDS].notna().any(),
        unranked=unranked,
    )


def _separating_format(metric: Metric, means: pd.DataFrame, ranks: pd.DataFrame) -> Metric:
    """``metric`` with the fewest decimals at which two means that rank differently never read the same:
    scores :data:`~mlhidden.report.digits.MIN_DIGITS` to ``MAX_DIGITS``, times up to two more than
    their defaults (see :meth:`Metric.format`)."""
    candidates = (
        [replace(metric, extra_digits=extra) for extra in range(MAX_DIGITS - MIN_DIGITS + 1)]
        if metric.is_time
        else [replace(metric, digits=digits) for digits in range(MIN_DIGITS, MAX_DIGITS + 1)]
    )
    return candidates[first_separating([m.format for m in candidates], means, ranks)]


def metric_tables(
    units: pd.DataFrame, datasets: Sequence[str], methods: Sequence[str], unavailable: Mapping[str, str] | None = None,
    metrics: Iterable[str | Metric] = tuple(METRICS), *, precision: int | None = None,
    unranked: Mapping[str, str] | None = None,
) -> dict[str, MetricTable]:
    """``{column: MetricTable}`` for each metric in ``metrics`` (``precision``, ``unranked``: see
    :func:`metric_table`)."""
    options: dict[str, Any] = {"precision": precision, "unranked": unranked}
    return {
        get_metric(metric).column: metric_table(units, metric, datasets, methods, unavailable, **options)
        for metric in metrics
    }
