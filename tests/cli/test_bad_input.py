"""The bad-input corpus (tests/fixtures/bad/cases.yaml) through the real CLI.

Every case must give exit code 2, exactly its expected line on stderr, nothing on stdout, no
traceback, and leave an existing results store byte for byte as it was.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from sklearn.linear_model import LogisticRegression

from mlhidden.cli import cli
from mlhidden.data import catalog_entries
from mlhidden.data.generators import GENERATORS
from mlhidden.methods.registry import METHODS
from mlhidden.runs.store import STORE_FILE

BAD = Path(__file__).resolve().parents[1] / "fixtures" / "bad"
CASES = yaml.safe_load((BAD / "cases.yaml").read_text(encoding="utf-8"))["cases"]
ARFF_SUFFIXES = (".arff", ".arff.bz2", ".arff.gz")


def _invocations():
    """(id, case, how) for every way a case is tried: ARFF files through ``run`` and ``datasets info``."""
    for case in CASES:
        if "args" in case:
            name = re.sub(r"[^a-z0-9]+", "-", case["what"].lower()).strip("-")
            ways = [("args", name)]
        elif case["file"].endswith(ARFF_SUFFIXES):
            ways = [("run-arff", f"{case['file']}-run"), ("info", f"{case['file']}-info")]
        else:
            ways = [("run-config", case["file"])]
        for how, name in ways:
            marks = [pytest.mark.xfail(strict=True, reason=case["xfail"])] if "xfail" in case else []
            yield pytest.param(case, how, id=name, marks=marks)


INVOCATIONS = list(_invocations())


def _command(case, how, store: Path, scratch: Path) -> list[str]:
    if how == "args":
        return [_fill(arg, store) for arg in case["args"]]
    file = BAD / case["file"]
    if how == "info":
        return ["datasets", "info", str(file)]
    if how == "run-arff":
        config = scratch / "uses_the_file.yaml"
        config.write_text(f"datasets: ['{file}']\nmethods: [BR]\nsplits: 2\n")
        return ["run", "--config", str(config), "--out", str(store)]
    return ["run", "--config", str(file), "--out", str(store)]


def _fill(text: str, store: Path) -> str:
    """The case's text with its placeholders replaced (registries' lists are read live)."""
    values = {
        "{bad}": str(BAD),
        "{store}": str(store),
        "{methods}": ", ".join(METHODS),
        "{datasets}": ", ".join([entry.name for entry in catalog_entries()] + list(GENERATORS)),
        "{logistic_params}": ", ".join(sorted(LogisticRegression().get_params())),
    }
    for placeholder, value in values.items():
        text = text.replace(placeholder, value)
    return text


def _snapshot(folder: Path) -> dict:
    """Every file below ``folder`` with its bytes and modification time: what "untouched" means."""
    return {
        str(path.relative_to(folder)): (path.read_bytes(), path.stat().st_mtime_ns)
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    """A run directory written by a real, successful run: the store a bad command must not touch."""
    run_dir = tmp_path_factory.mktemp("finished") / "run"
    result = CliRunner().invoke(
        cli, ["run", "--config", str(BAD / "valid.yaml"), "--out", str(run_dir), "--n-jobs", "1", "-q"]
    )
    assert result.exit_code == 0, result.output
    assert (run_dir / STORE_FILE).is_file()
    return run_dir


@pytest.fixture
def existing_store(finished_run, tmp_path, monkeypatch):
    """A copy of the finished run, and the corpus folder as the working directory."""
    store = tmp_path / "run"
    shutil.copytree(finished_run, store)
    monkeypatch.chdir(BAD)
    return store


def _install_store(case, store: Path) -> None:
    """Replace the run's store with the case's own (raw bytes, or built by an SQL script)."""
    source = BAD / case["store"]
    target = store / STORE_FILE
    target.unlink()
    if source.suffix == ".sql":
        with sqlite3.connect(target) as conn:
            conn.executescript(source.read_text(encoding="utf-8"))
        conn.close()
    else:
        target.write_bytes(source.read_bytes())


def test_the_corpus_covers_the_issue(tmp_path):
    """At least 20 cases, each file present, each file used, each case with an error line."""
    assert len(CASES) >= 20
    used = {case.get("file") for case in CASES} | {case.get("store") for case in CASES}
    used |= {Path(_fill(arg, tmp_path)).name for case in CASES for arg in case.get("args", ())}
    for case in CASES:
        assert case["error"].startswith("error: ") and "\n" not in case["error"]
        for key in ("file", "store"):
            assert key not in case or (BAD / case[key]).is_file(), case[key]
    unused = {path.name for path in BAD.iterdir()} - used - {"cases.yaml"}
    assert unused <= {"single_row.arff"}, f"corpus files no case uses: {sorted(unused)}"  # single_row.yaml lists it


@pytest.mark.parametrize("case, how", INVOCATIONS)
def test_bad_input_gives_its_one_line_error_and_touches_nothing(case, how, existing_store, tmp_path):
    if "store" in case:
        _install_store(case, existing_store)
    before = _snapshot(existing_store)
    result = CliRunner().invoke(cli, _command(case, how, existing_store, tmp_path))
    assert isinstance(result.exception, SystemExit), f"escaped: {result.exception!r}"
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [_fill(case["error"], existing_store)]
    assert result.stdout == ""
    assert _snapshot(existing_store) == before, "the existing store was written to"


SUBPROCESS_CASES = ["ragged_rows.arff", "unknown_method.yaml", "store_schema_0.sql"]


@pytest.mark.parametrize("key", SUBPROCESS_CASES)
def test_real_process_prints_one_line_and_no_traceback(key, existing_store, tmp_path):
    """The same through ``python -m mlhidden``: what a user sees, without Click's test runner."""
    case = next(case for case in CASES if key in (case.get("file"), case.get("store")))
    how = "args" if "args" in case else "run-arff" if key.endswith(".arff") else "run-config"
    if "store" in case:
        _install_store(case, existing_store)
    before = _snapshot(existing_store)
    command = [sys.executable, "-m", "mlhidden", *_command(case, how, existing_store, tmp_path)]
    process = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=BAD)
    assert process.returncode == 2
    assert process.stderr.splitlines() == [_fill(case["error"], existing_store)]
    assert process.stdout == "" and "Traceback" not in process.stderr
    assert _snapshot(existing_store) == before


def test_labels_option_supplies_the_label_count(existing_store, tmp_path):
    """--labels N reads an ARFF file whose @relation has no -C (the corpus case without it)."""
    runner = CliRunner()
    info = runner.invoke(cli, ["datasets", "info", str(BAD / "no_label_count.arff"), "--labels", "1"])
    assert info.exit_code == 0, info.output
    assert re.search(r"^L\s+1$", info.stdout, re.MULTILINE) and re.search(r"^D\s+1$", info.stdout, re.MULTILINE)
    out = tmp_path / "labelled"
    config = str(BAD / "arff_without_label_count.yaml")
    run = runner.invoke(cli, ["run", "--config", config, "--out", str(out), "--labels", "1", "--n-jobs", "1", "-q"])
    assert run.exit_code == 0, run.output
    assert (out / STORE_FILE).is_file() and "no_label_count.arff [labels=1]" in (out / "exact_match.csv").read_text()
