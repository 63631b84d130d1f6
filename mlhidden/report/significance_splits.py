"""Methods compared over the splits of one dataset: the corrected resampled t-test against a control, Holm-corrected.

Over several datasets the dataset is the unit (:mod:`mlhidden.report.significance_tests`). A run
of one dataset has only its splits, and they share training rows, so a plain paired t-test would
find differences too easily. Each method's per-split differences from the control go through
the test the claims checker uses over splits (:func:`~mlhidden.stats.replication.compare`,
Nadeau & Bengio 2003), with the run's n_test / n_train; Holm's step-down correction is over the
comparisons with the control, as for the Wilcoxon tests over datasets.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from mlhidden.report.significance_tests import check_control
from mlhidden.report.tables import MetricTable
from mlhidden.runs.status import OK
from mlhidden.stats.replication import Target, compare
from mlhidden.stats.uncertainty import ALPHA, TIE_DECIMALS, holm

SPLITS_ALPHA = ALPHA


@dataclass(frozen=True)
class SplitComparison:
    """One method against the control, paired on the splits where both have a value.

    Attributes
    ----------
    method : str
    n_splits : int
        The splits paired.
    difference, low, high : float
        How much better the control is (for times: faster), as the mean over the splits, and its
        95 % interval with the corrected variance.
    p_value : float
        Two-sided p of the corrected resampled t-test; NaN with fewer than 2 paired splits.
    p_holm : float
        Holm-adjusted over the control's comparisons.
    significant : bool
        ``p_holm`` at most :data:`SPLITS_ALPHA`.
    direction : str
        How the control does against ``method``: "better", "worse" or "equal".
    """

    method: str
    n_splits: int
    difference: float
    low: float
    high: float
    p_value: float
    p_holm: float
    significant: bool
    direction: str


@dataclass(frozen=True, eq=False)
class SplitsReport:
    """The test of one metric's table over the splits of its one complete dataset.

    Attributes
    ----------
    table : MetricTable
    dataset : str
    n_splits : int
        The dataset's splits (or folds).
    test_train_ratio : float
        n_test / n_train of a split, from the run's protocol.
    control : str or None
    comparisons : tuple of SplitComparison
        One per method other than the control, in table order.
    not_applicable : str or None
        Why there is no test (fewer than 2 splits or methods); None when there is.
    """

    table: MetricTable
    dataset: str
    n_splits: int
    test_train_ratio: float
    control: str | None = None
    comparisons: tuple[SplitComparison, ...] = ()
    not_applicable: str | None = None

    @property
    def excluded(self) -> tuple[str, ...]:
        """The table's other datasets: unavailable, or with cells lacking any result."""
        return tuple(dataset for dataset in self.table.datasets if dataset != self.dataset)


def splits_report(
    table: MetricTable, dataset: str, test_train_ratio: float, control: str | None = None
) -> SplitsReport:
    """Every ranked method of ``table`` against ``control`` over the splits of ``dataset`` (see the module docstring).

    ``control`` defaults to the best rank on ``dataset``, which is the best average rank over
    the table's one ranked dataset (the first in table order on a tie).
    """
    methods = table.ranked_methods
    chosen = check_control(control, methods)
    values = table.per_split[table.per_split["dataset"] == dataset]
    n_splits, k = int(values["split"].nunique()), len(methods)
    report = SplitsReport(table, dataset, n_splits, test_train_ratio)
    if n_splits < 2 or k < 2:
        return dataclasses.replace(report, not_applicable=(
            f"{dataset} has {n_splits} split{'s' if n_splits != 1 else ''} and {k} method{'s' if k != 1 else ''};"
            " the corrected resampled t-test over splits needs at least 2 of each"
        ))
    control = chosen or str(table.ranks.loc[dataset, methods].idxmin())
    ok = values[values["status"] == OK].pivot(index="split", columns="method", values="value")
    sign = 1.0 if table.metric.higher_is_better else -1.0
    tested = []
    for method in methods:
        if method == control:
            continue
        pair = ok.reindex(columns=[control, method]).dropna()
        differences = sign * (pair[control] - pair[method]).to_numpy()
        # Against the default target "the control is better": its two sides' p are each twice one tail.
        result = compare(method, differences, f"splits of {dataset}", Target(), test_train_ratio=test_train_ratio)
        p_value = min(result.p_claimed, result.p_opposite) if len(differences) >= 2 else math.nan
        tested.append((method, len(differences), result.effect, result.low, result.high, p_value))
    comparisons = []
    for (method, n, difference, low, high, p_value), p_holm in zip(tested, holm([t[-1] for t in tested])):
        gap = round(difference, TIE_DECIMALS)
        comparisons.append(SplitComparison(
            method=method, n_splits=n, difference=difference, low=low, high=high, p_value=p_value,
            p_holm=float(p_holm), significant=bool(p_holm <= SPLITS_ALPHA),
            direction="better" if gap > 0 else "worse" if gap < 0 else "equal",
        ))
    return dataclasses.replace(report, control=control, comparisons=tuple(comparisons))
