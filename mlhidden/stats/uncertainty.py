"""Intervals, comparisons and the one rule that turns them into a verdict.

Every number that decides something carries its spread. A table cell's spread is a 95 % t-interval
over its splits, mean ± t(n-1) sd / sqrt(n): deterministic (no resampling seed, so a report
rebuilds byte for byte). A claim's comparisons use the test its unit of replication calls for
(:mod:`mlhidden.stats.replication`): random splits of one dataset overlap, so their interval and
p-values carry the Nadeau-Bengio correction, whichever way they point.

A claim is decided by :class:`Comparison` s: each is what the claim says against the evidence,
with an effect, its interval and the p-values of a test. :func:`rule_verdict` is the only
function that names a verdict:

- "no practical difference": the claim gives a smallest effect of interest and the interval's
  two one-sided tests place the effect inside it (TOST): a practical tie, never a refutation;
- "does not hold": the opposite side is significant, or the interval excludes the size the claim
  states;
- "holds": the effect lies on the claimed side and the test is significant at :data:`ALPHA`
  (after Holm's correction where there are several);
- "inconclusive": anything else.

A comparison made of parts (one per dataset, or one per method against a control) combines them
(:func:`combine`): holds when every one holds, does not hold when any does not, no practical
difference when every one is one. A claim is decided on its core sub-claims by :func:`claim_verdict`,
whose refutation is family-wise controlled (:func:`adjusted`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

ALPHA = 0.05
"""The significance level of every verdict (and of the intervals: 1 - ALPHA)."""
CONFIDENCE = 1 - ALPHA
HOLDS, FAILS, INCONCLUSIVE, NOT_EVALUATED = "holds", "does not hold", "inconclusive", "not evaluated"
NO_DIFFERENCE = "no practical difference"
VERDICTS = (HOLDS, FAILS, NO_DIFFERENCE, INCONCLUSIVE)
NOT_TESTABLE = "not testable under this setting"
"""A sub-claim whose run fails a positive control that covers it; a claim whose core sub-claims all are (or are
not evaluated). Never a verdict on the claim's words: the setting cannot show what they are about."""
HOLM, BONFERRONI, NO_CORRECTION = "holm", "bonferroni", "none"
MULTIPLICITY = (HOLM, BONFERRONI, NO_CORRECTION)
"""How a claim's refutation is controlled across its core sub-claims (:func:`adjusted`)."""
RULE = (
    f"A sub-claim holds when its effect goes the claimed way significantly at α = {ALPHA}; it does not hold when "
    f"the opposite way is significant or its {CONFIDENCE:.0%} interval excludes the size the claim states; it is "
    "a 'no practical difference' when the claim gives a smallest effect of interest and two one-sided tests place "
    "the effect inside it (a practical tie, not a refutation); otherwise it is inconclusive. The test follows the "
    "unit of replication: random splits of one dataset, the corrected resampled t-test (Nadeau & Bengio); "
    "datasets, Wilcoxon signed rank over per-dataset means; datasets x splits, one corrected test per dataset, "
    "Holm-corrected, with the interval clustered by dataset; average ranks, Friedman then each method against the "
    "control (Holm, Demšar 2006). A claim is decided on its core sub-claims: it holds when every one holds, and does "
    "not hold when a refutation p adjusted across them (Holm unless the claims file says otherwise) is at most "
    f"{ALPHA}; a sub-claim whose setting fails a positive control covering it is not testable under this setting. "
    "The deciding statistic is the comparison that decided: effect [interval], the claim's size and how its "
    "wording is read, test, p, n."
)
"""The rule in words, for the report."""
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
        How many units (splits, datasets) it is over; ``unit`` names them.
    test : str
        The test's name (:mod:`mlhidden.stats.replication`).
    p_claimed, p_opposite : float
        The p-values for the claimed and for the opposite side, already corrected for the other
        comparisons of their family.
    claimed : tuple or None
        The effect the claim states, as a range (low, high) on the scale of ``effect`` (either end
        may be infinite); the comparison fails when its interval lies wholly outside it.
    reading : str
        How the claim's wording is read as a number ("" when it gives none).
    ratio : bool
        ``effect`` is a log ratio: shown as a factor.
    p_equivalent : float
        The two one-sided tests' p that the effect lies within the smallest effect of interest
        (NaN when the claim gives none).
    parts : tuple of Comparison
        The comparisons this one is made of (one per dataset, or per method against a control);
        when there are any, the verdict is theirs combined and effect [low, high] summarises them.
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
    p_equivalent: float = math.nan
    parts: tuple[Comparison, ...] = ()

    @property
    def verdict(self) -> str:
        return rule_verdict(self)

    def size_excluded(self) -> bool:
        """Whether the interval lies wholly outside the effect the claim states."""
        if self.claimed is None or math.isnan(self.low):
            return False
        return bool(self.high < self.claimed[0] or self.low > self.claimed[1])

    def shown(self, value: float) -> str:
        if math.isinf(value):
            return "∞" if value > 0 else "−∞"
        return f"{math.exp(value):.2f}x" if self.ratio else f"{value:+.3f}"

    @property
    def decider(self) -> Comparison:
        """The comparison whose test decides this one: the deciding part (:func:`deciding`), or itself."""
        return deciding(self.parts) if self.parts else self

    def estimate(self) -> str:
        """The effect and the interval of the test that decides it: "+0.175 [-0.159, +0.509]".

        A comparison of parts shows its summary effect, then the deciding part's own effect and interval:
        a summary interval (clustered by dataset, say) is not what any of its tests decided on.
        """
        if self.parts:
            return f"{self.shown(self.effect)}; {self.decider.label} {self.decider.estimate()}"
        interval = "" if math.isnan(self.low) else f" [{self.shown(self.low)}, {self.shown(self.high)}]"
        return self.shown(self.effect) + interval

    def describe(self) -> str:
        """The deciding statistic in one line: effect [interval], test, p, n, each of the test that decided.

        With parts, the interval, p and n are the deciding part's, never one part's p beside another's effect.
        """
        decider = self.decider
        verdict = decider.verdict
        p_value, side = (
            (decider.p_claimed, "claimed side") if verdict == HOLDS
            else (decider.p_equivalent, "equivalence") if verdict == NO_DIFFERENCE
            else (decider.p_opposite, "opposite side") if verdict == FAILS
            else (min(decider.p_claimed, decider.p_opposite), "weakest part" if self.parts else
                  "claimed side" if decider.p_claimed <= decider.p_opposite else "opposite side")
        )
        size = ""
        if self.claimed is not None:
            low, high = self.claimed
            size = (
                f"; claimed above {self.shown(low)}" if math.isinf(high)
                else f"; claimed below {self.shown(high)}" if math.isinf(low)
                else f"; claimed {self.shown(low)} to {self.shown(high)}"
            )
        reading = f" ({self.reading})" if self.reading else ""
        parts = ""
        if self.parts:
            parts = "; " + ", ".join(f"{part.label} {part.shown(part.effect)}" for part in self.parts)
        return (
            f"{self.label}: {self.estimate()}{size}, {self.test} p = {format_p(p_value)} "
            f"({side}, n = {decider.n} {decider.unit}){reading}{parts}"
        )


def format_p(p: float) -> str:
    """A p-value with two significant digits, in scientific notation below 0.001."""
    if math.isnan(p):
        return "-"
    return f"{p:.2g}" if p >= 1e-3 else f"{p:.1e}"


def rule_verdict(comparison: Comparison, alpha: float = ALPHA) -> str:
    """The verdict of one comparison (see the module docstring); the only place a verdict is named."""
    if comparison.parts:
        return combine(rule_verdict(part, alpha) for part in comparison.parts)
    if comparison.size_excluded():
        return FAILS
    if comparison.p_equivalent <= alpha:
        return NO_DIFFERENCE
    if comparison.p_opposite <= alpha:
        return FAILS
    if comparison.p_claimed <= alpha:
        return HOLDS
    return INCONCLUSIVE


def combine(verdicts: Iterable[str]) -> str:
    """Several verdicts as one: does not hold if any does not, holds (or no practical difference) if all do."""
    verdicts = list(verdicts)
    if any(verdict == FAILS for verdict in verdicts):
        return FAILS
    for verdict in (HOLDS, NO_DIFFERENCE):
        if verdicts and all(v == verdict for v in verdicts):
            return verdict
    return INCONCLUSIVE


def deciding(comparisons: Iterable[Comparison]) -> Comparison:
    """The comparison that decides: the clearest failure, else the weakest of those holding or not."""
    comparisons = list(comparisons)
    failing = [c for c in comparisons if c.verdict == FAILS]
    if failing:
        return min(failing, key=lambda c: (not c.size_excluded(), c.p_opposite))
    open_ones = [c for c in comparisons if c.verdict in (INCONCLUSIVE, NO_DIFFERENCE)] or comparisons
    return max(open_ones, key=lambda c: (c.p_claimed, -c.p_opposite))  # a tie: the one nearest refutation


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


def adjusted(p_values: ArrayLike, method: str) -> np.ndarray:
    """``p_values`` adjusted for their family by ``method`` of :data:`MULTIPLICITY`; NaNs (no test) stay NaN
    and do not count in the family's size."""
    p_values = np.asarray(p_values, dtype=float)
    if method == HOLM:
        return holm(p_values)
    if method == BONFERRONI:
        return np.minimum(p_values * int((~np.isnan(p_values)).sum()), 1.0)
    if method == NO_CORRECTION:
        return p_values
    raise ValueError(f"unknown multiplicity method {method!r}: one of {', '.join(MULTIPLICITY)}")


def claim_verdict(verdicts: Sequence[str], refutation_p: ArrayLike, alpha: float = ALPHA) -> str:
    """A claim's verdict from its core sub-claims' ``verdicts`` and their refutation p-values (each sub-claim's
    ``p_opposite``) already adjusted across them (:func:`adjusted`; NaN where not evaluated).

    Confirmation is an intersection-union test (every evaluated core sub-claim holds: no correction
    needed); refutation rejects a union of hypotheses, so it needs a family-wise controlled p at most
    ``alpha``. A sub-claim alone at p = 0.034 among three refutes nothing under Holm.
    """
    refutation = np.asarray(refutation_p, dtype=float)
    decided = [v for v in verdicts if v not in (NOT_EVALUATED, NOT_TESTABLE)]
    if not decided:
        return NOT_TESTABLE if NOT_TESTABLE in verdicts else NOT_EVALUATED
    if all(v == HOLDS for v in decided):
        return HOLDS
    if bool((refutation[~np.isnan(refutation)] <= alpha).any()):
        return FAILS
    if all(v == NO_DIFFERENCE for v in decided):
        return NO_DIFFERENCE
    return INCONCLUSIVE


def nemenyi_q(k: int, alpha: float = ALPHA) -> float:
    """Nemenyi's critical value for k methods: the studentized range quantile (infinite df) / sqrt 2."""
    if k < 2:
        raise ValueError(f"the Nemenyi test needs at least 2 methods, not {k}")
    return float(stats.studentized_range.ppf(1 - alpha, k, np.inf) / math.sqrt(2))


def critical_difference(k: int, n: int, alpha: float = ALPHA) -> float:
    """Nemenyi's critical difference of average ranks for k methods on n datasets."""
    return nemenyi_q(k, alpha) * math.sqrt(k * (k + 1) / (6 * n))
