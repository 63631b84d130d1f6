"""A claim decided on its core sub-claims: refutation controlled family-wise (Holm by default), supporting
sub-claims shown but never deciding, and positive controls that make the sub-claims resting on a failed
setting "not testable under this setting"."""

from __future__ import annotations

import json
import math
import shutil

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy import stats

from mlhidden.claims.check import Checker
from mlhidden.claims.result_files import text_table, write_outputs
from mlhidden.claims.runs import StoredRuns
from mlhidden.claims.spec import read_claims
from mlhidden.cli import cli
from mlhidden.errors import UserError
from mlhidden.stats.uncertainty import FAILS, INCONCLUSIVE, NOT_TESTABLE

SPLITS = 10
SHAPE = np.array([-1.5, -1.0, -0.5, -0.25, 0.0, 0.0, 0.25, 0.5, 1.0, 1.5])
WEAK_RUN = """\
name: weak
datasets: [Logical, {name: Logical, label: Logical-j, params: {jitter: 0.05}}]
methods:
  - {name: BR, base: {name: logistic, params: {C: 0.001}}}
  - {name: BR, label: BR strong, base: {name: logistic, params: {C: 1000, solver: lbfgs}}}
  - CC
splits: 4
seed: 0
shuffle_labels: false
"""


@pytest.fixture(scope="module")
def weak_run(tmp_path_factory):
    """A real run on Logical and a jittered Logical: BR so strongly regularised that it predicts each label's
    majority (it cannot learn OR and AND), BR barely regularised (it learns them), and CC."""
    folder = tmp_path_factory.mktemp("weak")
    (folder / "weak.yaml").write_text(WEAK_RUN)
    result = CliRunner().invoke(
        cli, ["run", "--config", str(folder / "weak.yaml"), "--out", str(folder / "weak"), "--n-jobs", "1", "--quiet"]
    )
    assert result.exit_code == 0, result.output
    return folder / "weak"


def refuting_at(runs: StoredRuns, sub) -> pd.DataFrame:
    """Ten splits' values whose corrected resampled t-test gives the opposite side exactly ``params.p``."""
    z = (SHAPE - SHAPE.mean()) / SHAPE.std(ddof=1)
    se = math.sqrt(1 / SPLITS + runs.test_train_ratio(str(sub.run)))
    mean = float(stats.t.ppf(sub.params["p"] / 2, SPLITS - 1)) * se
    return pd.DataFrame({"dataset": "Logical", "method": "x", "split": range(SPLITS), "value": mean + z})


def subclaim(name: str, p: float, role: str = "core") -> str:
    return f"""\
      - id: {name}
        says: x is above 0
        role: {role}
        extractor: refuting_at
        params: {{p: {p}}}
        value: x
        smallest_effect: 0.001
        unit: splits
"""


def claims_file(tmp_path, *subclaims: str, head: str = "") -> str:
    path = tmp_path / "claims.yaml"
    path.write_text(f"{head}claims:\n  - id: C\n    about: x is above 0\n    subclaims:\n" + "".join(subclaims))
    return str(path)


def decided(weak_run, path, **options):
    checker = Checker(StoredRuns([weak_run]), path, {"refuting_at": refuting_at})
    return checker.claim(read_claims(path, extractors=["refuting_at"])[0], **options)


def test_one_core_refutation_at_p_0_034_among_three_is_inconclusive_under_holm(weak_run, tmp_path):
    path = claims_file(tmp_path, subclaim("C.1", 0.034), subclaim("C.2", 0.6), subclaim("C.3", 0.9))
    claim = decided(weak_run, path)
    assert [s.verdict for s in claim.subclaims] == [FAILS, INCONCLUSIVE, INCONCLUSIVE]
    assert claim.subclaims[0].comparison.p_opposite == pytest.approx(0.034)
    assert claim.multiplicity == "holm" and claim.refutation_p == pytest.approx(0.102)
    assert claim.verdict == INCONCLUSIVE
    assert claim.deciding.startswith("C.1: ") and claim.deciding.endswith(
        "refutation p = 0.1 (holm over 3 core sub-claims); C.1 does not hold by the interval or its own test alone, "
        "which the family-wise test does not carry to the claim")
    assert decided(weak_run, path, multiplicity="bonferroni").verdict == INCONCLUSIVE
    assert decided(weak_run, path, multiplicity="none").verdict == FAILS
    declared = claims_file(tmp_path, subclaim("C.1", 0.034), subclaim("C.2", 0.6), subclaim("C.3", 0.9),
                           head="multiplicity: none\n")
    assert decided(weak_run, declared).verdict == FAILS


def test_a_supporting_subclaim_that_does_not_hold_does_not_refute_its_claim(weak_run, tmp_path):
    path = claims_file(tmp_path, subclaim("C.1", 0.6), subclaim("C.2", 0.001, role="supporting"))
    claim = decided(weak_run, path, multiplicity="none")
    assert [s.verdict for s in claim.subclaims] == [INCONCLUSIVE, FAILS]
    assert claim.verdict == INCONCLUSIVE and claim.deciding.startswith("C.1: ")
    assert math.isnan(claim.refutation[1])
    assert "  C.2  supporting  does not hold: x is above 0" in text_table([claim])
    write_outputs([claim], tmp_path)
    rows = pd.read_csv(tmp_path / "claims.csv")
    assert list(rows["role"]) == ["core", "supporting"] and list(rows["multiplicity"]) == ["none", "none"]
    assert rows.loc[0, "refutation_p"] == pytest.approx(0.6) and math.isnan(rows.loc[1, "refutation_p"])
    document = json.loads((tmp_path / "claims.json").read_text())
    assert document[0]["multiplicity"] == "none" and document[0]["refutation_p"] == pytest.approx(0.6)


@pytest.mark.parametrize(
    "text, line, fragment",
    [
        ("multiplicity: holms\n", 1, "unknown multiplicity 'holms' (did you mean 'holm'?"),
        ("", 7, "unknown role 'supportive' (did you mean 'supporting'?"),
    ],
)
def test_a_mistaken_multiplicity_or_role_is_one_line_at_its_key(tmp_path, text, line, fragment):
    path = claims_file(tmp_path, subclaim("C.1", 0.6), head=text)
    if not text:
        (tmp_path / "claims.yaml").write_text((tmp_path / "claims.yaml").read_text().replace("core", "supportive"))
    with pytest.raises(UserError) as caught:
        read_claims(path, extractors=["refuting_at"])
    assert caught.value.line == line and fragment in caught.value.message + f" ({caught.value.hint}"


def test_a_claim_of_supporting_subclaims_only_is_refused(tmp_path):
    path = claims_file(tmp_path, subclaim("C.1", 0.6, role="supporting"))
    with pytest.raises(UserError, match="a claim needs a core sub-claim"):
        read_claims(path, extractors=["refuting_at"])


LOGICAL_CONTROL = """\
  - id: K1
    says: BR learns OR and AND on Logical
    extractor: label_accuracy
    params: {labels: [OR, AND]}
    value: BR
    size: 0.95
    reading: "'learns' read as per-label accuracy at least 0.95"
    datasets: [Logical]
    unit: splits
"""
"""Control K1: BR learns the linearly separable labels of Logical."""
CONTROLLED = "controls:\n" + LOGICAL_CONTROL + """\
  - id: K2
    says: strong BR learns OR and AND
    extractor: label_accuracy
    params: {labels: [OR, AND]}
    value: BR strong
    size: 0.95
    reading: "'learns' read as per-label accuracy at least 0.95"
    unit: datasets x splits
claims:
  - id: A
    about: CC beats BR
    subclaims:
      - id: A.1
        says: CC beats BR on Logical
        metric: exact_match
        difference: [CC, BR]
        smallest_effect: 0.01
        datasets: [Logical]
        unit: splits
      - id: A.2
        says: CC beats BR on every dataset
        metric: exact_match
        difference: [CC, BR]
        smallest_effect: 0.01
        unit: datasets x splits
  - id: B
    about: CC beats BR on jittered data
    subclaims:
      - id: B.1
        says: CC beats BR on Logical-j
        metric: exact_match
        difference: [CC, BR]
        smallest_effect: 0.01
        datasets: [Logical-j]
        unit: splits
"""


def test_a_setting_that_fails_its_positive_control_makes_the_subclaims_resting_on_it_not_testable(
        weak_run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.yaml").write_text(CONTROLLED)
    result = CliRunner().invoke(cli, ["claims", "mine.yaml", str(weak_run), "--out", "."])
    assert result.exit_code == 0, result.output
    rows = pd.read_csv(tmp_path / "claims.csv", keep_default_na=False).set_index("subclaim")
    assert list(rows.loc[["K1", "K2"], "verdict"]) == ["does not hold", "holds"]
    assert list(rows.loc[["K1", "K2"], "role"]) == ["control", "control"]
    # K1 (Logical only) fails: what rests on Logical is not testable; Logical-j rests on K2 alone, which holds.
    assert list(rows.loc[["A.1", "A.2", "B.1"], "verdict"]) == [NOT_TESTABLE, NOT_TESTABLE, "inconclusive"]
    assert list(rows.loc[["A.1", "A.2", "B.1"], "controls"]) == ["K1; K2", "K1; K2", "K2"]
    assert rows.loc["A.1", "deciding"].startswith(
        "control K1 (BR learns OR and AND on Logical) does not hold on run 'weak': BR, value: +0.")
    assert "claimed above +0.950" in rows.loc["A.1", "deciding"]
    document = json.loads((tmp_path / "claims.json").read_text())
    assert [c["verdict"] for c in document] == [NOT_TESTABLE, "inconclusive"]
    assert [k["subclaim"] for k in document[0]["controls"]] == ["K1", "K2"]
    assert document[0]["deciding"].startswith("A.1: control K1 (BR learns OR and AND on Logical) does not hold")
    assert "control K1  does not hold: BR learns OR and AND on Logical" in result.output
    assert "A  NOT TESTABLE UNDER THIS SETTING  CC beats BR" in result.output


COVERING = "controls:\n" + LOGICAL_CONTROL + """\
    run: weak
    covers: [twin]
claims:
  - id: A
    about: CC beats BR on the twin run
    subclaims:
      - id: A.1
        says: CC beats BR on Logical
        run: twin
        metric: exact_match
        difference: [CC, BR]
        smallest_effect: 0.01
        datasets: [Logical]
        unit: splits
"""


def test_a_control_covers_the_runs_it_names_on_its_data_splits_and_base_learner(weak_run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copytree(weak_run, tmp_path / "twin")
    (tmp_path / "mine.yaml").write_text(COVERING)
    result = CliRunner().invoke(cli, ["claims", "mine.yaml", str(weak_run), "twin", "--out", "."])
    assert result.exit_code == 0, result.output
    rows = pd.read_csv(tmp_path / "claims.csv", keep_default_na=False).set_index("subclaim")
    assert rows.loc["K1", "verdict"] == "does not hold"
    assert (rows.loc["A.1", "verdict"], rows.loc["A.1", "controls"]) == (NOT_TESTABLE, "K1"), (
        "a control on run 'weak' that covers 'twin' decides what rests on the twin's Logical"
    )
    (tmp_path / "mine.yaml").write_text(COVERING.replace("    covers: [twin]\n", ""))
    result = CliRunner().invoke(cli, ["claims", "mine.yaml", str(weak_run), "twin", "--out", "."])
    rows = pd.read_csv(tmp_path / "claims.csv", keep_default_na=False).set_index("subclaim")
    assert rows.loc["A.1", "verdict"] != NOT_TESTABLE and rows.loc["A.1", "controls"] == ""


@pytest.mark.parametrize(
    "text, old, line, fragment",
    [
        (COVERING, "covers: [twin]", 12, "'covers' must be a list of run names"),
        (COVERING.replace("    covers: [twin]\n", ""), "        unit: splits\n", 24, "unknown key 'covers'"),
    ],
)
def test_covers_is_a_list_of_runs_and_only_a_control_takes_it(tmp_path, text, old, line, fragment):
    new = "covers: twin" if old.startswith("covers") else old + "        covers: [weak]\n"
    (tmp_path / "mine.yaml").write_text(text.replace(old, new))
    with pytest.raises(UserError) as caught:
        read_claims(tmp_path / "mine.yaml", extractors=["label_accuracy"])
    assert caught.value.line == line and fragment in caught.value.message
