"""REPORT.md's answer paragraph: counts, robustness and closeness, in words that match the numbers."""

from __future__ import annotations

import pandas as pd

from mlhidden.claims.check import ClaimResult
from mlhidden.claims.spec import ClaimSpec
from mlhidden.paper.sensitivity_report import ROBUST
from mlhidden.paper.summary import OVER_SETTINGS, answer_paragraph
from mlhidden.report.uncertainty import FAILS, HOLDS

CLAIMS = [
    ClaimResult(ClaimSpec("C1", "first", "", "", ()), HOLDS, ()),
    ClaimResult(ClaimSpec("C2", "second", "", "", ()), FAILS, ()),
]
SCORES = pd.DataFrame(
    {"difference": [0.01, -0.2, 0.07], "beyond_deviation": [False, True, True], "flagged": [False, True, False]}
)


def matrix(settings: list, over: list) -> pd.DataFrame:
    frame = pd.DataFrame({name: [HOLDS, FAILS] for name in settings}, index=["C1", "C2"])
    frame[OVER_SETTINGS] = over
    return frame


def test_one_finished_setting_is_named_in_the_singular():
    text = answer_paragraph(CLAIMS, matrix(["j"], ["holds only under j", "x"]), SCORES, None)
    assert "Across the 1 finished setting of the sensitivity study, no claim holds under it." in text


def test_several_settings_name_the_claims_that_hold_under_every_one():
    text = answer_paragraph(CLAIMS, matrix(["a", "b"], [ROBUST, "x"]), SCORES, None)
    assert "Across the 2 finished settings of the sensitivity study, the claims that hold under every one: C1." in text


def test_the_counts_and_the_closeness_come_from_the_claims_and_scores():
    text = answer_paragraph(CLAIMS, None, SCORES, None)
    assert "1 of the paper's 2 claims **hold**, 1 **does not hold** and 0 are **inconclusive**." in text
    assert "Of 3 scores compared with the paper's, 2 differ by more than 0.05 and 1 of those" in text
    assert "the median absolute difference is 0.070" in text
