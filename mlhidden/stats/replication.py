"""A claim's comparison with the right unit of replication: which samples are independent, and which test.

- :data:`SPLITS`, random train/test splits (or folds) of one dataset: they share training rows, so
  the plain t-interval is too narrow and a refutation through opposite-side significance too
  easy. The corrected resampled t-test (Nadeau & Bengio 2003; Bouckaert & Frank 2004) widens the
  variance to ``var (1/k + n_test/n_train)``, for intervals and p-values, whichever way they point.
- :data:`DATASETS`: the dataset is the unit, one value per dataset (its mean over splits);
  Wilcoxon signed rank over them, with a t-interval.
- :data:`POOLED`, datasets x splits: one corrected test per dataset, Holm-corrected over the
  datasets, each dataset's interval at the Bonferroni level; the effect's interval is clustered by
  dataset (a t-interval over the per-dataset means). Never n = datasets x splits as independent.
- Average ranks ("X is best"): the Friedman test (its exact p where the design is small enough),
  then each method against the control by the z of their rank gap, Holm-corrected (Demšar 2006);
  each p is at least the Friedman p. Or "per dataset": the control against each other method by
  Wilcoxon signed rank over the datasets, Holm-corrected (Benavoli, Corani & Mangili 2016, who show
  that a mean-rank post-hoc test's verdict on two methods depends on the other methods compared).
  Or "top share": the share of datasets on which the control is first (or last), by an exact binomial
  test against the share claimed: one test, whatever the number of methods.

A claim states a range for its effect (:class:`Target`); each side is tested two-sided at
:data:`~mlhidden.stats.uncertainty.ALPHA` (twice the one-sided p), so that a claim holding agrees with the
95 % interval lying inside the range.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from mlhidden.runs.record import RunRecord
from mlhidden.stats.friedman import friedman_p
from mlhidden.stats.ranks import rank_rows
from mlhidden.stats.uncertainty import ALPHA, TIE_DECIMALS, Comparison, format_p, holm, t_interval

SPLITS, DATASETS, POOLED = "splits", "datasets", "datasets x splits"
UNITS = (SPLITS, DATASETS, POOLED)
"""The units of replication a comparison can be over."""
CORRECTED_T = "corrected resampled t"
WILCOXON = "Wilcoxon signed rank"
AGAINST_CONTROL = "Friedman, then z against the control (Holm)"
BINOMIAL = "exact binomial over datasets"
AVERAGE_RANK, PER_DATASET, TOP_SHARE = "average rank", "per dataset", "top share"
RANK_TESTS = (AVERAGE_RANK, PER_DATASET, TOP_SHARE)
"""How a ranks claim ("X ranks above every other method") is tested: :func:`against_control`,
:func:`against_control_per_dataset`, or :func:`top_share` ("X is the top performer on most datasets")."""


@dataclass(frozen=True)
class Target:
    """What a claim states about an effect: that it lies between ``low`` and ``high``.

    Attributes
    ----------
    low, high : float
        The claimed range on the effect's scale; either end may be infinite ("A beats B" is
        (0, ∞), "more than twice" (log 2, ∞) on a log ratio, "about twice" (log 1.5, log 3)).
    stated : bool
        Whether the claim states a size (else only a direction): only a stated size can be
        excluded by the interval.
    smallest_effect : float or None
        The smallest effect of interest around the range's finite end: an effect shown within ±
        it of that end is no practical difference.
    reading : str
        How the claim's words are read as these numbers.
    ratio : bool
        The effect is a log ratio (shown as a factor).
    """

    low: float = 0.0
    high: float = math.inf
    stated: bool = False
    smallest_effect: float | None = None
    reading: str = ""
    ratio: bool = False

    @property
    def claimed(self) -> tuple[float, float] | None:
        """The claimed range when the claim states a size."""
        return (self.low, self.high) if self.stated else None

    @property
    def boundary(self) -> float:
        """Where the claim's direction changes: the range's finite end (the lower one when both are)."""
        return self.low if math.isfinite(self.low) else self.high


def split_test_train_ratio(record: RunRecord) -> float:
    """n_test / n_train of one of a run's splits (or folds): the overlap the corrected t-test needs."""
    if record.protocol.is_kfold and record.protocol.folds:
        return 1 / (record.protocol.folds - 1)
    return (1 - record.train_fraction) / record.train_fraction


def corrected_t(values: Sequence[float] | np.ndarray, test_train_ratio: float) -> tuple[float, float, int]:
    """Mean, standard error and degrees of freedom of the corrected resampled t-test (Nadeau & Bengio).

    ``se = sqrt(var (1/k + n_test/n_train))`` over k splits' values, with k - 1 degrees of freedom.
    """
    values = np.asarray(values, dtype=float)
    k = len(values)
    if k < 2:
        return (float(values.mean()) if k else math.nan), math.nan, 0
    variance = float(values.var(ddof=1))
    return float(values.mean()), math.sqrt(variance * (1 / k + test_train_ratio)), k - 1


# scipy's bound for enumerating every sign flip of a signed rank test (2^13 flips are under its 9999 resamples).
ENUMERATED_MAX = 13


def signed_rank_p(differences: np.ndarray, alternative: str) -> float:
    """The p (``greater``, ``less`` or ``two-sided``) of the signed rank sum of ``differences`` (no NaNs), zeros
    split: scipy's ``wilcoxon(differences, zero_method="zsplit", alternative=alternative)``, without its
    permutation test. Two-sided is twice the smaller one-sided p, at most 1, as scipy's is.

    With ties or zeros among at most :data:`ENUMERATED_MAX` differences scipy enumerates all 2^n sign flips through
    ``permutation_test``, seconds a call. Its null distribution is a count of subset sums of the ranks: tied
    ranks are half-integers, so the count runs over doubled ranks; a zero's half rank is on both sides of every
    flip, so it drops out. The count is exact, as scipy's is (its sums are exact in floating point), so the p is
    the same. Elsewhere scipy decides, as before: its exact table without ties or zeros, its normal
    approximation past :data:`ENUMERATED_MAX` differences with them.
    """
    magnitudes = np.abs(differences)
    tied_or_zero = len(np.unique(magnitudes)) < len(magnitudes) or not differences.all()
    if len(differences) > ENUMERATED_MAX or not tied_or_zero:
        return float(stats.wilcoxon(differences, zero_method="zsplit", alternative=alternative).pvalue)
    doubled = np.rint(2 * stats.rankdata(magnitudes)).astype(np.int64)
    counts = _subset_sum_counts(doubled[differences != 0])
    observed = int(doubled[differences > 0].sum())
    total = counts.sum()
    greater, less = counts[observed:].sum() / total, counts[:observed + 1].sum() / total
    if alternative == "two-sided":
        return float(min(1.0, 2 * min(greater, less)))
    return float(greater if alternative == "greater" else less)


def _subset_sum_counts(ranks: np.ndarray) -> np.ndarray:
    """How many of the 2^len(ranks) subsets of ``ranks`` (positive integers) sum to each total 0 .. sum(ranks)."""
    counts = np.zeros(int(ranks.sum()) + 1, dtype=np.int64)
    counts[0] = 1
    for rank in ranks:
        counts[rank:] = counts[rank:] + counts[:-rank]
    return counts


def _p_side(values: np.ndarray, shift: float, alternative: str, ratio: float | None) -> float:
    """One-sided p that ``values`` lie above (``greater``) or below (``less``) ``shift``.

    ``ratio`` is n_test/n_train for the corrected t-test; None for Wilcoxon signed rank.
    """
    if math.isinf(shift):
        return 0.0 if (shift < 0) == (alternative == "greater") else 1.0
    if ratio is None:
        differences = np.round(values - shift, TIE_DECIMALS)
        if not len(differences) or not differences.any():
            return 1.0
        return signed_rank_p(differences, alternative)
    mean, se, df = corrected_t(values, ratio)
    gap = round(mean - shift, TIE_DECIMALS)
    if df < 1 or math.isnan(se):
        return 1.0
    if se == 0:
        return 0.0 if (gap > 0 if alternative == "greater" else gap < 0) else 1.0
    t = gap / se
    return float(stats.t.sf(t, df) if alternative == "greater" else stats.t.cdf(t, df))


def compare(label: str, values: Sequence[float] | np.ndarray, unit: str, target: Target, *,
            test_train_ratio: float | None = None, confidence: float = 1 - ALPHA) -> Comparison:
    """One sample against ``target``: corrected t with ``test_train_ratio`` (splits), else Wilcoxon (datasets)."""
    array = np.asarray(values, dtype=float)
    sample = array[~np.isnan(array)]
    if test_train_ratio is None:
        mean = float(sample.mean()) if len(sample) else math.nan
        std = float(sample.std(ddof=1)) if len(sample) > 1 else math.nan
        low, high = t_interval(mean, std, len(sample), confidence)
        test = WILCOXON
    else:
        mean, se, df = corrected_t(sample, test_train_ratio)
        half = float(stats.t.ppf(0.5 + confidence / 2, df)) * se if df else math.nan
        low, high = mean - half, mean + half
        test = CORRECTED_T

    def p(shift: float, alternative: str) -> float:
        return _p_side(sample, shift, alternative, test_train_ratio)

    p_claimed = min(1.0, 2 * max(p(target.low, "greater"), p(target.high, "less")))
    p_opposite = min(1.0, 2 * min(p(target.low, "less"), p(target.high, "greater")))
    p_equivalent = math.nan
    if target.smallest_effect is not None:
        centre, margin = target.boundary, target.smallest_effect
        p_equivalent = min(1.0, 2 * max(p(centre - margin, "greater"), p(centre + margin, "less")))
    return Comparison(label, mean, low, high, len(sample), unit, test, p_claimed, p_opposite, target.claimed,
                      target.reading, target.ratio, p_equivalent)


def by_unit(label: str, values: pd.Series, unit: str, target: Target, test_train_ratio: float) -> Comparison:
    """``values`` indexed by (dataset, split) compared with ``target`` over ``unit`` (see the module docstring).

    Values of the same (dataset, split) are one unit: repeating a split's value adds no evidence.
    """
    per_split = values.groupby(level=[0, 1], sort=False).mean()
    datasets = list(dict.fromkeys(per_split.index.get_level_values(0)))
    if unit == SPLITS:
        if len(datasets) != 1:
            raise ValueError(f"a comparison over splits needs one dataset, not {len(datasets)}")
        return compare(label, per_split.to_numpy(), f"splits of {datasets[0]}", target,
                       test_train_ratio=test_train_ratio)
    means = per_split.groupby(level=0, sort=False).mean()
    if unit == DATASETS:
        return compare(label, means.to_numpy(), DATASETS, target)
    if unit != POOLED:
        raise ValueError(f"unknown unit of replication {unit!r}: one of {', '.join(UNITS)}")
    confidence = 1 - ALPHA / len(datasets)
    parts = [
        compare(str(dataset), per_split.loc[dataset].to_numpy(), "splits", target,
                test_train_ratio=test_train_ratio, confidence=confidence)
        for dataset in datasets
    ]
    parts = _holm_family(parts)
    mean, low, high = float(means.mean()), *t_interval(float(means.mean()), float(means.std(ddof=1)), len(means))
    return Comparison(label, mean, low, high, len(datasets), "datasets (splits within)",
                      f"{CORRECTED_T} per dataset, Holm", max(part.p_claimed for part in parts),
                      min(part.p_opposite for part in parts), target.claimed,
                      target.reading, target.ratio, parts=tuple(parts))


def _holm_family(comparisons: Sequence[Comparison]) -> list[Comparison]:
    """The comparisons with each kind of p-value Holm-corrected over the family."""
    comparisons = list(comparisons)
    claimed, opposite, equivalent = (
        holm([getattr(c, name) for c in comparisons]) for name in ("p_claimed", "p_opposite", "p_equivalent")
    )
    return [
        dataclasses.replace(c, p_claimed=float(claimed[i]), p_opposite=float(opposite[i]),
                            p_equivalent=float(equivalent[i]))
        for i, c in enumerate(comparisons)
    ]


def against_control(label: str, scores: pd.DataFrame, control: str, others: Sequence[str], *, better: bool = True,
                    reading: str = "") -> Comparison:
    """The claim that ``control`` ranks above (``better``) or below every one of ``others``.

    ``scores`` is datasets x methods, higher is better; datasets missing a method are left out.
    Ranks are taken among all of ``scores``' methods by the tables' rule
    (:func:`~mlhidden.stats.ranks.rank_rows`), with the rank section's Friedman p. Each part is
    one method's average-rank gap to the control, in the claimed direction, with its
    Bonferroni-Dunn interval and a Holm-corrected z test, raised to the Friedman p.
    """
    scores = scores.dropna()
    n, k = scores.shape
    ranks = rank_rows(scores)
    average = ranks.mean()
    friedman, which = friedman_p(ranks.to_numpy()) if n >= 2 and k >= 2 else (1.0, "")
    se = math.sqrt(k * (k + 1) / (6 * n)) if n else math.nan
    critical = float(stats.norm.ppf(1 - ALPHA / (2 * max(len(others), 1)))) * se
    parts = []
    for other in others:
        gap = float(average[other] - average[control]) * (1 if better else -1)
        p_value = float(2 * stats.norm.sf(abs(gap) / se)) if se else 1.0
        parts.append(Comparison(
            f"{control} {'above' if better else 'below'} {other}", gap, gap - critical, gap + critical, n,
            DATASETS, AGAINST_CONTROL, p_value if gap > 0 else 1.0, p_value if gap < 0 else 1.0,
        ))
    parts = [
        dataclasses.replace(part, p_claimed=max(part.p_claimed, friedman), p_opposite=max(part.p_opposite, friedman))
        for part in _holm_family(parts)
    ]
    weakest = min(parts, key=lambda part: part.effect)
    text = (
        f"average ranks over {n} datasets, Friedman {which} p {format_p(friedman)}, Bonferroni-Dunn CD {critical:.2f}"
        f" (Bonferroni-Dunn against {control}; the rank section's Nemenyi CD compares all pairs)"
    )
    reading = f"{reading}; {text}" if reading else text
    return dataclasses.replace(weakest, label=label, parts=tuple(parts), reading=reading)


def against_control_per_dataset(label: str, scores: pd.DataFrame, control: str, others: Sequence[str], *,
                                better: bool = True, reading: str = "", smallest_effect: float | None = None
                                ) -> Comparison:
    """The claim that ``control`` scores above (``better``) or below each of ``others``, dataset by dataset.

    ``scores`` as :func:`against_control`'s. Each part is the control's score minus one other method's
    (in the claimed direction) over the datasets, by Wilcoxon signed rank (:func:`compare`), Holm-corrected
    over the others; no method outside the pair changes a pair's verdict. ``smallest_effect`` is a score
    difference that is a practical tie.
    """
    scores = scores.dropna()
    sign = 1.0 if better else -1.0
    target = Target(smallest_effect=smallest_effect)
    parts = _holm_family([
        compare(f"{control} {'above' if better else 'below'} {other}",
                sign * (scores[control] - scores[other]).to_numpy(), DATASETS, target)
        for other in others
    ])
    weakest = min(parts, key=lambda part: part.effect)
    text = f"{PER_DATASET}: {control} against each method over {len(scores)} datasets, {WILCOXON}, Holm"
    reading = f"{reading}; {text}" if reading else text
    return dataclasses.replace(weakest, label=label, parts=tuple(parts), reading=reading)


def top_share(label: str, scores: pd.DataFrame, control: str, others: Sequence[str], *, share: float,
              better: bool = True, reading: str = "") -> Comparison:
    """The claim that ``control`` is first (``better``) or last against ``others`` on more than ``share`` of the
    datasets: an exact binomial test of how many it is, with its Clopper-Pearson interval.

    ``scores`` as :func:`against_control`'s. On a dataset the control is first when it scores at least as high as
    each of ``others`` (a tie, equal to :data:`~mlhidden.stats.uncertainty.TIE_DECIMALS` decimals, is first: the
    tables' mid-ranks place tied methods level); methods outside ``others`` play no part. A statement about each
    dataset ("almost invariably the top performer") needs no correction over the methods: it is one count.
    """
    scores = scores.dropna()
    sign = 1.0 if better else -1.0
    gaps = np.round(sign * (scores[control].to_numpy()[:, None] - scores[list(others)].to_numpy()), TIE_DECIMALS)
    n, first = len(scores), int((gaps >= 0).all(axis=1).sum())
    if n:
        result = stats.binomtest(first, n, share)
        interval = result.proportion_ci(1 - ALPHA)
        low, high = float(interval.low), float(interval.high)
        p_claimed = float(stats.binomtest(first, n, share, alternative="greater").pvalue)
        p_opposite = float(stats.binomtest(first, n, share, alternative="less").pvalue)
    else:
        low = high = math.nan
        p_claimed = p_opposite = 1.0
    text = (f"{TOP_SHARE}: {control} {'first' if better else 'last'} on {first} of {n} datasets against "
            f"{len(others)} methods (a tie counts), {BINOMIAL} against a share of {share:g}")
    return Comparison(label, first / n if n else math.nan, low, high, n, DATASETS, BINOMIAL,
                      min(1.0, 2 * p_claimed), min(1.0, 2 * p_opposite), (share, math.inf),
                      f"{reading}; {text}" if reading else text)


def least_p(comparison: Comparison) -> float:
    """The smallest claimed-side p ``comparison``'s test could give on its units, whatever their values.

    A test over few units has a floor: Wilcoxon signed rank over n values can give no less than 2 / 2^n
    (two-sided), a binomial count of n against a share s no less than 2 s^n, and a family under Holm
    multiplies its first step by its size. Above :data:`~mlhidden.stats.uncertainty.ALPHA`, no data could
    confirm the claim: the units are too few, not the evidence too weak. A t-test has no floor (0).
    """
    if comparison.parts:
        return min(1.0, len(comparison.parts) * max(least_p(part) for part in comparison.parts))
    if comparison.test == WILCOXON:
        return min(1.0, 2 / 2 ** comparison.n)
    if comparison.test == BINOMIAL and comparison.claimed is not None:
        return min(1.0, 2 * comparison.claimed[0] ** comparison.n)
    return 0.0
