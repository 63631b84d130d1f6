"""``mlhidden claims FILE RUN_DIR``: a user's own claims checked on a user's own run, from an empty folder."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from own_claims import USER_CLAIMS
from own_data import write_own_arff

from mlhidden.claims.multiverse import MULTIVERSE_FILE
from mlhidden.claims.result_files import CSV_FILE
from mlhidden.cli import cli
from mlhidden.io import STORE_FILE
from mlhidden.paper.multiverse_claims import CLAIMS_MULTIVERSE_FILE, declared_closest
from mlhidden.paper.multiverse_runs import MULTIVERSE_DIR
from mlhidden.stats.uncertainty import VERDICTS
from mlhidden.yaml_lines import MAX_VALUES


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
        assert f"  {row.subclaim}  {row.role}  {row.verdict}: {row.says}" in result.output
        assert row.deciding in result.output
    document = json.loads((tmp_path / "claims.json").read_text())
    assert [c["claim"] for c in document] == ["A", "B"]
    assert document[1]["subclaims"][0]["claimed_high"] == pytest.approx(0.6931, abs=1e-4)  # log 2
    assert "2 claims:" in result.output and "2 sub-claims:" in result.output


@pytest.mark.parametrize(
    "change, line, fragment",
    [
        (("unit: splits\n  - id: B", "unit: split\n  - id: B"), 10, "unknown unit 'split' (did you mean 'splits'?"),
        (("[BR_phi, BR]", "[BRphi, BR]"), 8, "run 'mine' has no method 'BRphi' (did you mean 'BR_phi'?"),
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


def _refused(user_run, tmp_path, text, *runs):
    """The one output line of ``mlhidden claims`` refusing ``text`` (exit 2, no traceback, nothing written)."""
    path = tmp_path / "my_claims.yaml"
    path.write_text(text)
    result = CliRunner().invoke(cli, ["claims", str(path), *(map(str, runs or [user_run])), "--out", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and "Traceback" not in result.output, result.output
    assert not (tmp_path / "claims.csv").exists()
    return result.output


HUGE = "1" + "0" * 400


@pytest.mark.parametrize(
    "change, line, fragment",
    [
        (("smallest_effect: 0.01", "smallest_effect: .inf"), 9, "'smallest_effect' must be a finite number, not inf"),
        (("smallest_effect: 0.01", "smallest_effect: -.inf"), 9, "'smallest_effect' must be a finite number"),
        (("size: 2", "size: .inf"), 19, "'size' must be a finite number, not inf"),
        (("smallest_effect: 0.01", f"smallest_effect: {HUGE}"), 9, "'smallest_effect' must be a finite number"),
        (("size: 2", f"size: {HUGE}"), 19, "'size' must be a finite number, not 1000"),
        (("        smallest_effect", f"        factor: {HUGE}\n        smallest_effect"), 9,
         "'factor' must be a finite number"),
    ],
)
def test_a_number_of_a_claims_file_is_finite(user_run, tmp_path, change, line, fragment):
    output = _refused(user_run, tmp_path, USER_CLAIMS.replace(*change))
    assert f"my_claims.yaml:{line}: {fragment}" in output


@pytest.mark.parametrize("column", ["method", "dataset", "split", "status", "label", "params_hash", "n_warnings"])
def test_a_column_that_is_no_metric_is_refused_at_the_metric(user_run, tmp_path, column):
    output = _refused(user_run, tmp_path, USER_CLAIMS.replace("metric: exact_match", f"metric: {column}"))
    assert f"my_claims.yaml:7: run 'mine' has no metric '{column}'" in output and "exact_match" in output
    close = _refused(user_run, tmp_path, USER_CLAIMS.replace("metric: exact_match", "metric: exact_mach"))
    assert "my_claims.yaml:7: run 'mine' has no metric 'exact_mach' (did you mean 'exact_match'?" in close


RANKS_CLAIMS = """\
claims:
  - id: R
    about: BR_phi ranks best
    subclaims:
      - id: R.1
        says: BR_phi ranks above BR and CC
        metric: exact_match
        ranks: {control: BR_phi}
        methods: [BR_phi, BR, CC]
        unit: datasets
"""


@pytest.mark.parametrize(
    "change, line, fragment",
    [
        (("[BR_phi, BR, CC]", "[BR_phi]"), 9, "ranks need at least two methods in 'methods'"),
        (("[BR_phi, BR, CC]", "[BR, CC]"), 8, "the control 'BR_phi' is not one of 'methods'"),
        (("{control: BR_phi}", "{control: BR_phi, than: [LP]}"), 8, "'LP' in 'than' is not one of 'methods'"),
        (("{control: BR_phi}", "{control: BR_phi, than: [BR_phi]}"), 8, "'than' names the control 'BR_phi'"),
        (("[BR_phi, BR, CC]", "[BR_phi, BR, BR]"), 9, "'methods' names 'BR' twice"),
        (("unit: datasets", "unit: splits"), 10, "a ranks sub-claim has unit datasets"),
        (("unit: datasets", "direction: within\n        unit: datasets"), 10, "a ranks sub-claim has direction"),
    ],
)
def test_a_ranks_sub_claim_names_two_methods_or_more_once_each(user_run, tmp_path, change, line, fragment):
    output = _refused(user_run, tmp_path, RANKS_CLAIMS.replace(*change))
    assert f"my_claims.yaml:{line}: {fragment}" in output


def test_a_ranks_sub_claim_is_decided(user_run, tmp_path):
    (tmp_path / "r.yaml").write_text(RANKS_CLAIMS)
    result = CliRunner().invoke(cli, ["claims", str(tmp_path / "r.yaml"), str(user_run), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output


EXTRACTED = """\
claims:
  - id: E
    about: evidence a store row does not hold
    subclaims:
      - id: E.1
        says: our values are close to the paper's
        extractor: {extractor}
        params: {params}
        value: gap
        direction: within
        size: [-0.1, 0.1]
        reading: "'close' read as within 0.1"
        unit: datasets
"""


@pytest.mark.parametrize(
    "extractor, params, line, fragment",
    [
        ("paper_gap", "{table: logicl}", 8, "extractor 'paper_gap': the paper has no table 'logicl' (did you mean "
                                            "'logical'? give params: {table: logical})"),
        ("paper_gap", "{}", 7, "extractor 'paper_gap': the paper has no table 'mine'"),
        ("paper_gap", "{table: logical, tabel: x}", 8, "extractor 'paper_gap': unknown key 'tabel' in params"),
        ("chain_accuracy", "{}", 7, "extractor 'chain_accuracy': needs params: {dataset: NAME, summary: rise or mean}"),
        ("chain_accuracy", "{dataset: Medical, summary: raise}", 8,
         "extractor 'chain_accuracy': unknown summary 'raise' (did you mean 'rise'?"),
    ],
)
def test_the_papers_extractors_on_another_run_are_one_line(user_run, tmp_path, extractor, params, line, fragment):
    output = _refused(user_run, tmp_path, EXTRACTED.format(extractor=extractor, params=params))
    assert f"my_claims.yaml:{line}: {fragment}" in output


def test_an_extractor_without_run_uses_the_one_run_given(user_run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "e.yaml").write_text(EXTRACTED.format(extractor="chain_accuracy", params="{dataset: Logical}"))
    result = CliRunner().invoke(cli, ["claims", "e.yaml", str(user_run), "--out", "."])
    assert result.exit_code == 0, result.output
    assert pd.read_csv("claims.csv").loc[0, "deciding"] == "no per-label refits of Logical in run 'mine'"


def test_the_papers_time_ratios_on_methods_it_never_timed_are_one_line(user_run, tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "paper").symlink_to(user_run)
    about = "    about: CC is no slower"
    text = USER_CLAIMS.replace(about, "    notes: [paper_time_ratios]\n" + about)
    text = text.replace("ratio: [CC, BR]", "run: paper\n        ratio: [BR_phi, BR]")
    output = _refused(user_run, tmp_path, text, tmp_path / "runs")
    assert "my_claims.yaml:12: note 'paper_time_ratios': the paper's time table has no method 'BR_phi'" in output


def test_a_misspelt_dataset_is_refused_with_a_guess(user_run, tmp_path):
    unit = "        unit: splits\n  - id: B"
    text = USER_CLAIMS.replace(unit, "        datasets: [Logicl]\n" + unit)
    output = _refused(user_run, tmp_path, text)
    assert "my_claims.yaml:10: run 'mine' has no dataset 'Logicl' (did you mean 'Logical'? its datasets: Logical)" \
        in output
    named = USER_CLAIMS.replace(unit, "        datasets:\n          names: [Logical, Scene]\n" + unit)
    assert "my_claims.yaml:11: run 'mine' has no dataset 'Scene'" in _refused(user_run, tmp_path, named)
    grouped = USER_CLAIMS.replace(unit, "        datasets: {group: real}\n" + unit)
    refused = _refused(user_run, tmp_path, grouped)
    assert "my_claims.yaml:10: run 'mine' has no group 'real' (its groups: Logical)" in refused


def test_a_claim_on_an_arff_given_by_path_names_it_as_the_tables_do(tmp_path, monkeypatch):
    """The tables name a file given by path by its @relation; a claim naming that is decided, like the t-test."""
    monkeypatch.chdir(tmp_path)
    write_own_arff(tmp_path / "data" / "Sensors.arff", relation="Sensors")
    run = ["run", "-d", "data/Sensors.arff", "-m", "BR", "-m", "CC", "--splits", "3", "--out", "mine", "-q"]
    assert CliRunner().invoke(cli, [*run, "--n-jobs", "1"]).exit_code == 0
    text = USER_CLAIMS.replace("[BR_phi, BR]", "[CC, BR]").replace(
        "        unit: splits\n  - id: B", "        datasets: [Sensors]\n        unit: splits\n  - id: B"
    )
    (tmp_path / "my_claims.yaml").write_text(text)
    result = CliRunner().invoke(cli, ["claims", "my_claims.yaml", "mine"])
    assert result.exit_code == 0, result.output
    assert "n = 3 splits of Sensors)" in result.output and "not evaluated" not in result.output


@pytest.mark.parametrize(
    "change, line, fragment",
    [
        (("        smallest_effect: 0.01\n", "        smallest_effect: 0.01\n        ratio: [BR, CC]\n"), 10,
         "a sub-claim names exactly one of value, difference, ratio, ranks"),
        (("id: B.1", "id: A.1"), 14, "id 'A.1' is used twice"),
        (("  - id: B\n", "  - id: A\n"), 11, "id 'A' is used twice"),
        (("        unit: splits\n  - id: B", "        direction: within\n        unit: splits\n  - id: B"), 10,
         "direction 'within' needs size: [low, high]"),
    ],
)
def test_an_error_is_at_the_line_of_the_key_that_is_wrong(user_run, tmp_path, change, line, fragment):
    output = _refused(user_run, tmp_path, USER_CLAIMS.replace(*change))
    assert f"my_claims.yaml:{line}: {fragment}" in output


@pytest.mark.parametrize("kind, make", [
    ("a named pipe", lambda path: os.mkfifo(path)),
    ("a character device", lambda path: path.symlink_to("/dev/zero")),
])
def test_a_claims_file_that_is_no_regular_file_says_what_it_is(user_run, tmp_path, kind, make):
    path = tmp_path / "my_claims.yaml"
    make(path)
    result = CliRunner().invoke(cli, ["claims", str(path), str(user_run), "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert result.output == f"error: {path}: the claims file is {kind}, not a regular file (give the path of a " \
                            "claims file)\n"


def test_a_claims_file_in_another_encoding_is_called_a_claims_file(user_run, tmp_path):
    path = tmp_path / "my_claims.yaml"
    path.write_bytes(USER_CLAIMS.replace("BR_phi beats", "BR_phi b\xe9ats").encode("latin-1"))
    result = CliRunner().invoke(cli, ["claims", str(path), str(user_run), "--out", str(tmp_path)])
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert f"{path}: cannot read the claims file as UTF-8" in result.output and "config" not in result.output


def test_a_large_claims_file_without_aliases_is_read_and_an_alias_bomb_is_not(user_run, tmp_path):
    claim = USER_CLAIMS.split("\n", 1)[1].split("  - id: B")[0]  # 9 lines, 22 values
    count = MAX_VALUES // 20
    claims = [claim.replace("id: A", f"id: A{i}") for i in range(count)]
    claims[-1] = claims[-1].replace("unit: splits", "unit: split")
    output = _refused(user_run, tmp_path, "claims:\n" + "".join(claims))
    assert f"my_claims.yaml:{1 + count * 9}: unknown unit 'split'" in output
    bomb = "".join(f"{c}: &{c} [{', '.join(['*' + p] * 10 if p else ['x'] * 10)}]\n"
                   for p, c in zip(["", *"abcdefgh"], "abcdefghi"))
    refused = _refused(user_run, tmp_path, bomb)
    assert f"my_claims.yaml:5: aliases expand this file by more than {MAX_VALUES:,} values" in refused


def test_the_help_points_to_what_an_installed_wheel_has_not_to_a_checkouts_docs_folder():
    """A wheel has no docs/ folder: the help names the shipped claims file to start from instead."""
    text = CliRunner().invoke(cli, ["claims", "--help"]).output
    assert "docs/" not in text and "mlhidden init --from claims" in text


def test_the_paper_claims_are_rechecked_from_a_fresh_clone(tmp_path, monkeypatch):
    """What a clone has (the committed results, not the git-ignored stores) gives the committed verdict table."""
    root = Path(__file__).resolve().parents[2]
    shutil.copytree(root / "results", tmp_path / "results",
                    ignore=shutil.ignore_patterns(f"{STORE_FILE}*", "shared_fits", "index.html", "figures"))
    assert not list((tmp_path / "results").glob(f"*/{STORE_FILE}"))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["claims", str(root / "configs" / "claims.yaml"), "results/", "--out", "out"])
    assert result.exit_code == 0, result.output
    committed, rechecked = pd.read_csv(root / "results" / CSV_FILE), pd.read_csv(tmp_path / "out" / CSV_FILE)
    assert list(rechecked["subclaim"]) == list(committed["subclaim"])
    assert list(rechecked["verdict"]) == list(committed["verdict"])
    pd.testing.assert_frame_equal(rechecked, committed, check_exact=False, rtol=1e-9)
    for row in committed.itertuples():
        line = f"control {row.subclaim}  " if row.role == "control" else f"  {row.subclaim}  {row.role}  "
        assert f"{line}{row.verdict}: " in result.output


def test_the_committed_multiverse_verdicts_are_rederived_from_a_fresh_clone(tmp_path, monkeypatch):
    """The worlds of the primary setting and of the one closest to the paper (every seed of the paper run),
    copied as a clone has them, give their rows of the committed ``claims_multiverse.csv`` again: the docs'
    ``mlhidden claims claims.yaml --multiverse PRIMARY WORLDS...``."""
    root = Path(__file__).resolve().parents[2]
    committed_dir = root / "results" / MULTIVERSE_DIR
    settings = ["j_paper_era", declared_closest()]
    for setting in settings:
        shutil.copytree(committed_dir / setting, tmp_path / setting,
                        ignore=shutil.ignore_patterns(f"{STORE_FILE}*", "shared_fits"))
    assert not list(tmp_path.glob(f"*/*/*/{STORE_FILE}"))
    monkeypatch.chdir(tmp_path)
    worlds = sorted(f"{setting}/{seed.name}" for setting in settings for seed in (tmp_path / setting).iterdir())
    result = CliRunner().invoke(cli, ["claims", str(root / "configs" / "claims.yaml"), "--multiverse",
                                      "j_paper_era/seed0", *worlds, "--out", "out"])
    assert result.exit_code == 0, result.output
    key = ["claim", "world", "reading", "multiplicity"]
    rederived = pd.read_csv(tmp_path / "out" / MULTIVERSE_FILE).sort_values(key).reset_index(drop=True)
    committed = pd.read_csv(committed_dir / CLAIMS_MULTIVERSE_FILE)
    committed = committed[committed["world"].isin(worlds)].sort_values(key).reset_index(drop=True)
    assert set(rederived["world"]) == set(worlds) and len(worlds) >= 10
    pd.testing.assert_frame_equal(rederived, committed, check_exact=False, rtol=1e-9)
