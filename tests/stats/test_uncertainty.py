"""Intervals in the tables and comparison rows, and the three-way rule on single comparisons."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from mlhidden.paper.sections import comparison_row, flag_counts
from mlhidden.report.csv_files import write_csv
from mlhidden.stats.replication import DATASETS, Target, compare
from mlhidden.stats.uncertainty import (
    BONFERRONI,
    FAILS,
    HOLDS,
    HOLM,
    INCONCLUSIVE,
    NO_CORRECTION,
    NOT_EVALUATED,
    NOT_TESTABLE,
    adjusted,
    claim_verdict,
    t_interval,
)

OLD_COLUMNS = ["dataset", "status", "BR", "BR std", "BR rank", "BR n_splits", "BR n_failed", "BR n_warned"]


def units(values: dict) -> pd.DataFrame:
    """Units of one dataset: ``{method: [exact match per split]}``."""
    return pd.DataFrame(
        [
            {
                "dataset": "d",
                "method": method,
                "split": split,
                "status": "ok",
                "error": "",
                "exact_match": value,
                "hamming_score": value,
                "micro_f1": value,
                "macro_f1": value,
                "example_f1": value,
                "jaccard": value,
                "train_seconds": 1.0,
                "test_seconds": 0.1,
                "total_seconds": 1.1,
            }
            for method, splits in values.items()
            for split, value in enumerate(splits)
        ]
    )


def test_metric_csv_has_interval_columns_around_the_mean_after_the_old_ones(tmp_path):
    values = {"BR": [0.5, 0.6, 0.7, 0.65], "CC": [0.4, 0.4, 0.4, 0.4]}
    write_csv(units(values), tmp_path, ["d"], ["BR", "CC"])
    frame = pd.read_csv(tmp_path / "exact_match.csv")
    assert list(frame.columns[: len(OLD_COLUMNS)]) == OLD_COLUMNS
    assert list(frame.columns[-4:]) == ["BR ci_low", "BR ci_high", "CC ci_low", "CC ci_high"]
    row = frame.iloc[0]
    assert row["BR ci_low"] < row["BR"] < row["BR ci_high"]
    half = stats.t.ppf(0.975, 3) * np.std(values["BR"], ddof=1) / 2
    assert math.isclose(row["BR ci_high"] - row["BR"], half)
    assert row["CC ci_low"] == row["CC"] == row["CC ci_high"]  # no spread over the splits


def test_a_cell_is_flagged_only_when_far_from_the_paper_and_the_paper_outside_our_interval():
    far_but_noisy = comparison_row("results", "exact_match", "d", "BR", 0.50, 0.57, interval=t_interval(0.50, 0.1, 10))
    far_and_sure = comparison_row("results", "exact_match", "d", "CC", 0.50, 0.57, interval=t_interval(0.50, 0.01, 10))
    near = comparison_row("results", "exact_match", "d", "PCC", 0.50, 0.52, interval=t_interval(0.50, 0.001, 10))
    assert [r["beyond_deviation"] for r in (far_but_noisy, far_and_sure, near)] == [True, True, False]
    assert [r["flagged"] for r in (far_but_noisy, far_and_sure, near)] == [False, True, False]
    assert flag_counts([far_but_noisy, far_and_sure, near]).startswith(
        "2 of 3 values differ from the paper's by more than 0.05; 1 of them"
    )


def test_the_rule_needs_significance_for_holds_and_a_contradiction_for_does_not_hold():
    assert compare("x", np.linspace(0.01, 0.02, 10), DATASETS, Target()).verdict == HOLDS
    assert compare("x", np.linspace(-0.02, -0.01, 10), DATASETS, Target()).verdict == FAILS
    assert compare("x", np.linspace(-0.01, 0.012, 10), DATASETS, Target()).verdict == INCONCLUSIVE
    # Significantly positive, but far below the size claimed: does not hold.
    assert compare("x", np.linspace(0.01, 0.02, 10), DATASETS, Target(0.05, 0.07, stated=True)).verdict == FAILS
    assert compare("x", np.linspace(-0.01, 0.01, 10), DATASETS, Target(-0.05, 0.05, stated=True)).verdict == HOLDS
    assert compare("x", np.linspace(0.2, 0.3, 10), DATASETS, Target(-0.05, 0.05, stated=True)).verdict == FAILS


def test_a_claims_refutation_is_family_wise_and_its_confirmation_an_intersection_union_test():
    verdicts, p_opposite = [FAILS, INCONCLUSIVE, INCONCLUSIVE], [0.034, 0.6, 0.9]
    assert adjusted(p_opposite, HOLM) == pytest.approx([0.102, 1.0, 1.0])
    assert adjusted(p_opposite, BONFERRONI) == pytest.approx([0.102, 1.0, 1.0])
    assert claim_verdict(verdicts, adjusted(p_opposite, HOLM)) == INCONCLUSIVE
    assert claim_verdict(verdicts, adjusted(p_opposite, NO_CORRECTION)) == FAILS
    assert claim_verdict([HOLDS, HOLDS], adjusted([0.9, 0.95], HOLM)) == HOLDS
    assert math.isnan(adjusted([0.01, math.nan], BONFERRONI)[1]) and adjusted([0.01, math.nan], BONFERRONI)[0] == 0.01
    assert claim_verdict([NOT_TESTABLE, NOT_EVALUATED], [math.nan, math.nan]) == NOT_TESTABLE
    assert claim_verdict([NOT_EVALUATED], [math.nan]) == NOT_EVALUATED
