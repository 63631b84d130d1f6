"""Comparisons with the right unit of replication: the corrected resampled t-test over the splits of one
dataset, the dataset as the unit across datasets, per-dataset tests pooled with Holm, equivalence."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from mlhidden.stats.replication import (
    DATASETS,
    POOLED,
    SPLITS,
    Target,
    against_control,
    against_control_per_dataset,
    by_unit,
    compare,
    least_p,
    signed_rank_p,
    top_share,
)
from mlhidden.stats.uncertainty import FAILS, HOLDS, INCONCLUSIVE, NO_DIFFERENCE, format_p


def splits_of(values: dict) -> pd.Series:
    """``{dataset: [value per split]}`` as a Series indexed by (dataset, split)."""
    return pd.Series(
        [v for values in values.values() for v in values],
        index=pd.MultiIndex.from_tuples([(d, s) for d, values in values.items() for s in range(len(values))]),
    )


def test_the_corrected_resampled_t_test_on_a_hand_computed_case():
    # k = 5 splits, mean 3, variance 2.5, n_test / n_train = 0.4 / 0.6: se² = 2.5 (1/5 + 2/3) = 13/6,
    # t = 3 / sqrt(13/6) = 2.0381 on 4 degrees of freedom: two-sided p 0.11118, and the interval
    # 3 ± t(0.975, 4) sqrt(13/6) = 3 ± 2.77645 x 1.47196 = [-1.08682, 7.08682].
    comparison = compare("x", [1, 2, 3, 4, 5], SPLITS, Target(), test_train_ratio=0.4 / 0.6)
    assert comparison.effect == pytest.approx(3.0)
    assert (comparison.low, comparison.high) == pytest.approx((-1.08682, 7.08682), abs=1e-5)
    assert comparison.p_claimed == pytest.approx(0.11118, abs=1e-5)
    assert comparison.p_opposite == 1.0
    assert comparison.verdict == INCONCLUSIVE  # a plain t-test over the 5 values would give p = 0.015


def test_the_correction_applies_to_does_not_hold_as_much_as_to_holds():
    # Ten overlapping 60/40 splits all a little below zero: the plain t-test calls that significant,
    # the corrected one does not, so the opposite side cannot refute the claim.
    values = -0.01 + 0.01 * np.sin(np.arange(10))
    assert stats.ttest_1samp(values, 0.0).pvalue < 0.01
    assert compare("x", values, SPLITS, Target(), test_train_ratio=0.4 / 0.6).verdict == INCONCLUSIVE
    assert compare("x", -values, SPLITS, Target(), test_train_ratio=0.4 / 0.6).verdict == INCONCLUSIVE


def test_duplicating_one_datasets_splits_ten_times_does_not_make_a_pooled_claim_more_significant():
    values = {"A": list(0.03 + 0.01 * np.cos(np.arange(10))), "B": list(0.02 + 0.015 * np.sin(np.arange(10)))}
    once = by_unit("x", splits_of(values), POOLED, Target(), 0.4 / 0.6)
    repeated = splits_of(values)
    repeated = pd.concat([repeated] + [repeated.loc[["A"]]] * 9)
    ten_times = by_unit("x", repeated, POOLED, Target(), 0.4 / 0.6)
    assert (ten_times.p_claimed, ten_times.low, ten_times.high) == (once.p_claimed, once.low, once.high)
    assert ten_times.n == once.n == 2
    assert [part.n for part in ten_times.parts] == [10, 10]


def test_a_pooled_claim_fails_when_one_dataset_is_clearly_outside_the_claimed_range():
    values = {"A": [2.0 + 0.01 * i for i in range(10)], "B": [15.0 + 0.1 * i for i in range(10)]}
    log_ratios = np.log(splits_of(values))
    about_twice = Target(math.log(1.5), math.log(3.0), stated=True, ratio=True)
    pooled = by_unit("x", log_ratios, POOLED, about_twice, 0.4 / 0.6)
    assert [part.verdict for part in pooled.parts] == [HOLDS, FAILS]
    assert pooled.verdict == FAILS
    assert "A 2.0" in pooled.describe() and "B 15." in pooled.describe()


def test_an_opposite_effect_inside_the_smallest_effect_of_interest_is_no_practical_difference():
    rng = np.random.default_rng(0)
    differences = -0.0007 + 0.0003 * rng.standard_normal(150)
    without = compare("CCASL − CC", differences, DATASETS, Target())
    assert without.verdict == FAILS  # what a claim with no smallest effect of interest says
    tie = compare("CCASL − CC", differences, DATASETS, Target(smallest_effect=0.01))
    assert tie.verdict == NO_DIFFERENCE
    assert "equivalence" in tie.describe()
    # A real opposite effect, beyond the smallest effect of interest, still refutes the claim.
    assert compare("x", differences - 0.05, DATASETS, Target(smallest_effect=0.01)).verdict == FAILS


def test_across_datasets_the_dataset_is_the_unit():
    per_split = splits_of({d: [0.01 * (i + 1)] * 10 for i, d in enumerate("ABCDEFGH")})
    comparison = by_unit("x", per_split, DATASETS, Target(), 0.4 / 0.6)
    assert comparison.n == 8 and comparison.test == "Wilcoxon signed rank"
    assert comparison.verdict == HOLDS  # 8 datasets all on the claimed side: Wilcoxon p = 2 / 256
    assert comparison.p_claimed == pytest.approx(2 / 256)


def test_x_is_best_is_friedman_then_each_method_against_the_control_with_holm():
    datasets = [f"d{i}" for i in range(12)]
    scores = pd.DataFrame({"best": 0.9, "mid": 0.5, "low": 0.1}, index=datasets)
    best = against_control("best first", scores, "best", ["mid", "low"])
    assert best.verdict == HOLDS and [part.label for part in best.parts] == ["best above mid", "best above low"]
    # Gap 1 rank over 12 datasets with k = 3: z = 1 / sqrt(3 x 4 / 72) = 2.449, p = 0.0143, the larger
    # of Holm's two p-values (x 1); the gap of 2 ranks has the smaller one (x 2).
    assert best.parts[0].p_claimed == pytest.approx(0.014306, abs=1e-5)
    assert best.parts[1].p_claimed == pytest.approx(2 * 2 * stats.norm.sf(2 / math.sqrt(1 / 6)))
    worst = against_control("low last", scores, "low", ["best", "mid"], better=False)
    assert worst.verdict == HOLDS
    assert against_control("mid first", scores, "mid", ["best", "low"]).verdict == FAILS


def test_per_dataset_is_a_wilcoxon_test_against_each_other_method_with_holm():
    """Benavoli, Corani & Mangili (2016): the control against each method over the datasets, not by mean ranks."""
    datasets = [f"d{i}" for i in range(10)]
    gains = np.arange(1, 11) / 100
    scores = pd.DataFrame({"best": 0.5 + gains, "mid": 0.5, "near": 0.5 + gains / 2}, index=datasets)
    best = against_control_per_dataset("best first", scores, "best", ["mid", "near"])
    assert [part.label for part in best.parts] == ["best above mid", "best above near"]
    assert all(part.test == "Wilcoxon signed rank" and part.n == 10 for part in best.parts)
    # All 10 datasets above either: exact two-sided p 2/1024 each, Holm x 2 then x 1 (raised to the first).
    assert [part.p_claimed for part in best.parts] == pytest.approx([4 / 1024, 4 / 1024])
    assert best.verdict == HOLDS and best.effect == pytest.approx(float(gains.mean()) / 2)
    assert "per dataset" in best.reading and "Holm" in best.reading
    scores.loc["d0", "near"] = 0.6  # 9 of 10 above, but the one below is the largest gap: W- = 10
    best = against_control_per_dataset("best first", scores, "best", ["mid", "near"])
    assert best.parts[1].p_claimed == pytest.approx(2 * 43 / 1024)  # 43 of the 1024 signs give W- <= 10
    assert best.verdict == INCONCLUSIVE and best.label == "best first"
    worst = against_control_per_dataset("mid last", scores, "mid", ["best"], better=False)
    assert worst.verdict == HOLDS and worst.effect == pytest.approx(float(gains.mean()))
    assert against_control_per_dataset("mid first", scores, "mid", ["best", "near"]).verdict == FAILS


def test_top_share_is_an_exact_binomial_test_of_the_share_of_datasets_the_control_tops():
    """'Almost invariably the top performer': on more than a share of the datasets the control scores at least as
    high as every other method (a tie for first is first, as the tables' mid-ranks place tied methods level)."""
    datasets = [f"d{i}" for i in range(10)]
    scores = pd.DataFrame({"best": 0.9, "mid": 0.5, "low": 0.1}, index=datasets)
    scores.loc["d0", "mid"] = 0.95
    scores.loc["d1", "mid"] = 0.9 + 1e-15  # a tie for first, within float noise
    best = top_share("best first", scores, "best", ["mid", "low"], share=0.5)
    assert (best.effect, best.n, best.unit, best.test) == (0.9, 10, "datasets", "exact binomial over datasets")
    assert best.p_claimed == pytest.approx(2 * 11 / 1024) and best.verdict == HOLDS  # 9 of 10: 2 P(X >= 9)
    interval = stats.binomtest(9, 10).proportion_ci(0.95)
    assert (best.low, best.high) == pytest.approx((interval.low, interval.high)) and best.claimed == (0.5, math.inf)
    assert "first on 9 of 10 datasets" in best.reading
    scores.loc["d2", "low"] = 0.99  # 8 of 10: 2 P(X >= 8) = 0.109
    assert top_share("best first", scores, "best", ["mid", "low"], share=0.5).p_claimed == pytest.approx(112 / 1024)
    assert top_share("best first", scores, "best", ["mid", "low"], share=0.5).verdict == INCONCLUSIVE
    assert top_share("best first", scores, "best", ["mid"], share=0.5).effect == pytest.approx(0.9)  # low left out
    worst = top_share("low last", scores, "low", ["best", "mid"], better=False, share=0.5)
    assert worst.effect == pytest.approx(0.9) and worst.verdict == HOLDS
    mid = top_share("mid first", scores, "mid", ["best", "low"], share=0.9)
    assert mid.effect == pytest.approx(0.2) and mid.verdict == FAILS


def test_the_least_p_a_test_can_reach_says_when_too_few_units_cannot_confirm_anything():
    """4 datasets: Wilcoxon's least two-sided p is 2/16; after Holm over 3 methods, 3 x 2/1024 for 10 datasets."""
    target = Target(smallest_effect=0.01)
    assert least_p(compare("four", [0.1, 0.2, 0.3, 0.4], DATASETS, target)) == pytest.approx(0.125)
    datasets = [f"d{i}" for i in range(10)]
    scores = pd.DataFrame({"a": 0.9, "b": 0.5, "c": 0.1, "d": 0.2}, index=datasets)
    assert least_p(against_control_per_dataset("a", scores, "a", ["b", "c", "d"])) == pytest.approx(6 / 1024)
    assert least_p(top_share("a", scores, "a", ["b"], share=0.8)) == pytest.approx(2 * 0.8 ** 10)
    assert least_p(compare("splits", [0.1, 0.2], SPLITS, target, test_train_ratio=0.5)) == 0.0


def test_a_ranks_statistic_prints_the_p_of_the_gap_it_shows():
    """Three methods rank above the control, one far: the gap shown is the weakest one's, and so is its p (not a
    p of 1 that belongs to another method's gap)."""
    rng = np.random.default_rng(3)
    datasets = [f"d{i}" for i in range(10)]
    scores = pd.DataFrame({"ctl": 0.5, "near": 0.52, "mid": 0.55, "far": 0.6, "low": 0.1}, index=datasets)
    scores += 0.06 * rng.standard_normal(scores.shape)
    best = against_control("ctl first", scores, "ctl", ["near", "mid", "far", "low"])
    weakest = min(best.parts, key=lambda part: part.effect)
    assert weakest.label == "ctl above far" and best.effect == weakest.effect
    assert best.verdict == INCONCLUSIVE and weakest.p_opposite < 1
    shown = best.describe()
    assert f"ctl above far {weakest.estimate()}" in shown
    assert f"p = {format_p(weakest.p_opposite)} (weakest part" in shown, shown


def test_a_pooled_statistic_prints_the_interval_of_the_dataset_that_decided():
    values = {"A": [2.0 + 0.01 * i for i in range(10)], "B": [15.0 + 0.1 * i for i in range(10)]}
    about_twice = Target(math.log(1.5), math.log(3.0), stated=True, ratio=True)
    pooled = by_unit("x", np.log(splits_of(values)), POOLED, about_twice, 0.4 / 0.6)
    failing = pooled.parts[1]
    assert pooled.verdict == FAILS and pooled.decider is failing
    shown = pooled.describe()
    assert f"; B {failing.estimate()}; claimed 1.50x to 3.00x" in shown
    assert f"p = {format_p(failing.p_opposite)} (opposite side, n = 10 splits)" in shown
    clustered = f"[{math.exp(pooled.low):.2f}x, {math.exp(pooled.high):.2f}x]"
    assert clustered not in shown and clustered not in pooled.estimate()


def signed_rank_cases(n: int, seed: int) -> list[np.ndarray]:
    """Differences of length ``n``: half-integers from a few values (ties and zeros), one tie, all zeros, all
    equal, and distinct values (no ties: scipy's exact table); never a single zero, which scipy refuses."""
    rng = np.random.default_rng(seed)
    one_tie = rng.permutation(np.arange(1, n + 1) * rng.choice([-1.0, 1.0], n))
    one_tie[0] = -one_tie[-1]
    cases = [rng.integers(-3, 4, n) / 2, rng.integers(-6, 7, n) / 4, one_tie, np.zeros(n), np.full(n, 0.25),
             rng.normal(size=n).round(12)]
    return [case for case in cases if n > 1 or case.any()]


def every_sign_flip_p(differences: np.ndarray, alternative: str) -> float:
    """The signed rank p by definition: the share of all 2^n sign flips whose rank sum (zeros split) is at least
    (``greater``) or at most (``less``) the observed one; two-sided, twice the smaller of the two, at most 1."""
    ranks = stats.rankdata(np.abs(differences))
    n = len(differences)
    flips = np.where((np.arange(2**n)[:, None] >> np.arange(n)) & 1, -1.0, 1.0) * differences
    sums = ((flips > 0) * ranks).sum(axis=1) + ((flips == 0) * ranks).sum(axis=1) / 2
    observed = sums[0]
    greater, less = np.mean(sums >= observed), np.mean(sums <= observed)
    if alternative == "two-sided":
        return float(min(1.0, 2 * min(greater, less)))
    return float(greater if alternative == "greater" else less)


@pytest.mark.parametrize("n", [*range(1, 7), *range(14, 26)])
def test_the_signed_rank_p_is_scipys_with_ties_and_zeros_where_scipy_is_quick(n):
    for differences in signed_rank_cases(n, seed=n):
        for alternative in ("greater", "less", "two-sided"):
            expected = stats.wilcoxon(differences, zero_method="zsplit", alternative=alternative).pvalue
            assert signed_rank_p(differences, alternative) == pytest.approx(expected, rel=1e-12), differences


@pytest.mark.parametrize("n", range(1, 14))
def test_the_signed_rank_p_counts_every_sign_flip_where_scipy_enumerates_them(n):
    for seed in range(2):
        for differences in signed_rank_cases(n, seed=100 * seed + n):
            for alternative in ("greater", "less", "two-sided"):
                expected = every_sign_flip_p(differences, alternative)
                assert signed_rank_p(differences, alternative) == pytest.approx(expected, rel=1e-12), differences


@pytest.mark.slow
@pytest.mark.parametrize("n", range(7, 14))
def test_the_signed_rank_p_is_scipys_where_scipy_enumerates_slowly(n):
    for differences in signed_rank_cases(n, seed=n):
        for alternative in ("greater", "less", "two-sided"):
            expected = stats.wilcoxon(differences, zero_method="zsplit", alternative=alternative).pvalue
            assert signed_rank_p(differences, alternative) == pytest.approx(expected, rel=1e-12), differences


def test_a_tied_comparison_over_datasets_enumerates_no_permutations(monkeypatch):
    differences = [0.5, 0.5, -0.25, 0.0, 1.0, 0.75]
    expected = stats.wilcoxon(differences, zero_method="zsplit", alternative="greater").pvalue

    def no_permutations(*args, **kwargs):
        raise AssertionError("scipy's permutation test ran")

    monkeypatch.setattr(stats, "permutation_test", no_permutations)
    comparison = compare("x", differences, DATASETS, Target())
    assert comparison.p_claimed == pytest.approx(2 * expected, rel=1e-12)
