"""A damaged or odd run directory through the real CLI: one line each, nothing stored is lost.

Real SQLite stores made by a real run, then broken the way a user or a crash breaks them: the
store path a folder, a garbage ``run.json``, a dropped table, a damaged prediction, a store cut
short, a writer killed with its rollback journal left hot; and a narrower command into a directory holding a wider run.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from stores import leave_hot_journal

from mlhidden.cli import cli
from mlhidden.runs.provenance import RUN_JSON
from mlhidden.runs.store import STORE_FILE

WIDE = ["-d", "Logical", "-m", "BR", "-m", "CC", "--splits", "3", "--n-jobs", "1", "-q"]
NARROW = ["-d", "Logical", "-m", "BR", "--splits", "2", "--n-jobs", "1", "-q"]


def invoke(*args):
    return CliRunner().invoke(cli, [str(arg) for arg in args])


def one_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1, (result.exit_code, result.stderr, result.exception)
    return lines[0]


def execute(run_dir: Path, statement: str, *parameters) -> None:
    with contextlib.closing(sqlite3.connect(run_dir / STORE_FILE)) as conn, conn:
        conn.execute(statement, parameters)


def stored(run_dir: Path) -> list:
    with contextlib.closing(sqlite3.connect(run_dir / STORE_FILE)) as conn:
        return conn.execute("SELECT method, split, status, finished_at FROM units ORDER BY method, split").fetchall()


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    run_dir = tmp_path_factory.mktemp("finished") / "run"
    result = invoke("run", *WIDE, "--out", run_dir)
    assert result.exit_code == 0, result.output
    return run_dir


@pytest.fixture
def run_dir(finished_run, tmp_path) -> Path:
    shutil.copytree(finished_run, tmp_path / "run")
    return tmp_path / "run"


@pytest.mark.parametrize("command", [["report"], ["run", *WIDE, "--out"]], ids=["report", "run"])
def test_a_store_path_that_is_a_folder_is_one_line(tmp_path, command):
    (tmp_path / "run" / STORE_FILE).mkdir(parents=True)
    line = one_line(invoke(*command, tmp_path / "run"))
    assert (
        line
        == f"error: {tmp_path / 'run' / STORE_FILE}: the results store is a folder, not a file "
        "(move the folder away, or choose another --out)"
    )


COMMANDS = {"report": ["report"], "metric": ["report", "--metric", "ranking_loss"], "run": ["run", *WIDE, "--out"]}


@pytest.mark.parametrize("command", COMMANDS.values(), ids=COMMANDS)
def test_a_store_that_is_a_pipe_is_refused_without_opening_it(run_dir, command):
    (run_dir / STORE_FILE).unlink()
    os.mkfifo(run_dir / STORE_FILE)
    ran = subprocess.run(  # a subprocess, so that opening the pipe would fail the test by its timeout, not hang it
        [sys.executable, "-m", "mlhidden", *command, str(run_dir)], capture_output=True, text=True, timeout=60
    )
    assert ran.returncode == 2 and ran.stderr == (
        f"error: {run_dir / STORE_FILE}: the results store is a named pipe, not a regular file "
        "(it holds no units: move it away, or choose another --out)\n"
    )


@pytest.mark.parametrize("command", COMMANDS.values(), ids=COMMANDS)
def test_a_store_symlinked_to_a_device_or_to_nothing_is_refused(run_dir, tmp_path, command):
    store = run_dir / STORE_FILE
    store.unlink()
    store.symlink_to(os.devnull)
    line = one_line(invoke(*command, run_dir))
    assert line.startswith(f"error: {store}: the results store is a symlink to {os.devnull}, a character device, not")
    assert not Path(os.devnull + "-journal").exists() and not Path(os.devnull + "-wal").exists()
    store.unlink()
    store.symlink_to(tmp_path / "elsewhere" / STORE_FILE)
    line = one_line(invoke(*command, run_dir))
    assert line.startswith(f"error: {store}: the results store is a symlink to {tmp_path / 'elsewhere'}")
    assert not (tmp_path / "elsewhere").exists()


def test_a_store_symlinked_to_a_store_is_followed_with_its_side_files_beside_it(run_dir, tmp_path):
    (tmp_path / "disk").mkdir()
    target = (run_dir / STORE_FILE).rename(tmp_path / "disk" / STORE_FILE)
    (run_dir / STORE_FILE).symlink_to(target)
    units = stored(run_dir)
    assert invoke("run", *WIDE, "-m", "LP", "--out", run_dir).exit_code == 0
    assert len(stored(run_dir)) == len(units) + 3 and (run_dir / STORE_FILE).is_symlink()
    assert invoke("report", run_dir).exit_code == 0
    assert sorted(path.name for path in run_dir.iterdir() if path.name.startswith(STORE_FILE)) == [STORE_FILE]


@pytest.mark.parametrize(
    "garbage", ["{garbage", "[1, 2]", '{"format": 1}', "\udcff"], ids=["not-json", "a-list", "no-keys", "not-utf8"]
)
def test_a_garbage_run_json_blocks_neither_report_nor_run(run_dir, garbage):
    (run_dir / RUN_JSON).write_bytes(garbage.encode("utf-8", "surrogateescape"))
    report = invoke("report", run_dir)
    assert report.exit_code == 0, (report.stderr, report.exception)
    (warning,) = report.stderr.strip().splitlines()
    assert warning.startswith(f"warning: {run_dir / RUN_JSON}: unreadable (")
    assert "provenance:" not in report.output
    run = invoke("run", *WIDE, "--out", run_dir)
    assert run.exit_code == 0, (run.stderr, run.exception)
    assert json.loads((run_dir / RUN_JSON).read_text())["status"] == "finished"


@pytest.mark.parametrize("command", [["report"], ["run", *WIDE, "--out"]], ids=["report", "run"])
def test_a_dropped_units_table_is_one_line(run_dir, command):
    execute(run_dir, "DROP TABLE units")
    before = (run_dir / STORE_FILE).read_bytes()
    line = one_line(invoke(*command, run_dir))
    damaged = (
        "the results store is damaged: its units table is missing (restore it from a backup, or choose another --out)"
    )
    assert line == f"error: {run_dir / STORE_FILE}: {damaged}"
    assert (run_dir / STORE_FILE).read_bytes() == before


LOST_TABLES = {"meta": "its meta table is missing, and it holds 6 units", "datasets": "its datasets table is missing"}


@pytest.mark.parametrize("table", LOST_TABLES)
def test_a_store_that_lost_a_table_is_damaged_and_repair_keeps_every_unit(run_dir, table):
    tables, units = (run_dir / "units.csv").read_bytes(), stored(run_dir)
    execute(run_dir, f"DROP TABLE {table}")
    before = (run_dir / STORE_FILE).read_bytes()
    commands = (["report", run_dir], ["export", run_dir, "--out", run_dir / "x.csv"], ["run", *WIDE, "--out", run_dir])
    for command in commands:
        line = one_line(invoke(*command))
        assert line == (
            f"error: {run_dir / STORE_FILE}: the results store is damaged: {LOST_TABLES[table]} "
            f"(`mlhidden store repair {run_dir}` rebuilds it from run.json, keeping every unit and a copy of "
            "the store as it is)"
        )
    assert (run_dir / STORE_FILE).read_bytes() == before
    repair = invoke("store", "repair", run_dir)
    assert repair.exit_code == 0 and f"rebuilt the {table} table from run.json" in repair.output, repair.output
    with contextlib.closing(sqlite3.connect(run_dir / f"{STORE_FILE}.before-repair")) as copy:
        assert table not in {row[0] for row in copy.execute("SELECT name FROM sqlite_master")}
        assert copy.execute("SELECT count(*) FROM units").fetchone() == (6,)
    assert invoke("report", run_dir).exit_code == 0 and stored(run_dir) == units
    assert (run_dir / "units.csv").read_bytes() == tables
    assert invoke("store", "repair", run_dir).output == f"nothing to repair: the results store in {run_dir} is sound\n"


def test_repair_leaves_a_store_of_an_unknown_schema_version_as_it_is(run_dir):
    execute(run_dir, "UPDATE meta SET value = '9' WHERE key = 'schema_version'")
    execute(run_dir, "UPDATE units SET status = 'weird' WHERE split = 0")
    before = (run_dir / STORE_FILE).read_bytes()
    line = one_line(invoke("store", "repair", run_dir))
    assert line == (
        f"error: {run_dir / STORE_FILE}: the results store has schema version 9, which this mlhidden cannot repair "
        "(read it with the mlhidden version that wrote it)"
    )
    assert (run_dir / STORE_FILE).read_bytes() == before and not (run_dir / f"{STORE_FILE}.before-repair").exists()


DAMAGES = {
    "text": ("UPDATE units SET hamming_score = 'abc' WHERE method = 'CC' AND split = 1", 1,
             "CC on Logical, split 1: its hamming_score holds 'abc', not a number"),
    "status": ("UPDATE units SET status = 'weird' WHERE method = 'CC' AND split = 1", 1,
               "CC on Logical, split 1: its status is 'weird', not ok or failed"),
}


@pytest.mark.parametrize("statement, n_damaged, damage", DAMAGES.values(), ids=DAMAGES)
def test_a_damaged_unit_is_named_and_repair_keeps_the_good_ones(run_dir, statement, n_damaged, damage):
    tables = (run_dir / "hamming_score.csv").read_bytes()
    execute(run_dir, statement)
    units = stored(run_dir)
    commands = (["report", run_dir], ["report", "--metric", "ranking_loss", run_dir], ["run", *WIDE, "--out", run_dir])
    for command in commands:
        line = one_line(invoke(*command))
        assert line == (
            f"error: {run_dir / STORE_FILE}: the results store is damaged in {n_damaged} of its 6 units ({damage}) "
            f"(`mlhidden store repair {run_dir}` mends it, keeping its {6 - n_damaged} good units and a copy of the "
            "store as it is)"
        )
    assert stored(run_dir) == units  # run neither computed the damaged unit again nor touched the others
    assert invoke("store", "repair", run_dir).exit_code == 0
    run = invoke("run", *WIDE, "--out", run_dir)
    assert run.exit_code == 0, run.stderr
    assert (run_dir / "hamming_score.csv").read_bytes() == tables
    assert [unit for unit in stored(run_dir) if unit[:2] != ("CC", 1)] == [u for u in units if u[:2] != ("CC", 1)]


def test_a_unit_is_reported_under_its_configs_label_not_its_stored_one(run_dir, tmp_path):
    tables = (run_dir / "hamming_score.csv").read_bytes()
    execute(run_dir, "UPDATE units SET label = 'BR' WHERE method = 'CC'")  # two methods under one stored label
    report = invoke("report", run_dir)
    assert report.exit_code == 0, (report.stderr, report.exception)
    assert (run_dir / "hamming_score.csv").read_bytes() == tables
    config = tmp_path / "relabelled.yaml"
    config.write_text("datasets: [Logical]\nmethods: [BR, {name: CC, label: chain}]\nsplits: 3\nn_jobs: 1\n")
    run = invoke("run", "--config", config, "--out", run_dir, "-q")
    assert run.exit_code == 0 and "0 unit(s) run, 6 already stored" in run.output, (run.output, run.exception)
    assert (run_dir / "hamming_score.csv").read_text().replace("chain", "CC").encode() == tables


def test_a_damaged_prediction_is_one_line_naming_the_unit(run_dir):
    execute(run_dir, "UPDATE predictions SET predicted = x'00' WHERE method = 'CC' AND split = 1")
    line = one_line(invoke("report", run_dir, "--metric", "ranking_loss"))
    assert line.startswith(
        f"error: {run_dir / STORE_FILE}: the results store is damaged: "
        "the predictions of CC on Logical (split 1) cannot be read"
    )
    assert "--fresh" not in line
    assert invoke("report", run_dir).exit_code == 0


def test_a_store_cut_short_is_called_damaged_not_foreign(run_dir):
    store = run_dir / STORE_FILE
    store.write_bytes(store.read_bytes()[:8192])
    line = one_line(invoke("report", run_dir))
    assert "the results store is damaged" in line and "--fresh" not in line and "not an SQLite" not in line


def test_a_narrower_command_does_not_rewrite_the_wider_runs_tables(run_dir):
    tables = {name: (run_dir / name).read_bytes() for name in ("units.csv", "tables.md", RUN_JSON)}
    units = stored(run_dir)
    line = one_line(invoke("run", *NARROW, "--out", run_dir))
    assert "asks for 2 of the 6 units of the run stored here (BR, CC on Logical, 3 splits)" in line
    assert "--narrow" in line and "another --out" in line
    assert {name: (run_dir / name).read_bytes() for name in tables} == tables
    assert stored(run_dir) == units
    wider = invoke("run", *WIDE, "-m", "LP", "--out", run_dir)  # asking for more is resuming, as before
    assert wider.exit_code == 0, wider.stderr


def test_narrow_makes_the_narrower_command_the_directorys_run(run_dir):
    units = stored(run_dir)
    result = invoke("run", *NARROW, "--out", run_dir, "--narrow")
    assert result.exit_code == 0, result.stderr
    assert json.loads((run_dir / RUN_JSON).read_text())["units"]["total"] == 2
    assert "4 stored unit(s) are not in these tables" in result.output
    assert stored(run_dir) == units


CLAIMS = """\
claims:
  - id: C
    about: a chain helps on Logical
    subclaims:
      - id: C.1
        says: CC beats BR on exact match
        metric: exact_match
        difference: [CC, BR]
        smallest_effect: 0.01
        unit: splits
"""
READERS = {
    "report": lambda run_dir, out: ["report", run_dir, "--out", out],
    "export": lambda run_dir, out: ["export", run_dir, "--out", out / "units.csv"],
    "claims": lambda run_dir, out: ["claims", out.parent / "claims.yaml", run_dir, "--out", out],
}
UNCOMMITTED = "UPDATE units SET exact_match = 0.5, hamming_score = 0.5"


def csv_files(folder: Path) -> dict:
    return {path.name: path.read_bytes() for path in sorted(folder.glob("*.csv"))}


@pytest.mark.parametrize("reader", READERS.values(), ids=READERS)
def test_a_hot_journal_is_rolled_back_so_only_committed_values_are_read(run_dir, tmp_path, reader):
    (tmp_path / "claims.yaml").write_text(CLAIMS)
    (tmp_path / "committed").mkdir()
    assert invoke(*reader(run_dir, tmp_path / "committed")).exit_code == 0
    journal = leave_hot_journal(run_dir, UNCOMMITTED)
    with contextlib.closing(sqlite3.connect(f"file:{run_dir / STORE_FILE}?immutable=1", uri=True)) as conn:
        assert conn.execute("SELECT DISTINCT exact_match FROM units").fetchall() == [(0.5,)]  # the file, as left
    (tmp_path / "read").mkdir()
    result = invoke(*reader(run_dir, tmp_path / "read"))
    assert result.exit_code == 0, (result.stderr, result.exception)
    assert csv_files(tmp_path / "read") == csv_files(tmp_path / "committed") != {}
    assert not journal.exists()
    assert {row[0] for row in stored(run_dir)} == {"BR", "CC"} and len(stored(run_dir)) == 6


MISTYPED_RUN_JSON = {
    "unavailable-null": ("unavailable", None, "its 'unavailable' is null, not an object of dataset names to text"),
    "unavailable-lost": ("unavailable", ..., "its 'unavailable' is missing, not an object of dataset names to text"),
    "datasets-list": ("datasets", ["Logical"], "its 'datasets' is a list, not an object of dataset names to text"),
    "checksum-number": ("datasets", {"Logical": 7}, "its 'datasets' holds 7 for 'Logical', not text"),
    "started-at-number": ("started_at", 5, "its 'started_at' is a number, not text"),
    "config-text": ("config", "BR", "its 'config' is not a run's config this mlhidden reads (TypeError: "),
    "methods-null": ("config.methods", None, "its 'config' is not a run's config this mlhidden reads (TypeError: "),
}


@pytest.mark.parametrize("key, value, complaint", MISTYPED_RUN_JSON.values(), ids=MISTYPED_RUN_JSON)
def test_repair_with_a_mistyped_run_json_is_one_line_naming_the_field(run_dir, key, value, complaint):
    sound = (run_dir / RUN_JSON).read_text()
    run_json = json.loads(sound)
    field, _, inner = key.partition(".")
    holder = run_json[field] if inner else run_json
    if value is ...:
        del holder[inner or field]
    else:
        holder[inner or field] = value
    (run_dir / RUN_JSON).write_text(json.dumps(run_json))
    execute(run_dir, "DROP TABLE meta")
    before = (run_dir / STORE_FILE).read_bytes()
    line = one_line(invoke("store", "repair", run_dir))
    assert line.startswith(f"error: {run_dir / RUN_JSON}: {complaint}"), line
    assert line.endswith(
        "(correct it, or move it away to repair without it: re-running the run's command then records the config)"
    ), line
    assert (run_dir / STORE_FILE).read_bytes() == before and not (run_dir / f"{STORE_FILE}.before-repair").exists()
    (run_dir / RUN_JSON).write_text(sound)
    repair = invoke("store", "repair", run_dir)
    assert repair.exit_code == 0 and "rebuilt the meta table from run.json" in repair.output, repair.output
