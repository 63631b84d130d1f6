"""REPORT.md's first screen: counts of claims and sub-claims, robustness, the audit, all in short lines."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from mlhidden.paper.audit import audit_paper
from mlhidden.paper.claims import FAILS, HOLDS, INCONCLUSIVE, Claim
from mlhidden.paper.reference import reference_results
from mlhidden.paper.sensitivity_report import claims_matrix
from mlhidden.paper.summary import (
    answer_paragraph,
    audit_line,
    claims_detail,
    claims_summary_table,
    settings_sentence,
    shorten,
)
from mlhidden.paper.text_checks import paper_statements
from mlhidden.report.prose import wrap_prose

CLAIMS = [Claim("C1", "first", HOLDS, ""), Claim("C2", "second", FAILS, "")]
SCORES = pd.DataFrame(
    {"difference": [0.01, -0.2, 0.07], "beyond_deviation": [False, True, True], "flagged": [False, True, False]}
)
LONG_DECIDING = (
    "BR hamming score − paper's 0.83: -0.234 [-0.294, -0.174]; claimed -0.050 to +0.050, Wilcoxon signed rank "
    "p = 0.023 (opposite side, n = 10 splits) ('reproduces' read as within ±0.05 of the paper's value)"
)
SETTINGS = [f"{letter}_standard_per_model_lbfgs_C1" for letter in "abcdefghijk"]


@dataclass(frozen=True)
class Part:
    key: str
    statement: str
    verdict: str
    deciding: str = ""


@dataclass(frozen=True)
class WithParts:
    """A claim as the claims file makes it: with sub-claims, one of a verdict the screen does not know."""

    key: str
    statement: str
    verdict: str
    evidence: str
    deciding: str
    subclaims: tuple


def matrix(rows: dict) -> pd.DataFrame:
    """Claims x settings from claim key -> verdict per setting, with the closing column."""
    return claims_matrix({
        name: [Claim(key, "", verdicts[i], "") for key, verdicts in rows.items()] for i, name in enumerate(SETTINGS)
    })


def test_one_finished_setting_is_named_in_the_singular():
    one = claims_matrix({"j": CLAIMS})
    text = answer_paragraph(CLAIMS, one, SCORES, None)
    assert "Across the 1 finished setting of the sensitivity study, **holds** under it: C1; **does not hold**" in text


def test_the_counts_and_the_closeness_come_from_the_claims_and_scores():
    text = answer_paragraph(CLAIMS, None, SCORES, None)
    assert "the paper's 2 claims: **holds** 1, **does not hold** 1, **inconclusive** 0." in text
    assert "Of 3 scores compared with the paper's, 2 differ by more than 0.05 and 1 of those" in text
    assert "the median absolute difference is 0.070" in text and "sub-claims" not in text


def test_sub_claims_are_counted_whatever_their_verdicts():
    claims = [
        WithParts("C1", "first", FAILS, "", "", (Part("C1a", "behaviour", HOLDS), Part("C1b", "values", FAILS))),
        WithParts("C2", "second", INCONCLUSIVE, "", "", (Part("C2a", "size", "no practical difference"),)),
        Claim("C3", "third", HOLDS, ""),
    ]
    text = answer_paragraph(claims, None, SCORES, None)
    assert "the paper's 3 claims: **holds** 1, **does not hold** 1, **inconclusive** 1." in text
    parts = "Their 3 sub-claims: **holds** 1, **does not hold** 1, **inconclusive** 0, **no practical difference** 1."
    assert parts in text
    table = claims_summary_table(claims, None)
    assert "| sub-claims" in table and "holds 1, does not hold 1" in table
    detail = claims_detail(claims)
    assert "- C1a behaviour: **holds**\n- C1b values: **does not hold**\n" in detail


def test_which_claims_fail_under_every_setting_and_which_depend_on_it():
    frame = matrix({"C1": [FAILS] * 11, "C3": [INCONCLUSIVE] * 11, "C5": [HOLDS] * 4 + [FAILS] * 7})
    text = settings_sentence(frame)
    assert text == (
        "Across the 11 finished settings of the sensitivity study: **does not hold** under all 11: C1; "
        "**inconclusive** under all 11: C3; depends on the setting: C5 (no claim holds under all 11)."
    )
    table = claims_summary_table([Claim("C3", "x", INCONCLUSIVE, "")], frame)
    assert "inconclusive under all 11" in table and SETTINGS[0].replace("_", "\\_") not in table


def test_the_first_sixty_lines_stay_within_two_hundred_characters():
    """Long deciding statistics, long statements and eleven long setting names stay out of the first screen's
    lines: the table shows them short, each claim's section in full."""
    claims = [Claim(f"C{i}", "Table 3 on Logical: " + "BR 0.83 / 0.47, " * 12, FAILS, "our numbers " * 30)
              for i in range(1, 9)]
    claims = [
        WithParts(c.key, c.statement, c.verdict, c.evidence, LONG_DECIDING, (Part("a", "s " * 80, HOLDS),))
        for c in claims
    ]
    frame = matrix({c.key: [INCONCLUSIVE] * 5 + [HOLDS] * 3 + [FAILS] * 3 for c in claims})
    setting = {"name": "j_paper_era", "about": "the paper era's scikit-learn defaults " * 3}
    audit = audit_paper(reference_results(), pd.DataFrame(columns=["dataset", "baseline", "exact_match",
                                                                   "hamming_score"]), paper_statements())
    screen = wrap_prose("\n".join([
        "# Title\n", answer_paragraph(claims, frame, SCORES, setting), claims_summary_table(claims, frame),
        audit_line(audit), claims_detail(claims, frame),
    ]))
    lines = screen.splitlines()
    assert len(lines) > 60 and max(len(line) for line in lines[:60]) <= 200
    assert "p = 0.023" in claims_detail(claims, frame), "the full statistic is in the claim's section"
    assert "lines 234, 744" in audit_line(audit)


def test_shorten_keeps_the_effect_and_its_interval():
    assert shorten(LONG_DECIDING) == "BR hamming score − paper's 0.83: -0.234 [-0.294, -0.174] …"
    assert shorten("short") == "short"
    assert len(shorten("word " * 40)) <= 72
