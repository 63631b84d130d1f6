"""Stopping a real ``mlhidden run`` process mid-run loses no finished unit, and re-running finishes it.

Ctrl-C (SIGINT to the whole process group, workers included) and SIGTERM stop cleanly: the
finished units are stored, the message says how to resume, the exit code is 128 + the signal.
A closed terminal's SIGHUP is a stop like SIGTERM. ``kill -9`` gives no chance to clean up; the store
must still be intact, and the workers must not outlive their parent. In every case the same
command then completes the run, and its tables equal those of a run that was never stopped. A
process dying inside a store write, between its insert and its commit, leaves the store as it was.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from stores import stored_units

from mlhidden.runs.store import STORE_FILE, ResultStore, load_results
from mlhidden.runs.units import UnitResult

N_SPLITS = 25
N_UNITS = 2 * N_SPLITS
CONFIG = f"name: stopme\ndatasets: [Logical]\nmethods: [BR, CC]\nsplits: {N_SPLITS}\n"
SCORES = ["dataset", "method", "split", "seed", "status", "exact_match", "hamming_score", "micro_f1", "macro_f1"]
TABLES = ("exact_match.csv", "hamming_score.csv", "exact_match.tex", "exact_match.md")


def _command(config: Path, out: Path, n_jobs: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "mlhidden",
        "run",
        "--config",
        str(config),
        "--out",
        str(out),
        "--n-jobs",
        str(n_jobs),
        "-q",
    ]


def _scores(run_dir: Path) -> pd.DataFrame:
    units = load_results(run_dir).units
    return units[SCORES].sort_values(["method", "split"]).reset_index(drop=True)


def _table(path: Path) -> list[str]:
    """A table's lines without its LaTeX comments (the provenance footer, with dates and timings)."""
    return [line for line in path.read_text().splitlines() if not line.startswith("%")]


@pytest.fixture(scope="module")
def config(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("config") / "stopme.yaml"
    path.write_text(CONFIG)
    return path


@pytest.fixture(scope="module")
def uninterrupted(config, tmp_path_factory) -> Path:
    run_dir = tmp_path_factory.mktemp("uninterrupted") / "run"
    subprocess.run(_command(config, run_dir, 2), check=True, capture_output=True, timeout=300)
    return run_dir


@pytest.mark.parametrize(
    "stop, whole_group, n_jobs",
    [
        pytest.param(signal.SIGINT, True, 2, id="ctrl-c"),
        pytest.param(signal.SIGTERM, False, 1, id="sigterm"),
        pytest.param(signal.SIGHUP, False, 2, id="hang-up"),
        pytest.param(signal.SIGKILL, False, 2, id="kill-9"),
    ],
)
def test_stopped_run_resumes_to_the_same_tables(stop, whole_group, n_jobs, config, uninterrupted, tmp_path):
    run_dir = tmp_path / "run"
    process = subprocess.Popen(
        _command(config, run_dir, n_jobs),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while stored_units(run_dir) < 5 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert process.poll() is None, "the run ended before it could be stopped"
        (os.killpg if whole_group else os.kill)(process.pid, stop)
        process.wait(timeout=120)
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # the workers a kill -9 of their parent leaves behind
        except ProcessLookupError:
            pass
        _, stderr = process.communicate(timeout=60)
    stored = stored_units(run_dir)
    assert 5 <= stored < N_UNITS, "the stop must land mid-run"
    with sqlite3.connect(run_dir / STORE_FILE) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

    if stop == signal.SIGKILL:
        assert process.returncode == -signal.SIGKILL, stderr
    else:
        assert process.returncode == 128 + stop, stderr
        assert "Traceback" not in stderr
        assert (
            f"interrupted: {stored} of {N_UNITS} units are stored in {run_dir}; re-run the same command to resume."
            in stderr
        )
        assert json.loads((run_dir / "run.json").read_text())["status"] == "interrupted"

    resumed = subprocess.run(_command(config, run_dir, n_jobs), capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert re.search(
        rf"^{N_UNITS - stored} unit\(s\) run, {stored} already stored, 0 failed", resumed.stderr, re.MULTILINE
    )
    pd.testing.assert_frame_equal(_scores(run_dir), _scores(uninterrupted))
    for table in TABLES:
        assert _table(run_dir / table) == _table(uninterrupted / table), table


CRASH_BEFORE_COMMIT = """
import json, os, sys
from mlhidden.runs.store import ResultStore
from mlhidden.runs.units import UnitResult


class CrashAtCommit:
    '''The store's connection, except that the process dies the moment a transaction would commit.'''

    def __init__(self, connection):
        self.connection = connection

    @property
    def in_transaction(self):
        return self.connection.in_transaction

    def execute(self, statement, *args):
        if statement == "COMMIT":
            os._exit(9)
        return self.connection.execute(statement, *args)


store = ResultStore(sys.argv[1])
store._conn = CrashAtCommit(store._conn)
key, fields = json.loads(sys.argv[2])
store.write_unit(tuple(key), UnitResult(**fields))
"""


def _unit(split: int) -> tuple[tuple, UnitResult]:
    key = ("Logical", "0" * 64, "BR", "p", split, split)
    return key, UnitResult(
        label="BR", params_json="{}", method_seed=None, label_order=None, status="ok", exact_match=0.5
    )


def _unit_json(split: int) -> str:
    key, result = _unit(split)
    return json.dumps([list(key), dataclasses.asdict(result)])


def test_a_crash_inside_a_write_leaves_the_store_as_it_was(tmp_path):
    """The process dies after inserting a unit but before committing: that unit is absent, the rest intact."""
    with ResultStore(tmp_path) as store:
        store.write_unit(*_unit(0))
    crashed = subprocess.run(
        [sys.executable, "-c", CRASH_BEFORE_COMMIT, str(tmp_path), _unit_json(1)], timeout=120
    )
    assert crashed.returncode == 9
    with sqlite3.connect(tmp_path / STORE_FILE) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    with ResultStore(tmp_path) as store:
        assert store.units()["split"].tolist() == [0]
        store.write_unit(*_unit(1))
        assert sorted(store.units()["split"]) == [0, 1]


class InterruptAtFirstCommit:
    """The store's connection, except that a signal's KeyboardInterrupt arrives as the first transaction commits."""

    def __init__(self, connection):
        self.connection, self.interrupted = connection, False

    @property
    def in_transaction(self):
        return self.connection.in_transaction

    def execute(self, statement, *args):
        if statement == "COMMIT" and not self.interrupted:
            self.interrupted = True
            raise KeyboardInterrupt
        return self.connection.execute(statement, *args)


def test_an_interrupt_inside_a_write_leaves_the_store_usable(tmp_path):
    """Ctrl-C landing between a unit's insert and its commit: that unit is in flight (not stored, as the
    run does not count it), and the run's closing writes still work."""
    with ResultStore(tmp_path) as store:
        store.write_unit(*_unit(0))
        connection, store._conn = store._conn, InterruptAtFirstCommit(store._conn)
        with pytest.raises(KeyboardInterrupt):
            store.write_unit(*_unit(1))
        store.set_meta("finished_at", "now")
        store._conn = connection
        assert store.get_meta("finished_at") == "now"
    with ResultStore(tmp_path) as store:
        assert store.units()["split"].tolist() == [0]


SLOW_TABLES = """
import sys, time
from pathlib import Path
import mlhidden.cli.run_commands as run_commands
from mlhidden.cli import main

writing = Path(sys.argv.pop(1))


def slow_tables(*args, **kwargs):
    writing.touch()
    time.sleep(120)


run_commands.write_and_print = slow_tables
main()
"""


def test_three_ctrl_c_while_the_tables_are_written_end_as_one_interrupted_run(tmp_path):
    """The presses after the first land in the clean-up (the workers' shutdown at exit): ignored, not tracebacks."""
    run_dir, writing = tmp_path / "run", tmp_path / "writing-tables"
    process = subprocess.Popen(
        [sys.executable, "-c", SLOW_TABLES, str(writing), "run", "-d", "Logical", "-m", "BR", "--splits", "2"]
        + ["--out", str(run_dir), "--n-jobs", "2", "-q"],
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not writing.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert writing.exists(), "the units did not finish"
        for _ in range(3):
            os.killpg(process.pid, signal.SIGINT)
            time.sleep(0.05)
        _, stderr = process.communicate(timeout=60)
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert process.returncode == 128 + signal.SIGINT, stderr
    assert "Traceback" not in stderr and "Exception ignored" not in stderr and "Aborted" not in stderr, stderr
    assert stderr.splitlines()[-1] == (
        f"interrupted: 2 of 2 units are stored in {run_dir}; re-run the same command to resume."
    )


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
        except (OSError, IndexError):
            pass  # ended meanwhile
    return found


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process tree from /proc")
def test_workers_killed_parent_during_their_start_up_exit(config, tmp_path):
    """kill -9 of the parent while its loky workers are still starting (importing): each worker
    and resource tracker exits within seconds, so nothing holds memory or shared-memory files."""
    process = subprocess.Popen(_command(config, tmp_path / "run", 2), stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            children = _children(process.pid)
            started = [pid for pid in children if b"popen_loky" in _cmdline(pid)]
            if len(started) >= 2:
                break
            time.sleep(0.005)
        assert len(started) >= 2, "the workers did not start"
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=60)
        deadline = time.monotonic() + 60  # a worker still importing under load reaches its watch late
        while any(_alive(pid) for pid in children) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not [pid for pid in children if _alive(pid)], "workers or resource trackers outlived their parent"
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_a_stop_sent_to_the_process_waits_for_the_block_whichever_thread_the_kernel_picks():
    import threading

    from mlhidden.experiment.stop_signals import stop_signals_deferred

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    release = threading.Event()
    bystander = threading.Thread(target=release.wait)  # a thread that does not block the signal
    bystander.start()
    finished_inside = []
    try:
        with pytest.raises(KeyboardInterrupt):
            with stop_signals_deferred():
                os.kill(os.getpid(), signal.SIGTERM)
                deadline = time.monotonic() + 0.5
                while time.monotonic() < deadline:
                    pass  # bytecodes where a handler would run
                finished_inside.append(True)
    finally:
        release.set()
        bystander.join()
        signal.signal(signal.SIGTERM, previous)
    assert finished_inside == [True]
