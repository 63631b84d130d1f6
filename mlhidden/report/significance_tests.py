"""Significance tests over datasets for one metric's table, as Demšar (2006) recommends.

For k methods on N datasets, with the average ranks of a :class:`MetricTable` (ties averaged,
1 = best, times ascending):

- the Friedman test with the Iman–Davenport correction, whose F statistic is less conservative
  than the chi-square one;
- the Nemenyi post-hoc test: two methods differ significantly when their average ranks differ by
  at least the critical difference (CD), at α = 0.05 and 0.10;
- Wilcoxon signed-rank tests of every method against a control method on the datasets' means,
  with Holm's step-down correction for the k - 1 comparisons.

Only the complete (ranked) datasets take part; partly failed cells keep their mean, fully failed
cells rank last in the Friedman/Nemenyi tests and leave that dataset out of their Wilcoxon pair.

References
----------
J. Demšar. Statistical comparisons of classifiers over multiple data sets. JMLR 7 (2006) 1-30.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeAlias

import numpy as np
import pandas as pd
from scipy import stats

from mlhidden.errors import UserError, did_you_mean, unique_match
from mlhidden.report.tables import MetricTable
from mlhidden.stats.friedman import FriedmanTest, friedman_p, friedman_test
from mlhidden.stats.ranks import RANK_DECIMALS
from mlhidden.stats.replication import signed_rank_p
from mlhidden.stats.uncertainty import ALPHA, critical_difference, holm, nemenyi_q

# Each method's average rank: a pandas Series indexed by method, or any mapping.
Ranks: TypeAlias = "pd.Series | Mapping[str, float]"

NEMENYI_ALPHAS = (ALPHA, 0.10)
# Below this many datasets the tests have little power and a critical difference as long as the
# rank axis: their verdicts are reported with a caveat.
MIN_DATASETS = 5
WILCOXON_ALPHA = ALPHA
# Demšar's treatment of ties with the control: half of the zero differences' ranks go to each side.
WILCOXON_ZERO_METHOD = "zsplit"



@dataclass(frozen=True, eq=False)
class NemenyiTest:
    """All pairwise comparisons by average rank at one significance level.

    Attributes
    ----------
    alpha : float
    q : float
        The critical value: the studentized range quantile for k means and infinite df, / sqrt 2.
    cd : float
        The critical difference q sqrt(k (k + 1) / (6 N)).
    significant : pandas.DataFrame
        methods x methods, True where the average ranks differ by at least ``cd``.
    cliques : tuple of tuple of str
        The maximal groups of methods whose average ranks all differ by less than ``cd``, best
        first, each in rank order; a method significantly different from all others is a group
        of its own.
    """

    alpha: float
    q: float
    cd: float
    significant: pd.DataFrame
    cliques: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class WilcoxonComparison:
    """One method against the control: Wilcoxon signed-rank test on the datasets' means.

    Attributes
    ----------
    method : str
    n_datasets : int
        Datasets where both have a mean (a fully failed cell has none).
    rank_sum_better, rank_sum_worse : float
        Demšar's R+ and R-: the rank sums of the datasets where the control is better or worse,
        each with half the ranks of the ties.
    statistic : float
        min(R+, R-).
    p_value : float
        Two-sided; NaN when there is no dataset to compare on.
    p_holm : float
        Holm-adjusted over the control's comparisons.
    significant : bool
        ``p_holm`` at most :data:`WILCOXON_ALPHA`.
    direction : str
        How the control does against ``method``: "better", "worse" or "equal" (R+ = R-).
    """

    method: str
    n_datasets: int
    rank_sum_better: float
    rank_sum_worse: float
    statistic: float
    p_value: float
    p_holm: float
    significant: bool
    direction: str


@dataclass(frozen=True, eq=False)
class SignificanceReport:
    """Every test for one metric's table (see the module docstring).

    Attributes
    ----------
    table : MetricTable
        The table tested.
    datasets : tuple of str
        The complete datasets the tests are over (N of them).
    avg_ranks : pandas.Series
        Per method, its mean rank over ``datasets``.
    friedman : FriedmanTest or None
    friedman_p : tuple of (float, str) or None
        The p the verdicts use and the claims print, and which it is (:func:`friedman_p`).
    nemenyi : tuple of NemenyiTest
        One per level in :data:`NEMENYI_ALPHAS`.
    control : str or None
    wilcoxon : tuple of WilcoxonComparison
        One per method other than the control, in table order.
    not_applicable : str or None
        Why there are no tests (fewer than 2 complete datasets or methods); None when there are.
    """

    table: MetricTable
    datasets: tuple[str, ...]
    avg_ranks: pd.Series
    friedman: FriedmanTest | None = None
    friedman_p: tuple[float, str] | None = None
    nemenyi: tuple[NemenyiTest, ...] = ()
    control: str | None = None
    wilcoxon: tuple[WilcoxonComparison, ...] = ()
    not_applicable: str | None = None

    @property
    def caveat(self) -> str | None:
        """Why the tests' verdicts deserve little weight (fewer than :data:`MIN_DATASETS` datasets), or None."""
        n = len(self.datasets)
        if self.not_applicable or n >= MIN_DATASETS:
            return None
        return (
            f"the significance tests are over only N = {n} datasets; below {MIN_DATASETS} they have little power"
            " and the Nemenyi critical difference spans most of the rank axis"
        )

    @property
    def excluded(self) -> tuple[str, ...]:
        """The table's datasets that are not tested: unavailable, or with cells lacking any result."""
        return tuple(dataset for dataset in self.table.datasets if dataset not in self.datasets)


def cliques(avg_ranks: Ranks, cd: float) -> tuple[tuple[str, ...], ...]:
    """The maximal groups of methods whose average ranks all differ by less than ``cd``.

    With methods sorted by average rank, each group is a run from one method to the last one
    within ``cd`` of it; runs inside an earlier run are not maximal and are dropped.

    Parameters
    ----------
    avg_ranks : pandas.Series or mapping
        Method -> average rank.
    cd : float

    Returns
    -------
    tuple of tuple of str
        Best group first, each group in rank order (ties in the given order).
    """
    ranks = pd.Series(avg_ranks, dtype=float).sort_values(kind="stable")
    names, values = list(ranks.index), ranks.to_numpy()
    groups, last_end = [], -1
    for start, value in enumerate(values):
        end = start
        while end + 1 < len(values) and values[end + 1] - value < cd:
            end += 1
        if end > last_end:
            groups.append(tuple(names[start : end + 1]))
            last_end = end
    return tuple(groups)


def _nemenyi_test(avg_ranks: pd.Series, n_datasets: int, alpha: float) -> NemenyiTest:
    """Pairwise Nemenyi comparisons of ``avg_ranks`` over ``n_datasets`` at level ``alpha``."""
    k = len(avg_ranks)
    q, cd = nemenyi_q(k, alpha), critical_difference(k, n_datasets, alpha)
    values = avg_ranks.to_numpy(dtype=float)
    significant = pd.DataFrame(
        np.abs(values[:, None] - values[None, :]) >= cd, index=avg_ranks.index, columns=avg_ranks.index
    )
    return NemenyiTest(alpha=alpha, q=q, cd=cd, significant=significant, cliques=cliques(avg_ranks, cd))


def significant_pairs(significant: pd.DataFrame, avg_ranks: pd.Series) -> list[list[str]]:
    """``[better, worse]`` for each significant pair, better by average rank, best pairs first."""
    ordered = list(avg_ranks.sort_values(kind="stable").index)
    return [
        [better, worse]
        for i, better in enumerate(ordered)
        for worse in ordered[i + 1 :]
        if significant.at[better, worse]
    ]


def _wilcoxon_against_control(
    table: MetricTable, datasets: Sequence[str], control: str,
) -> tuple[WilcoxonComparison, ...]:
    """Wilcoxon signed-rank tests of ``control`` against every other method, Holm-corrected.

    The differences are taken so that a positive one means the control is better (for times:
    faster), and rounded as the table's ranks are, so that float noise does not split ties.
    """
    sign = 1.0 if table.metric.higher_is_better else -1.0
    means = table.means.loc[list(datasets)]
    results = []
    for method in table.ranked_methods:
        if method == control:
            continue
        differences = (sign * (means[control] - means[method])).dropna().round(RANK_DECIMALS).to_numpy()
        results.append((method, *_signed_rank_test(differences)))
    adjusted = holm([p_value for *_, p_value in results])
    comparisons = []
    for (method, n, better, worse, statistic, p_value), p_holm in zip(results, adjusted):
        direction = "better" if better > worse else "worse" if worse > better else "equal"
        comparisons.append(
            WilcoxonComparison(
                method=method,
                n_datasets=n,
                rank_sum_better=better,
                rank_sum_worse=worse,
                statistic=statistic,
                p_value=p_value,
                p_holm=float(p_holm),
                significant=bool(p_holm <= WILCOXON_ALPHA),
                direction=direction,
            )
        )
    return tuple(comparisons)


def _signed_rank_test(differences: np.ndarray) -> tuple[int, float, float, float, float]:
    """(n, R+, R-, min(R+, R-), two-sided p) for paired differences, zero differences split."""
    n = len(differences)
    if n == 0:
        return 0, 0.0, 0.0, math.nan, math.nan
    ranks = stats.rankdata(np.abs(differences))
    ties = ranks[differences == 0].sum() / 2
    better = float(ranks[differences > 0].sum() + ties)
    worse = float(ranks[differences < 0].sum() + ties)
    return n, better, worse, min(better, worse), signed_rank_p(differences, "two-sided")


def check_control(control: str | None, methods: Sequence[str]) -> str | None:
    """The method of ``methods`` that ``control`` names in any letter case (None for None), else UserError.

    ``run`` asks before its units run, so a wrong name costs no work."""
    if control is None:
        return None
    chosen = unique_match(control, methods, "control method")
    if chosen is None:
        raise UserError(
            f"unknown control method '{control}'",
            hint=f"{did_you_mean(control, methods)}choose one of: {', '.join(methods)}",
        )
    return chosen


def significance_report(table: MetricTable, control: str | None = None) -> SignificanceReport:
    """Friedman, Nemenyi and Wilcoxon–Holm tests over the complete datasets of ``table``.

    Parameters
    ----------
    table : MetricTable
    control : str, optional
        The method the others are compared with in the Wilcoxon tests; by default the one with
        the best average rank (the first in table order on a tie).

    Returns
    -------
    SignificanceReport
        With ``not_applicable`` set, and no tests, when there are fewer than 2 complete datasets
        or fewer than 2 methods.
    """
    chosen = check_control(control, table.ranked_methods)
    datasets = tuple(table.ranked_datasets)
    ranks = table.ranks.loc[list(datasets), table.ranked_methods]
    avg_ranks = ranks.mean(axis=0).rename("avg rank")
    n, k = len(datasets), len(ranks.columns)
    if n < 2 or k < 2:
        reason = (
            f"{n} complete dataset{'s' if n != 1 else ''} and {k} method{'s' if k != 1 else ''};"
            " the tests need at least 2 of each"
        )
        return SignificanceReport(table=table, datasets=datasets, avg_ranks=avg_ranks, not_applicable=reason)
    control = chosen or avg_ranks.idxmin()
    return SignificanceReport(
        table=table,
        datasets=datasets,
        avg_ranks=avg_ranks,
        friedman=friedman_test(ranks.to_numpy()),
        friedman_p=friedman_p(ranks.to_numpy()),
        nemenyi=tuple(_nemenyi_test(avg_ranks, n, alpha) for alpha in NEMENYI_ALPHAS),
        control=control,
        wilcoxon=_wilcoxon_against_control(table, datasets, control),
    )
