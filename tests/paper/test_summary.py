"""REPORT.md's first screen: counts of claims and sub-claims, robustness, the audit, all in short lines;
each claim's section: the paper's words, each sub-claim's line, the full statistic."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from mlhidden.claims.spec import ClaimSpec
from mlhidden.claims.verdicts import ClaimResult, SubClaimResult
from mlhidden.paper.audit import audit_paper
from mlhidden.paper.claims import paper_claims
from mlhidden.paper.reference import reference_results
from mlhidden.paper.sensitivity_section import claims_matrix
from mlhidden.paper.summary import (
    answer_paragraph,
    audit_line,
    claims_detail,
    claims_summary_table,
    settings_sentence,
    shorten,
    subclaims_by_claim,
)
from mlhidden.paper.text_checks import paper_statements
from mlhidden.report.prose import wrap_prose
from mlhidden.stats.replication import SPLITS, Target, compare
from mlhidden.stats.uncertainty import FAILS, HOLDS, INCONCLUSIVE, NO_DIFFERENCE, NOT_EVALUATED

SPECS = {spec.id: spec for spec in paper_claims()}
SCORES = pd.DataFrame(
    {"difference": [0.01, -0.2, 0.07], "beyond_deviation": [False, True, True], "flagged": [False, True, False]}
)
READING = "'reproduces' read as within ±0.05 of the paper's value"
SETTINGS = [f"{letter}_standard_per_model_lbfgs_C1" for letter in "abcdefghijk"]


def bare(key: str, verdict: str) -> ClaimResult:
    """A claim with no sub-claims and no words."""
    return ClaimResult(ClaimSpec(key, "", "", "", ()), verdict, ())


def real(key: str, verdict: str, *sub_verdicts: str, comparison=None, notes: tuple = ()) -> ClaimResult:
    """The claims file's claim ``key`` with its first sub-claims given ``sub_verdicts`` (the first decided
    by ``comparison`` where one is given)."""
    spec = SPECS[key]
    subs = tuple(
        SubClaimResult(sub, verdict_, comparison if i == 0 else None, why="not run here")
        for i, (sub, verdict_) in enumerate(zip(spec.subclaims, sub_verdicts))
    )
    return ClaimResult(spec, verdict, subs, notes)


CLAIMS = [bare("C1", HOLDS), bare("C2", FAILS)]
LONG = compare("BR hamming score − paper's 0.83", np.linspace(-0.30, -0.17, 10), SPLITS,
               Target(-0.05, 0.05, stated=True, reading=READING), test_train_ratio=0.4 / 0.6)


def matrix(rows: dict) -> pd.DataFrame:
    """Claims x settings from claim key -> verdict per setting, with the closing column."""
    return claims_matrix({
        name: [bare(key, verdicts[i]) for key, verdicts in rows.items()] for i, name in enumerate(SETTINGS)
    })


def test_one_finished_setting_is_named_in_the_singular():
    one = claims_matrix({"j": CLAIMS})
    text = answer_paragraph(CLAIMS, one, SCORES, None)
    assert "Across the 1 finished setting of the sensitivity study, **holds** under it: C1; **does not hold**" in text


def test_claims_that_hold_under_every_setting_are_named_and_none_is_said_to_fail_them():
    text = settings_sentence(matrix({"C1": [HOLDS] * 11, "C2": [FAILS] * 11}))
    assert "**holds** under all 11: C1; **does not hold** under all 11: C2." in text
    assert "no claim holds" not in text


def test_the_counts_and_the_closeness_come_from_the_claims_and_scores():
    text = answer_paragraph(CLAIMS, None, SCORES, None)
    assert (
        "the paper's 2 claims: **holds** 1, **does not hold** 1, **no practical difference** 0, **inconclusive** 0."
    ) in text
    assert "Of 3 scores compared with the paper's, 2 differ by more than 0.05 and 1 of those" in text
    assert "the median absolute difference is 0.070" in text and "sub-claims" not in text


def test_sub_claims_are_counted_whatever_their_verdicts():
    claims = [
        real("C1", FAILS, HOLDS, FAILS, NOT_EVALUATED),
        real("C2", NO_DIFFERENCE, NO_DIFFERENCE),
        bare("C3", HOLDS),
    ]
    text = answer_paragraph(claims, None, SCORES, None)
    assert (
        "the paper's 3 claims: **holds** 1, **does not hold** 1, **no practical difference** 1, **inconclusive** 0."
    ) in text
    assert (
        "Their 4 sub-claims: **holds** 1, **does not hold** 1, **no practical difference** 1, **inconclusive** 0, "
        "**not evaluated** 1."
    ) in text
    assert subclaims_by_claim(claims) == (
        "Sub-claims by claim: C1 holds 1, does not hold 1, not evaluated 1; C2 no practical difference 1.\n"
    )
    detail = claims_detail(claims)
    says = SPECS["C1"].subclaims[1].says.replace("_", "\\_")
    assert f"- **C1.2** {says}: **does not hold** (unit: splits); not run here\n" in detail
    assert SPECS["C1"].quote[:40] in detail and f"The paper ({SPECS['C1'].source})" in detail


def test_which_claims_fail_under_every_setting_and_which_depend_on_it():
    frame = matrix({"C1": [FAILS] * 11, "C3": [INCONCLUSIVE] * 11, "C5": [HOLDS] * 4 + [FAILS] * 7})
    text = settings_sentence(frame)
    assert text == (
        "Across the 11 finished settings of the sensitivity study: **does not hold** under all 11: C1; "
        "**inconclusive** under all 11: C3; depends on the setting: C5 (no claim holds under all 11)."
    )
    table = claims_summary_table([bare("C3", INCONCLUSIVE)], frame)
    assert "inconclusive under all 11" in table and SETTINGS[0].replace("_", "\\_") not in table


def test_the_first_sixty_lines_stay_within_two_hundred_characters():
    """Long deciding statistics, long statements and eleven long setting names stay out of the first screen's
    lines: the table shows them short, each claim's section in full."""
    every = (HOLDS, FAILS, NO_DIFFERENCE, INCONCLUSIVE, NOT_EVALUATED)
    claims = [
        replace(real(key, FAILS, *every, comparison=LONG, notes=("our numbers " * 30,)),
                spec=replace(SPECS[key], about="Table 3 on Logical: " + "BR 0.83 / 0.47, " * 12))
        for key in SPECS
    ]
    frame = matrix({c.key: [INCONCLUSIVE] * 4 + [HOLDS] * 3 + [FAILS] * 3 + [NO_DIFFERENCE] for c in claims})
    setting = {"name": "j_paper_era", "about": "the paper era's scikit-learn defaults " * 3}
    audit = audit_paper(reference_results(), pd.DataFrame(columns=["dataset", "baseline", "exact_match",
                                                                   "hamming_score"]), paper_statements())
    detail = claims_detail(claims, frame)
    screen = wrap_prose("\n".join([
        "# Title\n", answer_paragraph(claims, frame, SCORES, setting), claims_summary_table(claims, frame),
        subclaims_by_claim(claims), audit_line(audit), detail,
    ]))
    lines = screen.splitlines()
    assert len(lines) > 60 and max(len(line) for line in lines[:60]) <= 200
    assert LONG.describe() in detail, "the full statistic is in the claim's section"
    assert "### C1: Table 3 on Logical: BR 0.83 / 0.47," in detail and "Over the settings: " in detail
    assert "Our numbers: our numbers" in detail
    assert "(line 234)" in audit_line(audit)
    assert "of its 242 printed scores, 2 impossible (a pair counted once)," in audit_line(audit)


def test_shorten_keeps_the_effect_and_its_interval():
    assert shorten(LONG.describe()).startswith("BR hamming score − paper's 0.83: -0.235 [")
    assert shorten(LONG.describe()).endswith("] …")
    labelled = "C5.1: CCASL+AML [n_synthetic=1], exact_match: +0.583 [-0.238, +1.405]; claimed above +0.950, t p = 0.19"
    assert shorten(labelled) == "C5.1: CCASL+AML [n_synthetic=1], exact_match: +0.583 [-0.238, +1.405] …"
    no_size = "C6.1: BR_RF − BR, exact_match: -0.005 [-0.014, +0.004], corrected resampled t p = 0.19 (opposite side)"
    assert shorten(no_size) == "C6.1: BR_RF − BR, exact_match: -0.005 [-0.014, +0.004] …"
    assert shorten("short") == "short"
    assert len(shorten("word " * 40)) <= 72


def test_claim_keys_and_words_from_the_claims_file_are_text_and_their_anchor_a_safe_slug():
    """A claims file's key ``C9"><img …>`` would close the ``<a id="…">`` and put an image that loads a remote
    file into REPORT.md; its words would be HTML too. Every one is escaped, and the anchor keeps [a-z0-9-]."""
    key, img = 'C9"><img src=http://example.invalid/x.png>', "<img src=http://example.invalid/y.png>"
    spec = replace(SPECS["C1"], id=key, about=f"about {img}", quote=f"quote {img}", source=img, note=img,
                   subclaims=tuple(replace(sub, id=f"{key}.1", says=img, unit=img) for sub in SPECS["C1"].subclaims))
    claim = ClaimResult(spec, HOLDS, tuple(SubClaimResult(sub, HOLDS, None, why=img) for sub in spec.subclaims),
                        (img,))
    frame = matrix({key: [HOLDS] * len(SETTINGS)})
    setting = {"name": f"s {img}", "about": img}
    text = "\n".join([answer_paragraph([claim], frame, SCORES, setting), claims_summary_table([claim], frame),
                      subclaims_by_claim([claim]), claims_detail([claim], frame)])
    assert "<img" not in text and "&lt;img src=http://example.invalid/y.png&gt;" in text
    anchor = "claim-c9_22_3e_3cimg_20src_3dhttp_3a_2f_2fexample_2einvalid_2fx_2epng_3e"
    assert f'<a id="{anchor}"></a>' in text and f"](#{anchor})" in text
    assert "### C9&quot;" not in text and '### C9"&gt;&lt;img' in text


def test_paper_quotes_read_as_plain_text_not_latex():
    claims = [ClaimResult(spec, NOT_EVALUATED, ()) for spec in SPECS.values()]
    detail = claims_detail(claims)
    assert "\\alg" not in detail and "textsc" not in detail and "$" not in detail
    assert "h\\_XOR" in detail and "CCASL" in detail and "BR\\_RF" in detail


def test_a_verdict_that_cannot_confirm_on_the_papers_own_numbers_is_flagged_beside_it():
    claim = real("C3", INCONCLUSIVE, INCONCLUSIVE, comparison=LONG)
    on_paper = real("C3", INCONCLUSIVE, INCONCLUSIVE, comparison=LONG)
    flagged = replace(claim, calibration=on_paper,
                      subclaims=(replace(claim.subclaims[0], calibration=on_paper.subclaims[0]),))
    assert "| **inconclusive** (cannot confirm on the paper's own numbers) |" in claims_summary_table([flagged], None)
    detail = claims_detail([flagged])
    assert "**inconclusive** (unit: datasets); " in detail
    assert "; on the paper's own numbers: inconclusive (cannot confirm on the paper's own numbers)\n" in detail
    assert "Each verdict on the paper's own numbers is decided on the paper's printed means with our" in detail
    assert "cannot confirm" not in claims_summary_table([claim], None) + claims_detail([claim])
