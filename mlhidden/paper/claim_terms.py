"""What a decided claim is, and the paper's words read as numbers, for :mod:`mlhidden.paper.claims`.

A :class:`Claim` holds its verdict, our numbers and the comparisons that decided it; :func:`decided`
makes one from paired comparisons (Holm-corrected over the claim's Wilcoxon tests). The readings
of the paper's wording ("about twice", "an order of magnitude", the printed precision) are fixed
here, in advance of any result.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlhidden.report.uncertainty import NOT_EVALUATED, WILCOXON, combine, deciding, holm_family

CCASL_METHODS = ("CCASL", "CCASL+BR", "CCASL+AML")
LARGE_DATASET_SAMPLES = 5000
# How the claims' wording is read as numbers (the significance level is uncertainty.ALPHA).
ABOUT_TWICE = (1.5, 3.0)
"""'About twice' read as a time ratio from 1.5x to 3x."""
ORDER_OF_MAGNITUDE = 10.0
"""'An order of magnitude slower' read as a time ratio of at least 10x."""
PERFECT = 0.95
"""'Reaches exact match 1.0' read as a mean exact match above this (and an interval that holds 1.0)."""
DEVIATION = 0.05
"""Our value and the paper's differ notably when they are further apart than this."""
PRINTED = 0.005
"""The paper prints two decimals: a value it prints stands for anything within this of it."""


@dataclass(frozen=True)
class Claim:
    """One claim of the paper, its verdict, our numbers and the comparisons that decided it."""

    key: str
    statement: str
    verdict: str
    evidence: str
    comparisons: tuple = ()

    @property
    def deciding(self) -> str:
        """The deciding comparison's statistic in one line ("" for a claim not evaluated)."""
        return deciding(self.comparisons).describe() if self.comparisons else ""


def not_evaluated(key, statement, why) -> Claim:
    return Claim(key, statement, NOT_EVALUATED, why)


def decided(key: str, statement: str, comparisons, evidence: str) -> Claim:
    """A claim decided by ``comparisons`` (Holm-corrected here when they are Wilcoxon tests)."""
    comparisons = list(comparisons)
    tested = [i for i, c in enumerate(comparisons) if c.test == WILCOXON]
    for i, corrected in zip(tested, holm_family([comparisons[i] for i in tested])):
        comparisons[i] = corrected
    return Claim(key, statement, combine(c.verdict for c in comparisons), evidence, tuple(comparisons))


def missing_run(name: str) -> str:
    """Why something that needs run ``name`` is not evaluated."""
    return f"no results for run '{name}'"
