"""Mistakes that used to surface after every unit had run are refused up front: one line, exit 2, nothing written.

Through the real CLI: two datasets or method labels under one name in any letter case (written
alike, or through a file's ``@relation``), a ``--timeout`` that is no positive finite number, a
run directory whose path the file system or SQLite cannot hold. A run folder written before the
name check existed still reports.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from mlhidden.cli import cli
from mlhidden.runs.store import STORE_FILE

ROWS = "0,1\n1,2\n0,3\n1,4\n{last},5\n1,6\n"


def arff(path: Path, relation: str, last: int = 0) -> Path:
    """A six-row MEKA ARFF file with one label and one feature, named by ``relation``."""
    path.write_text(
        f"@relation '{relation}: -C 1'\n@attribute l {{0,1}}\n@attribute x numeric\n@data\n" + ROWS.format(last=last)
    )
    return path


def refused(args: list[str], out: Path) -> str:
    """Run ``mlhidden ARGS``: it must end with one error line and exit code 2, with no run directory made."""
    result = CliRunner().invoke(cli, args)
    assert isinstance(result.exception, SystemExit), f"escaped: {result.exception!r}"
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert not out.exists(), "the run directory was made"
    return result.stderr


def test_datasets_written_alike_in_another_case_are_refused_before_anything_is_read(tmp_path):
    out = tmp_path / "run"
    line = refused(["run", "-d", "Music", "-d", "music", "-m", "BR", "--out", str(out)], out)
    assert line == (
        "error: dataset 'music' is 'Music' again in another letter case "
        "(list each dataset once, or give each entry a distinct 'label')\n"
    )


@pytest.mark.parametrize("second", ["Same", "same"])
def test_two_files_with_one_relation_are_refused_naming_both(tmp_path, second):
    first_file, second_file = arff(tmp_path / "a.arff", "Same"), arff(tmp_path / "b.arff", second, last=1)
    out = tmp_path / "run"
    line = refused(["run", "-d", str(first_file), "-d", str(second_file), "-m", "BR", "--out", str(out)], out)
    assert f"the datasets '{first_file}' and '{second_file}' are " in line
    assert ("both named 'Same'" if second == "Same" else "named 'Same' and 'same'") in line


def test_a_label_and_a_files_relation_alike_are_refused(tmp_path):
    config = tmp_path / "run.yaml"
    arff(tmp_path / "a.arff", "music")
    config.write_text("datasets: [Music, {name: a.arff}]\nmethods: [BR]\nsplits: 2\n")
    out = tmp_path / "run"
    line = refused(["run", "--config", str(config), "--out", str(out)], out)
    assert "the datasets 'Music' and '" in line and "named 'Music' and 'music'" in line


def test_method_labels_alike_in_another_case_are_refused(tmp_path):
    out = tmp_path / "run"
    args = ["run", "-d", "Logical", "-m", "BR", "-m", "CC", "--label", "x", "--label", "X", "--out", str(out)]
    assert refused(args, out) == (
        "error: method 'X' is 'x' again in another letter case (give each entry a distinct 'label')\n"
    )


@pytest.mark.parametrize("seconds", ["nan", "inf", "-inf", "0", "-1", "1e400", "soon"])
def test_timeout_takes_only_a_positive_finite_number(tmp_path, seconds):
    out = tmp_path / "run"
    result = CliRunner().invoke(cli, ["run", "-d", "Logical", "-m", "BR", "--timeout", seconds, "--dry-run"])
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines()[-1].startswith(f"Error: Invalid value for '--timeout': '{seconds}' is not a")
    assert not out.exists()


def test_a_timeout_in_range_still_runs():
    result = CliRunner().invoke(cli, ["run", "-d", "Logical", "-m", "BR", "--timeout", "0.5", "--dry-run"])
    assert result.exit_code == 0, result.output


def test_a_folder_name_too_long_for_the_file_system_is_refused_before_any_work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = arff(tmp_path / "a.arff", "A")
    (tmp_path / "long.yaml").write_text(f"name: {'n' * 300}\ndatasets: [a.arff]\nmethods: [BR]\nsplits: 2\n")
    line = refused(["run", "--config", "long.yaml"], tmp_path / "results")
    assert line == (
        f"error: the run directory's folder name '{'n' * 40}...' is 300 bytes, and this file system allows 255 "
        "(shorten 'name' in long.yaml, or give --out DIR)\n"
    )
    out = tmp_path / "x" / ("o" * 300)
    line = refused(["run", "-d", str(data), "-m", "BR", "--out", str(out)], tmp_path / "x")
    assert "is 300 bytes, and this file system allows 255 (give a shorter --out)" in line


@pytest.mark.parametrize("length", [600, 5000])
def test_a_path_too_long_for_the_results_store_is_refused_before_any_work(tmp_path, length):
    data = arff(tmp_path / "a.arff", "A")
    top = tmp_path / "deep"
    out = top.joinpath(*["d" * 99] * (length // 100))
    line = refused(["run", "-d", str(data), "-m", "BR", "--out", str(out), "--dry-run"], top)
    assert f"is a path of {len(str(out).encode()):,} bytes, and its results store needs one of at most " in line


def test_a_run_folder_written_before_the_name_check_still_reports(tmp_path):
    """As an older version left two files with one @relation run together: one dataset row, every unit stored."""
    out = tmp_path / "run"
    entries, checksums = [], set()
    for name, last in (("a", 0), ("b", 1)):
        data = arff(tmp_path / f"{name}.arff", "Same", last)
        result = CliRunner().invoke(cli, ["run", "-d", str(data), "-m", "BR", "--splits", "2", "--out", str(out), "-q"])
        assert result.exit_code == 0, result.output
        with sqlite3.connect(out / STORE_FILE) as conn:
            config = json.loads(conn.execute("SELECT value FROM meta WHERE key='config'").fetchone()[0])
            checksums |= {row[0] for row in conn.execute("SELECT dataset_sha256 FROM units")}
        entries += config["datasets"]
    assert len(checksums) == 2
    config["datasets"] = entries
    with sqlite3.connect(out / STORE_FILE) as conn:
        conn.execute("UPDATE meta SET value=? WHERE key='config'", (json.dumps(config),))
        conn.execute("UPDATE meta SET value=? WHERE key='dataset_order'", (json.dumps(["Same", "Same"]),))
    conn.close()

    result = CliRunner().invoke(cli, ["report", str(out)])
    assert result.exit_code == 0, result.output
    assert [line.split()[0] for line in result.output.splitlines() if line.startswith("Same ")] == ["Same"] * 3
    assert "2 stored unit(s) are not in these tables" in result.output


def test_an_unknown_control_method_is_refused_before_the_units_run(tmp_path):
    out = tmp_path / "run"
    args = ["run", "-d", "Logical", "-m", "BR", "-m", "CC", "--stats", "--control", "CCC", "--out", str(out)]
    assert refused(args, out) == "error: unknown control method 'CCC' (did you mean 'CC'? choose one of: BR, CC)\n"


@pytest.mark.parametrize("command", ["reproduce", "sensitivity"])
def test_the_study_commands_refuse_an_out_too_long_before_any_work(tmp_path, command):
    top = tmp_path / "study"
    line = refused([command, "--quick", "--out", str(top / ("s" * 300))], top)
    assert line.endswith("is 300 bytes, and this file system allows 255 (give a shorter --out)\n")
