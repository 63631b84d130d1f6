"""A sub-claim's and a claim's verdict, with what decided it, what it was decided under and, where asked for,
the same decided on the paper's own printed numbers.

:class:`~mlhidden.claims.check.Checker` makes them; the text table, CSV and JSON
(:mod:`mlhidden.claims.result_files`), REPORT.md and the page read them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mlhidden.claims.spec import CORE, PRIMARY, ClaimSpec, SubClaim
from mlhidden.stats.replication import least_p
from mlhidden.stats.uncertainty import (
    ALPHA,
    FAILS,
    HOLDS,
    NO_DIFFERENCE,
    NOT_EVALUATED,
    NOT_TESTABLE,
    Comparison,
    deciding,
    format_p,
)

CANNOT_CONFIRM = "cannot confirm on the paper's own numbers"
"""The flag beside a verdict whose reading, decided on the paper's own printed numbers, does not hold there."""
CALIBRATION_BASIS = (
    "the paper's printed means with our per-split spread: our split values moved so that each dataset, method and "
    "metric's mean is the paper's (times scaled, not shifted)"
)
"""What a calibration checker's numbers are (:data:`Calibrate`), as the outputs say it."""


class OnThePapersNumbers:
    """What a result says beside its verdict on the paper's own printed numbers (its ``calibration``)."""

    calibration: SubClaimResult | ClaimResult | None

    @property
    def cannot_confirm(self) -> bool:
        """Whether this reading, decided on the paper's own numbers, does not hold there: every claim of a
        claims file is one its paper says holds."""
        return self.calibration is not None and self.calibration.verdict not in (HOLDS, NOT_EVALUATED)

    @property
    def calibrated(self) -> str:
        """The verdict on the paper's own numbers in a few words, flagged where it cannot confirm ("" when none)."""
        if self.calibration is None or self.calibration.verdict == NOT_EVALUATED:
            return ""
        cause = why_unconfirmed(self.calibration) if isinstance(self.calibration, SubClaimResult) else ""
        flag = f" ({CANNOT_CONFIRM}{': ' + cause if cause else ''})" if self.cannot_confirm else ""
        return f"on the paper's own numbers: {self.calibration.verdict}{flag}"


def why_unconfirmed(on_paper: SubClaimResult) -> str:
    """Why a sub-claim's reading does not hold on the paper's own numbers, from the test that decided there:
    too few units for its test to reach :data:`ALPHA` at all, an effect inside the smallest effect of interest, a
    refutation, or an interval that reaches past the claimed boundary ("" without a test)."""
    comparison = on_paper.comparison
    if comparison is None:
        return ""
    decider = comparison.decider
    floor = least_p(comparison)
    if on_paper.verdict == FAILS:
        return f"they refute it: {decider.label} {decider.estimate()}"
    if on_paper.verdict == NO_DIFFERENCE:
        return f"{decider.label} {decider.estimate()} is within the smallest effect of interest"
    if floor > ALPHA:
        holm = f" after Holm over {len(comparison.parts)}" if len(comparison.parts) > 1 else ""
        return (f"{decider.n} {decider.unit} cannot reach p < {ALPHA:g} by {decider.test}{holm} "
                f"(at best p = {format_p(floor)})")
    low, high = decider.claimed or (0.0, math.inf)
    crossed = low if decider.low < low else high
    return f"the interval of {decider.label}, {decider.estimate()}, reaches past {decider.shown(crossed)}"


@dataclass(frozen=True)
class SubClaimResult(OnThePapersNumbers):
    """A sub-claim's (or a positive control's) verdict and the comparison that gave it (None, with ``why``, when
    not evaluated or not testable); ``controls``: the ids of the positive controls that cover it."""

    spec: SubClaim
    verdict: str
    comparison: Comparison | None = None
    why: str = ""
    controls: tuple[str, ...] = ()
    calibration: SubClaimResult | None = None
    """The same reading decided on the paper's own printed numbers (None where no calibration was asked for)."""

    @property
    def deciding(self) -> str:
        """The deciding statistic in one line, or why there is none."""
        return self.comparison.describe() if self.comparison is not None else self.why

    @property
    def numbers(self) -> str:
        """Our numbers behind the verdict: the effect, its interval and n ("" when not evaluated)."""
        if self.comparison is None:
            return ""
        return f"{self.comparison.estimate()}, n = {self.comparison.n} {self.comparison.unit}"


@dataclass(frozen=True)
class ClaimResult(OnThePapersNumbers):
    """A claim's verdict, decided on its core sub-claims (:func:`~mlhidden.stats.uncertainty.claim_verdict`), and
    its notes.

    ``refutation`` holds each sub-claim's refutation p adjusted by ``multiplicity`` across the claim's evaluated
    core sub-claims, in the order of ``subclaims`` (NaN for a supporting one or one without a test);
    ``controls`` are the file's positive controls, decided.
    """

    spec: ClaimSpec
    verdict: str
    subclaims: tuple[SubClaimResult, ...]
    notes: tuple[str, ...] = ()
    multiplicity: str = ""
    refutation: tuple[float, ...] = ()
    controls: tuple[SubClaimResult, ...] = ()
    reading: str = PRIMARY
    calibration: ClaimResult | None = None
    """The claim under the same reading decided on the paper's own printed numbers (None: not asked for)."""

    @property
    def key(self) -> str:
        return self.spec.id

    @property
    def statement(self) -> str:
        return self.spec.about

    @property
    def comparisons(self) -> tuple[Comparison, ...]:
        """The core sub-claims' comparisons: the ones that decide the claim."""
        return tuple(s.comparison for s in self.subclaims if s.comparison is not None and s.spec.role == CORE)

    @property
    def refutation_p(self) -> float:
        """The smallest adjusted refutation p of its core sub-claims (NaN when none was tested)."""
        tested = [p for p in self.refutation if not np.isnan(p)]
        return min(tested) if tested else float("nan")

    def refutation_line(self) -> str:
        """The family-wise refutation in words: "refutation p = 0.1 (holm over 3 core sub-claims)" ("" without one)."""
        tested = sum(not np.isnan(p) for p in self.refutation)
        if not tested:
            return ""
        line = (f"refutation p = {format_p(self.refutation_p)} ({self.multiplicity} over {tested} core "
                f"sub-claim{'' if tested == 1 else 's'})")
        unrefuting = [sub.spec.id for sub, p in zip(self.subclaims, self.refutation)
                      if sub.spec.role == CORE and sub.verdict == FAILS and not p <= ALPHA]
        if self.verdict != FAILS and unrefuting:
            line += (f"; {', '.join(unrefuting)} {'does' if len(unrefuting) == 1 else 'do'} not hold by the "
                     "interval or its own test alone, which the family-wise test does not carry to the claim")
        return line

    @property
    def deciding(self) -> str:
        """The deciding core sub-claim's id and statistic ("" when none was evaluated); where a core sub-claim
        does not hold, then the claim's adjusted refutation p, which decides whether it refutes the claim; where
        none was tested because a positive control failed, the first such sub-claim and the control."""
        if not self.comparisons:
            untestable = next((s for s in self.subclaims if s.spec.role == CORE and s.verdict == NOT_TESTABLE), None)
            return f"{untestable.spec.id}: {untestable.why}" if untestable is not None else ""
        if self.verdict == FAILS and not np.isnan(self.refutation_p):
            subclaim = self.subclaims[int(np.nanargmin(self.refutation))]
        else:
            decider = deciding(self.comparisons)
            subclaim = next(s for s in self.subclaims if s.comparison is decider)
        text = f"{subclaim.spec.id}: {subclaim.deciding}"
        if any(s.verdict == FAILS for s in self.subclaims if s.spec.role == CORE):
            text += f"; {self.refutation_line()}"
        return text

    @property
    def evidence(self) -> str:
        """The sub-claims' verdicts in one line, then the notes."""
        verdicts = "; ".join(f"{s.spec.id} {s.verdict}" for s in self.subclaims)
        return " ".join([verdicts + ".", *self.notes]) if self.notes else verdicts
