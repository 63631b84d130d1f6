"""What ``mlhidden claims`` shows and writes: runs told apart by path, text from a file escaped for the
terminal, outputs written whole or not at all (or not at all without ``--out``), and the Friedman p of a
small design."""

from __future__ import annotations

import contextlib
import os
import subprocess

import pandas as pd
import pytest
from click.testing import CliRunner
from own_claims import USER_CLAIMS

from mlhidden.cli import cli
from mlhidden.runs.status import OK
from mlhidden.runs.store import load_results
from mlhidden.stats.friedman import friedman_exact_p


def _run(folder, config_text, splits):
    """A real run of ``config_text`` (name: mine) into ``folder/mine``."""
    config = folder / "mine.yaml"
    config.write_text(f"name: mine\n{config_text}splits: {splits}\nseed: 1\n")
    result = CliRunner().invoke(
        cli, ["run", "--config", str(config), "--out", str(folder / "mine"), "--n-jobs", "1", "--quiet"]
    )
    assert result.exit_code == 0, result.output
    return folder / "mine"


@pytest.fixture(scope="module")
def user_run(tmp_path_factory):
    """A run named ``mine``: BR, CC and BR_phi on Logical, 4 splits."""
    return _run(tmp_path_factory.mktemp("user"), "datasets: [Logical]\nmethods: [BR, CC, BR_phi]\n", 4)


@pytest.fixture(scope="module")
def two_dataset_run(tmp_path_factory):
    """Another run also named ``mine``, in another folder: BR, CC and BR_phi on Logical and a jittered Logical,
    3 splits."""
    datasets = "datasets: [Logical, {name: Logical, label: Logical-j, params: {jitter: 0.05}}]\n"
    return _run(tmp_path_factory.mktemp("theirs"), datasets + "methods: [BR, CC, BR_phi]\n", 3)


ONE_SUBCLAIM = """\
claims:
  - id: A
    about: BR_phi beats BR on Logical
    subclaims:
"""


def _subclaim(name, run):
    return f"""\
      - id: {name}
        says: BR_phi beats BR on exact match
        run: {run}
        metric: exact_match
        difference: [BR_phi, BR]
        smallest_effect: 0.01
        datasets: [Logical]
        unit: splits
"""


def test_two_runs_of_one_folder_name_are_told_apart_by_their_paths(user_run, two_dataset_run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "my_claims.yaml"
    runs = [str(user_run), str(two_dataset_run)]
    path.write_text(ONE_SUBCLAIM + _subclaim("A.1", runs[0]) + _subclaim("A.2", runs[1]))
    result = CliRunner().invoke(cli, ["claims", str(path), *runs, "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    rows = pd.read_csv(tmp_path / "out" / "claims.csv")
    assert list(rows["n"]) == [4, 3]  # each sub-claim decided on its own run's splits
    path.write_text(ONE_SUBCLAIM + _subclaim("A.1", "mine"))
    result = CliRunner().invoke(cli, ["claims", str(path), *runs])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stderr.count("\n") == 1 and "my_claims.yaml:5:" in result.stderr, result.output
    assert "two runs given are named 'mine'" in result.stderr
    assert f"run: {runs[0]}" in result.stderr and runs[1] in result.stderr


def test_the_same_run_given_twice_is_one_run(user_run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "my_claims.yaml"
    path.write_text(ONE_SUBCLAIM + _subclaim("A.1", "mine"))
    result = CliRunner().invoke(cli, ["claims", str(path), str(user_run), str(user_run.parent)])
    assert result.exit_code == 0, result.output


HOSTILE = {
    "id": r"A\e]0;window title\a\nFAKE  holds: everything",
    "about": r"colours \e[31mred\e[0m and a bell \a",
    "says": r"clipboard \e]52;c;ZXZpbA==\a",
}


def test_control_characters_and_newlines_from_a_claims_file_reach_the_terminal_escaped(user_run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "my_claims.yaml"
    text = USER_CLAIMS.replace("id: A\n", f"id: \"{HOSTILE['id']}\"\n")
    text = text.replace("about: a basis expansion lets BR learn Logical", f"about: \"{HOSTILE['about']}\"")
    path.write_text(text.replace("says: BR_phi beats BR on exact match", f"says: \"{HOSTILE['says']}\""))
    result = CliRunner().invoke(cli, ["claims", str(path), str(user_run)])
    assert result.exit_code == 0, result.output
    assert not any(char in result.output for char in "\x1b\x07\t\r")
    assert not any(line.startswith("FAKE") for line in result.output.splitlines())
    assert "A\\x1b]0;window title\\x07\\nFAKE  holds: everything  " in result.output
    assert "colours \\x1b[31mred\\x1b[0m and a bell \\x07" in result.output
    assert "clipboard \\x1b]52;c;ZXZpbA==\\x07" in result.output


@contextlib.contextmanager
def read_only_mount(path):
    """A real read-only tmpfs at ``path`` for the duration (root only; skipped where mounting is not allowed)."""
    path.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(path)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a read-only tmpfs here: {done.stderr.strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=True)


@pytest.mark.parametrize("out", ["read-only", "read-only/claims", "x" * 300, "x" * 300 + "/claims"])
def test_an_out_folder_that_cannot_be_written_is_one_line(user_run, tmp_path, monkeypatch, out):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my_claims.yaml").write_text(USER_CLAIMS)
    read_only = out.startswith("read-only")
    with read_only_mount(tmp_path / "read-only") if read_only else contextlib.nullcontext():
        result = CliRunner().invoke(cli, ["claims", "my_claims.yaml", str(user_run), "--out", out])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert result.stderr.count("\n") == 1 and "cannot write" in result.stderr, result.stderr
    assert "  A.1  " in result.stdout  # the verdicts computed are still shown


def test_claims_writes_no_file_when_one_destination_is_not_a_file(user_run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my_claims.yaml").write_text(USER_CLAIMS)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "claims.csv").write_text("kept\n")
    os.mkfifo(tmp_path / "out" / "claims.json")
    result = CliRunner().invoke(cli, ["claims", "my_claims.yaml", str(user_run), "--out", "out"])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output
    assert "claims.json: will not write over a named pipe" in result.stderr
    assert (tmp_path / "out" / "claims.csv").read_text() == "kept\n"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["claims.csv", "claims.json"]


def test_one_claim_is_counted_in_the_singular_and_nothing_is_written_without_out(user_run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my_claims.yaml").write_text(USER_CLAIMS.split("  - id: B\n")[0])
    result = CliRunner().invoke(cli, ["claims", "my_claims.yaml", str(user_run)])
    assert result.exit_code == 0, result.output
    assert "\n1 claim: " in result.output and "; 1 sub-claim: " in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my_claims.yaml"]
    assert "wrote" not in result.output


RANKS_CLAIM = """\
claims:
  - id: R
    about: BR_phi is best
    subclaims:
      - id: R.1
        says: BR_phi ranks above BR and CC on exact match
        metric: exact_match
        ranks: {control: BR_phi}
        methods: [BR, CC, BR_phi]
        unit: datasets
"""


def test_a_ranks_claim_on_two_datasets_prints_the_exact_friedman_p(two_dataset_run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ranks.yaml").write_text(RANKS_CLAIM)
    result = CliRunner().invoke(cli, ["claims", str(tmp_path / "ranks.yaml"), str(two_dataset_run)])
    assert result.exit_code == 0, result.output
    units = load_results(two_dataset_run).units
    scores = units[units["status"] == OK].pivot_table(index="dataset", columns="method", values="exact_match")
    ranks = scores[["BR", "CC", "BR_phi"]].rank(axis=1, ascending=False).to_numpy()
    assert f"Friedman exact p {friedman_exact_p(ranks):.2g}," in result.output, result.output


def test_a_ranks_claim_says_its_effect_is_an_average_rank_gap(two_dataset_run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ranks.yaml").write_text(RANKS_CLAIM)
    result = CliRunner().invoke(cli, ["claims", str(tmp_path / "ranks.yaml"), str(two_dataset_run)])
    assert result.exit_code == 0, result.output
    assert "each of 2 methods, average rank gap in exact_match: " in result.output, result.output
    assert "Bonferroni-Dunn against BR_phi; the rank section's Nemenyi CD compares all pairs" in result.output
