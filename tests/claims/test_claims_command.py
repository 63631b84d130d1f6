"""``mlhidden claims FILE RUN_DIR``: a user's own claims checked on a user's own run, from an empty folder."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from click.testing import CliRunner

from mlhidden.cli import cli
from mlhidden.report.uncertainty import VERDICTS

USER_CLAIMS = """\
claims:
  - id: A
    about: a basis expansion lets BR learn Logical
    subclaims:
      - id: A.1
        says: BR_phi beats BR on exact match
        metric: exact_match
        difference: [BR_phi, BR]
        smallest_effect: 0.01
        unit: splits
  - id: B
    about: CC is no slower than twice BR
    subclaims:
      - id: B.1
        says: CC takes less than twice BR's time
        metric: total_seconds
        ratio: [CC, BR]
        direction: below
        size: 2
        reading: "'no slower than 2x' read as a time ratio below 2"
        unit: splits
"""


@pytest.fixture(scope="module")
def user_run(tmp_path_factory):
    """A tiny real run of the user's: BR, CC and BR_phi on Logical, 4 splits."""
    folder = tmp_path_factory.mktemp("user")
    config = folder / "mine.yaml"
    config.write_text("name: mine\ndatasets: [Logical]\nmethods: [BR, CC, BR_phi]\nsplits: 4\nseed: 0\n")
    result = CliRunner().invoke(
        cli, ["run", "--config", str(config), "--out", str(folder / "mine"), "--n-jobs", "1", "--quiet"]
    )
    assert result.exit_code == 0, result.output
    return folder / "mine"


def test_claims_runs_from_an_empty_folder_on_a_users_run(user_run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my_claims.yaml").write_text(USER_CLAIMS)
    result = CliRunner().invoke(cli, ["claims", "my_claims.yaml", str(user_run), "--out", "."])
    assert result.exit_code == 0, result.output
    rows = pd.read_csv(tmp_path / "claims.csv")
    assert list(rows["subclaim"]) == ["A.1", "B.1"]
    assert set(rows["verdict"]) <= set(VERDICTS)
    assert list(rows["unit"]) == ["splits", "splits"] and list(rows["n"]) == [4, 4]
    assert rows.loc[1, "test"] == "corrected resampled t" and rows.loc[1, "ratio"]
    for row in rows.itertuples():
        assert f"  {row.subclaim}  {row.verdict}: {row.says}" in result.output
        assert row.deciding in result.output
    document = json.loads((tmp_path / "claims.json").read_text())
    assert [c["claim"] for c in document] == ["A", "B"]
    assert document[1]["subclaims"][0]["claimed_high"] == pytest.approx(0.6931, abs=1e-4)  # log 2
    assert "2 claims:" in result.output and "2 sub-claims:" in result.output


@pytest.mark.parametrize(
    "change, line, fragment",
    [
        (("unit: splits\n  - id: B", "unit: split\n  - id: B"), 10, "unknown unit 'split' (did you mean 'splits'?"),
        (("[BR_phi, BR]", "[BRphi, BR]"), 5, "run 'mine' has no method 'BRphi' (did you mean 'BR_phi'?"),
        (("        smallest_effect: 0.01\n", ""), 5, "a sub-claim without a size needs smallest_effect"),
        (("        reading: \"'no slower than 2x' read as a time ratio below 2\"\n", ""), 19,
         "a claimed size needs 'reading'"),
    ],
)
def test_a_mistake_in_a_claims_file_is_one_line_at_its_line(user_run, tmp_path, monkeypatch, change, line, fragment):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "my_claims.yaml"
    path.write_text(USER_CLAIMS.replace(*change))
    result = CliRunner().invoke(cli, ["claims", str(path), str(user_run)])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "Traceback" not in result.output
    assert f"my_claims.yaml:{line}:" in result.output and fragment in result.output, result.output
    assert not (tmp_path / "claims.csv").exists()


def test_a_folder_without_runs_is_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my_claims.yaml").write_text(USER_CLAIMS)
    (tmp_path / "empty").mkdir()
    result = CliRunner().invoke(cli, ["claims", "my_claims.yaml", "empty"])
    assert result.exit_code == 2 and "empty: no stored run here" in result.output


def test_a_folder_of_runs_is_searched_and_a_run_not_given_is_not_evaluated(user_run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "my_claims.yaml"
    metric = "        metric: total_seconds\n"
    path.write_text(USER_CLAIMS.replace(metric, "        run: theirs\n" + metric))
    result = CliRunner().invoke(cli, ["claims", str(path), str(user_run.parent), "--out", "out"])
    assert result.exit_code == 0, result.output
    rows = pd.read_csv(tmp_path / "out" / "claims.csv")
    assert rows.loc[0, "verdict"] in VERDICTS
    assert rows.loc[1, "verdict"] == "not evaluated" and rows.loc[1, "deciding"] == "no results for run 'theirs'"
