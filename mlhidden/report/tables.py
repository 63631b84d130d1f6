"""Results tables: per-dataset means over splits, per-dataset ranks and the average rank.

The input is the tidy ``units`` frame, one row per (dataset, method, split) unit with columns
``dataset``, ``method``, ``split``, ``status`` ("ok" or "failed"), ``error`` and one float column per
metric in :data:`~mlhidden.runs.metrics.UNIT_METRICS` (NaN for failed units). What a metric is, its
title, direction and display, is the catalogue's :class:`~mlhidden.runs.metrics.Metric`. Tables follow
the configured order of datasets and methods, never alphabetical order.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from mlhidden.report.digits import first_separating
from mlhidden.report.ranked_methods import unranked_methods
from mlhidden.runs.metrics import MAX_DIGITS, MIN_DIGITS, UNIT_METRICS, Metric, get_metric
from mlhidden.runs.run_results import UNIT_KEYS, listed_once, sort_units, table_rows
from mlhidden.runs.status import FAILED, MISSING, OK, PARTIAL, UNAVAILABLE
from mlhidden.runs.store_schema import REUSED_SECONDS
from mlhidden.runs.unit_warnings import kind_counts
from mlhidden.stats.ranks import rank_rows
from mlhidden.stats.uncertainty import t_interval

TRAIN_TIME_METRICS = ("train_seconds", "total_seconds")

# The metrics a run's summary tables, tests and ranks: the two scores of every prediction, and the time.
SUMMARY_METRICS = ("exact_match", "hamming_score", "total_seconds")


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
        A name :func:`~mlhidden.runs.metrics.get_metric` knows, or a :class:`~mlhidden.runs.metrics.Metric`.
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
    if metric.name not in units.columns:
        raise ValueError(f"units lack the metric column '{metric.name}'")

    def grid(series: pd.Series, fill: int | None = None) -> pd.DataFrame:
        frame = series.unstack("method").reindex(index=rows, columns=methods)
        frame = frame.rename_axis(index="dataset", columns="method")
        return frame if fill is None else frame.fillna(fill).astype(int)

    per_split = units[list(UNIT_KEYS) + ["status"]].assign(value=units[metric.name].astype(float))
    ok = per_split[per_split["status"] == OK].groupby(["dataset", "method"])["value"]
    cells = per_split.assign(failed=per_split["status"] == FAILED).groupby(["dataset", "method"])
    means, std, n_ok = grid(ok.mean()), grid(ok.std()), grid(ok.count(), fill=0)
    n_splits = grid(cells.size(), fill=0)
    ranked_methods = [method for method in methods if method not in unranked]
    ranked = [d for d in rows if d not in unavailable and (n_splits.loc[d, ranked_methods] > 0).all()]
    ranks = rank_rows(means.loc[ranked, ranked_methods], metric.higher_is_better).reindex(index=rows, columns=methods)
    warned = units[(units["status"] == OK) & (_n_warnings(units) > 0)]
    return MetricTable(
        metric=_separating_format(metric, means, ranks) if metric.digits is None else metric,
        datasets=tuple(rows),
        methods=tuple(methods),
        means=means,
        std=std,
        **_intervals(means, std, n_ok),
        n_splits=n_splits,
        n_failed=grid(cells["failed"].sum(), fill=0),
        ranks=ranks,
        avg_rank=ranks.mean(axis=0).rename("avg rank"),
        per_split=per_split,
        unavailable=unavailable,
        n_warned=grid(warned.groupby(["dataset", "method"]).size(), fill=0),
        warning_kinds=_warning_kinds(warned),
        own_work_only=metric.name in TRAIN_TIME_METRICS and _records_reused(units),
        unranked=unranked,
    )


def _n_warnings(units: pd.DataFrame) -> pd.Series:
    """Each unit's count of warnings; 0 for units of a frame without the column."""
    return units["n_warnings"].fillna(0) if "n_warnings" in units else pd.Series(0, index=units.index)


def _records_reused(units: pd.DataFrame) -> bool:
    """Whether ``units`` record the fits they reused apart from their train time (schema 2 on)."""
    return bool(REUSED_SECONDS in units and units[REUSED_SECONDS].notna().any())


def _warning_kinds(warned: pd.DataFrame) -> dict[tuple[str, str], tuple[str, ...]]:
    """(dataset, method) -> the kinds of warning the ``warned`` units of that cell raised."""
    if "warnings" not in warned:
        return {}
    groups = warned.groupby(["dataset", "method"], sort=False)
    return {cell: tuple(kind_counts(group["warnings"])) for cell, group in groups}


def _intervals(means: pd.DataFrame, std: pd.DataFrame, n_ok: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """``ci_low`` and ``ci_high``: each cell's 95 % t-interval of its mean over its ``n_ok`` splits."""
    intervals = [
        [t_interval(means.at[d, m], std.at[d, m], int(n_ok.at[d, m])) for m in means.columns] for d in means.index
    ]
    return {
        bound: pd.DataFrame([[cell[i] for cell in row] for row in intervals], index=means.index, columns=means.columns)
        for i, bound in enumerate(("ci_low", "ci_high"))
    }


def _separating_format(metric: Metric, means: pd.DataFrame, ranks: pd.DataFrame) -> Metric:
    """``metric`` with the fewest decimals at which two means that rank differently never read the same:
    scores :data:`~mlhidden.runs.metrics.MIN_DIGITS` to ``MAX_DIGITS``, times up to two more than
    their defaults (see :meth:`Metric.format`)."""
    candidates = (
        [replace(metric, extra_digits=extra) for extra in range(MAX_DIGITS - MIN_DIGITS + 1)]
        if metric.is_time
        else [replace(metric, digits=digits) for digits in range(MIN_DIGITS, MAX_DIGITS + 1)]
    )
    return candidates[first_separating([m.format for m in candidates], means, ranks)]


def metric_tables(
    units: pd.DataFrame, datasets: Sequence[str], methods: Sequence[str], unavailable: Mapping[str, str] | None = None,
    metrics: Iterable[str | Metric] = tuple(UNIT_METRICS), *, precision: int | None = None,
    unranked: Mapping[str, str] | None = None,
) -> dict[str, MetricTable]:
    """``{name: MetricTable}`` for each metric in ``metrics`` (``precision``, ``unranked``: see
    :func:`metric_table`)."""
    options: dict[str, Any] = {"precision": precision, "unranked": unranked}
    return {
        get_metric(metric).name: metric_table(units, metric, datasets, methods, unavailable, **options)
        for metric in metrics
    }
