"""Intervals, paired comparisons and the one rule that turns them into a verdict.

Every number that decides something carries its spread. A table cell's spread is a 95 % t-interval
over its splits, mean ± t(n-1) sd / sqrt(n): deterministic (no resampling seed, so a report
rebuilds byte for byte), and with 10 splits a percentile bootstrap would be too narrow. The splits
are random 60/40 partitions of one dataset, so they overlap and the interval is, if anything, too
narrow; a verdict that needs significance is therefore not made easier by it than by the tests.

A claim is decided by :class:`Comparison` s: each is a paired comparison (over the same splits, or
over datasets) of what the claim says against the evidence, with an effect size, its interval and a
test. :func:`rule_verdict` is the only function that names a verdict:

- "holds": the effect lies on the claimed side and the test is significant at :data:`ALPHA`
  (after Holm's correction over the claim's comparisons);
- "does not hold": the opposite side is significant, or the interval excludes the effect size the
  claim states;
- "inconclusive": anything else.

A claim made of several comparisons holds when every one holds and does not hold when any does not
(:func:`combine`).
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeAlias

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

ALPHA = 0.05
"""The significance level of every verdict (and of the intervals: 1 - ALPHA)."""
CONFIDENCE = 1 - ALPHA
HOLDS, FAILS, INCONCLUSIVE, NOT_EVALUATED = "holds", "does not hold", "inconclusive", "not evaluated"
VERDICTS = (HOLDS, FAILS, INCONCLUSIVE)
RULE = (
    f"A claim holds when every comparison in it goes the claimed way significantly at α = {ALPHA} (Wilcoxon signed "
    "rank over the same splits or datasets, Holm-corrected over the claim's comparisons; Nemenyi for average ranks, "
    "once the Friedman test rejects); it does not hold when one goes the opposite way significantly or its "
    f"{CONFIDENCE:.0%} interval excludes the size the claim states; otherwise it is inconclusive. "
    "The deciding statistic is the comparison that decided: effect [interval], the claim's size and how its "
    "wording is read, test, p, n."
)
"""The rule in words, for the report."""
WILCOXON = "Wilcoxon signed rank"
NEMENYI = "Nemenyi"
# Paired differences closer to zero than this are ties: float noise must not decide a sign.
TIE_DECIMALS = 12

# Sample values or paired differences: a sequence of floats or an array (NaNs are dropped where said).
Values: TypeAlias = "Sequence[float] | np.ndarray"


def t_interval(mean: float, std: float, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The two-sided t-interval ``mean ± t sd / sqrt(n)``; NaNs without two values, the mean itself when sd is 0."""
    if n < 2 or math.isnan(mean) or math.isnan(std):
        return math.nan, math.nan
    half = float(stats.t.ppf(0.5 + confidence / 2, n - 1)) * std / math.sqrt(n)
    return mean - half, mean + half


def interval_of(values: Values, confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """``(mean, low, high)`` of the t-interval of ``values`` (NaNs dropped)."""
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    mean = float(values.mean()) if len(values) else math.nan
    std = float(values.std(ddof=1)) if len(values) > 1 else math.nan
    return (mean, *t_interval(mean, std, len(values), confidence))


def _one_sided(differences: np.ndarray, alternative: str) -> float:
    """Wilcoxon's one-sided p that the differences lie above (``greater``) or below (``less``) zero."""
    differences = np.round(differences, TIE_DECIMALS)
    if not len(differences) or not differences.any():
        return 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy's note that ties force the normal approximation
        return float(stats.wilcoxon(differences, zero_method="zsplit", alternative=alternative).pvalue)


@dataclass(frozen=True)
class Comparison:
    """One comparison inside a claim and what the data say about it.

    Attributes
    ----------
    label : str
        What is compared, e.g. "CCASL − CC, complex data".
    effect, low, high : float
        The effect in the claim's direction and its 95 % interval; on a log scale when ``ratio``.
    n : int
        How many pairs (splits or datasets) it is over; ``unit`` names them.
    test : str
        :data:`WILCOXON` or :data:`NEMENYI`.
    p_claimed, p_opposite : float
        The p-values for the claimed and for the opposite side, already corrected for the claim's
        other comparisons (Holm for Wilcoxon, Nemenyi's own for ranks).
    claimed : tuple or None
        The effect the claim states, as a range (low, high) on the scale of ``effect`` (a point
        when both are equal); the comparison fails when its interval lies wholly outside it.
    reading : str
        How the claim's wording is read as a number ("" when it gives none).
    ratio : bool
        ``effect`` is a log ratio: shown as a factor.
    """

    label: str
    effect: float
    low: float
    high: float
    n: int
    unit: str
    test: str
    p_claimed: float
    p_opposite: float
    claimed: tuple[float, float] | None = None
    reading: str = ""
    ratio: bool = False

    @property
    def verdict(self) -> str:
        return rule_verdict(self)

    def size_excluded(self) -> bool:
        """Whether the interval lies wholly outside the effect the claim states."""
        if self.claimed is None or math.isnan(self.low):
            return False
        return bool(self.high < self.claimed[0] or self.low > self.claimed[1])

    def _shown(self, value: float) -> str:
        return f"{math.exp(value):.2f}x" if self.ratio else f"{value:+.3f}"

    def describe(self) -> str:
        """The deciding statistic in one line: effect [interval], test, p, n."""
        interval = "" if math.isnan(self.low) else f" [{self._shown(self.low)}, {self._shown(self.high)}]"
        p_value = self.p_claimed if self.p_claimed <= self.p_opposite else self.p_opposite
        side = "claimed side" if self.p_claimed <= self.p_opposite else "opposite side"
        size = ""
        if self.claimed is not None:
            low, high = self.claimed
            size = (
                f"; claimed {self._shown(low)}"
                if low == high
                else f"; claimed {self._shown(low)} to {self._shown(high)}"
            )
        reading = f" ({self.reading})" if self.reading else ""
        return (
            f"{self.label}: {self._shown(self.effect)}{interval}{size}, {self.test} p = {format_p(p_value)} "
            f"({side}, n = {self.n} {self.unit}){reading}"
        )


def format_p(p: float) -> str:
    """A p-value with two significant digits, in scientific notation below 0.001."""
    if math.isnan(p):
        return "-"
    return f"{p:.2g}" if p >= 1e-3 else f"{p:.1e}"


def rule_verdict(comparison: Comparison, alpha: float = ALPHA) -> str:
    """The three-way verdict of one comparison (see the module docstring); the only place a verdict is named."""
    if comparison.p_opposite <= alpha or comparison.size_excluded():
        return FAILS
    if comparison.p_claimed <= alpha:
        return HOLDS
    return INCONCLUSIVE


def combine(verdicts: Iterable[str]) -> str:
    """A claim's verdict from its comparisons': holds if all hold, does not hold if any does not."""
    verdicts = list(verdicts)
    if any(verdict == FAILS for verdict in verdicts):
        return FAILS
    return HOLDS if verdicts and all(verdict == HOLDS for verdict in verdicts) else INCONCLUSIVE


def deciding(comparisons: Iterable[Comparison]) -> Comparison:
    """The comparison that decides a claim: the clearest failure, else the weakest of those holding or not."""
    comparisons = list(comparisons)
    failing = [c for c in comparisons if c.verdict == FAILS]
    if failing:
        return min(failing, key=lambda c: (not c.size_excluded(), c.p_opposite))
    open_ones = [c for c in comparisons if c.verdict == INCONCLUSIVE] or comparisons
    return max(open_ones, key=lambda c: c.p_claimed)


def paired(label: str, differences: Values, unit: str, *, claimed: tuple[float, float] | None = None, null: float = 0.0,
           reading: str = "", ratio: bool = False) -> Comparison:
    """A claim that ``differences`` (claimed direction positive) lie above ``null``: Wilcoxon signed rank, two-sided.

    The two-sided p goes to the side the differences lie on (by their mean and by Wilcoxon's rank
    sums, which must agree); the other side gets 1. Holm's correction comes later (:func:`holm_family`).
    ``claimed`` is the effect the claim states, as a (low, high) range (see :class:`Comparison`).
    """
    values = np.asarray(differences, dtype=float)
    values = values[~np.isnan(values)]
    effect, low, high = interval_of(values)
    greater, less = _one_sided(values - null, "greater"), _one_sided(values - null, "less")
    two_sided = min(1.0, 2 * min(greater, less))
    above = effect > null and greater < less
    below = effect < null and less < greater
    return Comparison(
        label, effect, low, high, len(values), unit, WILCOXON, two_sided if above else 1.0, two_sided if below else 1.0,
        claimed, reading, ratio,
    )


def within(
    label: str, values: Values, bounds: tuple[float, float], unit: str, *, reading: str = "", ratio: bool = False,
) -> Comparison:
    """A claim that ``values`` lie within ``bounds``: two one-sided Wilcoxon tests (TOST) for it, their mirror
    against it.

    Holds when the values are significantly above the lower bound and below the upper one; does not
    hold when they are significantly outside (below the lower or above the upper bound, two-sided),
    or when their interval lies wholly outside the bounds.
    """
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    effect, low, high = interval_of(values)
    lower, upper = bounds
    inside = max(_one_sided(values - lower, "greater"), _one_sided(values - upper, "less"))
    outside = min(1.0, 2 * min(_one_sided(values - lower, "less"), _one_sided(values - upper, "greater")))
    return Comparison(
        label, effect, low, high, len(values), unit, WILCOXON, inside, outside, (bounds[0], bounds[1]), reading, ratio,
    )


def holm_family(comparisons: Sequence[Comparison]) -> list[Comparison]:
    """The comparisons with their p-values Holm-corrected over the family (each side separately)."""
    comparisons = list(comparisons)
    claimed = holm([c.p_claimed for c in comparisons])
    opposite = holm([c.p_opposite for c in comparisons])
    return [
        dataclasses.replace(c, p_claimed=float(a), p_opposite=float(b))
        for c, a, b in zip(comparisons, claimed, opposite)
    ]


def holm(p_values: ArrayLike) -> np.ndarray:
    """Holm's step-down adjusted p-values, in the input order.

    The i-th smallest of m p-values is multiplied by m - i + 1 (i from 1), then each adjusted
    value is raised to the largest one before it, so that rejections are monotone; capped at 1.
    NaN p-values (no test) stay NaN and do not count in m.
    """
    p_values = np.asarray(p_values, dtype=float)
    adjusted = np.full_like(p_values, np.nan)
    tested = np.flatnonzero(~np.isnan(p_values))
    order = tested[np.argsort(p_values[tested], kind="stable")]
    m = len(order)
    steps = p_values[order] * (m - np.arange(m))
    adjusted[order] = np.minimum(np.maximum.accumulate(steps), 1.0)
    return adjusted


def nemenyi_p(rank_gap: float, k: int, n: int) -> float:
    """Nemenyi's p for two of k methods whose average ranks over n datasets differ by ``rank_gap``."""
    z = abs(rank_gap) / math.sqrt(k * (k + 1) / (6 * n))
    return float(stats.studentized_range.sf(z * math.sqrt(2), k, np.inf))


def nemenyi_q(k: int, alpha: float = ALPHA) -> float:
    """Nemenyi's critical value for k methods: the studentized range quantile (infinite df) / sqrt 2."""
    if k < 2:
        raise ValueError(f"the Nemenyi test needs at least 2 methods, not {k}")
    return float(stats.studentized_range.ppf(1 - alpha, k, np.inf) / math.sqrt(2))


def critical_difference(k: int, n: int, alpha: float = ALPHA) -> float:
    """Nemenyi's critical difference of average ranks for k methods on n datasets."""
    return nemenyi_q(k, alpha) * math.sqrt(k * (k + 1) / (6 * n))


def rank_comparison(better: str, worse: str, avg_ranks: Mapping[str, float], n: int, friedman_p: float) -> Comparison:
    """The claim that ``better`` ranks above ``worse``: the gap in average rank, ± the CD, Nemenyi's p.

    The interval is the gap ± Nemenyi's critical difference (simultaneous over all pairs, so no
    further correction). The post-hoc test only speaks when the Friedman test rejects: each p is
    at least the Friedman p.
    """
    k = len(avg_ranks)
    gap = float(avg_ranks[worse] - avg_ranks[better])
    cd = critical_difference(k, n)
    p_value = max(nemenyi_p(gap, k, n), friedman_p)
    return Comparison(
        f"{better} above {worse}", gap, gap - cd, gap + cd, n, "datasets", NEMENYI,
        p_value if gap > 0 else 1.0, p_value if gap < 0 else 1.0, reading=f"average ranks, CD {cd:.2f}",
    )
