"""The Friedman test over datasets of methods' ranks: its statistics, and the p-value a claim and a
rank section print (exact where the design is small enough to count every order).

The ranks are an N datasets x k methods matrix of within-row ranks, ranked once by the tables'
rule (:func:`~mlhidden.stats.ranks.rank_rows`) for the tables, the CD diagram and the claims alike.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

EXACT_FRIEDMAN_STEPS = 200_000
"""The most steps :func:`friedman_exact_p` takes (about half a second): 7 or 8 methods on 2 datasets, 6 on
3, 5 on 5, 4 on 14, 3 on 57."""


@dataclass(frozen=True)
class FriedmanTest:
    """The Friedman test on average ranks, with the Iman–Davenport F statistic.

    Attributes
    ----------
    chi2 : float
        Friedman's statistic, chi-square with k - 1 df under the null hypothesis (no tie
        correction, as in Demšar 2006, which makes it slightly conservative when ranks tie).
    chi2_p_value : float
    f : float
        The Iman–Davenport statistic (N - 1) chi2 / (N (k - 1) - chi2); infinite when every
        dataset ranks the methods in the same order without ties.
    p_value : float
        Of ``f`` under the F distribution with ``df`` degrees of freedom: the test's verdict.
    df : tuple of int
        (k - 1, (k - 1)(N - 1)).
    """

    chi2: float
    chi2_p_value: float
    f: float
    p_value: float
    df: tuple[int, int]


def friedman_test(ranks: pd.DataFrame) -> FriedmanTest:
    """Friedman and Iman–Davenport tests on an N datasets x k methods matrix of within-row ranks.

    The ranks are used as given (not re-ranked), so their direction and tie handling are the
    table's. The rank-sum form 12 / (N k (k+1)) sum S_j^2 - 3 N (k+1) equals Demšar's
    12 N / (k (k+1)) [sum R_j^2 - k (k+1)^2 / 4] with S_j = N R_j, and is exact in floating point
    for half-integer ranks, so a perfect agreement gives exactly N (k - 1) and an infinite F_F.
    """
    ranks = np.asarray(ranks, dtype=float)
    n, k = ranks.shape
    if n < 2 or k < 2:
        raise ValueError(f"the Friedman test needs at least 2 datasets and 2 methods, not {n} and {k}")
    rank_sums = ranks.sum(axis=0)
    chi2 = 12 * np.sum(rank_sums**2) / (n * k * (k + 1)) - 3 * n * (k + 1)
    chi2 = max(float(chi2), 0.0)
    df = (k - 1, (k - 1) * (n - 1))
    denominator = n * (k - 1) - chi2
    if denominator <= 0:
        f, p_value = math.inf, 0.0
    else:
        f = (n - 1) * chi2 / denominator
        p_value = float(stats.f.sf(f, *df))
    return FriedmanTest(chi2=chi2, chi2_p_value=float(stats.chi2.sf(chi2, k - 1)), f=f, p_value=p_value, df=df)


def friedman_exact_p(ranks: np.ndarray, max_steps: int = EXACT_FRIEDMAN_STEPS) -> float | None:
    """The Friedman test's exact p-value, or None where finding it takes more than ``max_steps`` steps.

    Under the null hypothesis each dataset's ranks fall in any order with equal chance (its ties
    kept); the p is the chance of rank sums at least as spread (sum of squares) as those observed.
    For few datasets the approximations are far off: two datasets ranking three methods alike give
    an infinite Iman–Davenport F (p 0) and a chi-square p of 0.135, where the exact p is 1/6. The
    distribution of the rank sums is built one dataset at a time, in integers (ranks doubled), over
    the sorted partial sums: every order being equally likely, which method holds which sum does not
    change the distribution of what follows. A step is one partial sum with one order of a row.
    """
    doubled = np.rint(2 * np.asarray(ranks, dtype=float)).astype(int)
    n, k = doubled.shape
    if math.factorial(k) > max_steps:
        return None
    observed = int(np.sum(doubled.sum(axis=0) ** 2))
    sums: Counter[tuple[int, ...]] = Counter({(0,) * k: 1})
    steps = 0
    for row in doubled.tolist():
        orders = Counter(itertools.permutations(row))
        steps += len(sums) * len(orders)
        if steps > max_steps:
            return None
        following: Counter[tuple[int, ...]] = Counter()
        for partial, count in sums.items():
            for order, ways in orders.items():
                following[tuple(sorted(map(operator.add, partial, order)))] += count * ways
        sums = following
    extreme = sum(count for partial, count in sums.items() if sum(s * s for s in partial) >= observed)
    return float(extreme / math.factorial(k) ** n)


def friedman_p(ranks: np.ndarray) -> tuple[float, str]:
    """The Friedman test's p-value for a claim, and which it is: ``exact`` where
    :func:`friedman_exact_p` is feasible, else Iman–Davenport's ``F``, or the ``chi-square`` where F is
    infinite (every dataset ranks the methods alike), which never reads 0."""
    exact = friedman_exact_p(ranks)
    if exact is not None:
        return exact, "exact"
    test = friedman_test(ranks)
    return (test.chi2_p_value, "chi-square") if math.isinf(test.f) else (test.p_value, "F")
