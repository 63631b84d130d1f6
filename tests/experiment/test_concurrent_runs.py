"""Two ``mlhidden run`` processes on one run directory share the units; a killed one holds nothing back.

Real processes, real store: each unit is leased in the store before it is computed, so no unit
is computed by both, none is lost, and each is stored once.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import yaml

from mlhidden.experiment.leases import RUN_SPLIT
from mlhidden.runs.store import KEY_COLUMNS, STORE_FILE

# Scene units take 1-3 s each, long enough for a second process to start while the first works.
CONFIG = {"name": "shared", "datasets": ["Scene"], "methods": ["BR", "CC", "CCASL"], "splits": 4, "seed": 3}
N_UNITS = 3 * 4
UNIT_LINE = re.compile(r"^\[\s*\d+/\d+\] (\S+) · (\S+) · split (\d+): ok", re.MULTILINE)


def start_run(config_path, out) -> subprocess.Popen:
    command = [str(Path(sys.executable).parent / "mlhidden"), "run", "--config", str(config_path), "--out", str(out)]
    command += ["--n-jobs", "1", "-v"]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def computed_units(output: str) -> list:
    """The units a process computed itself, from its ``-v`` lines."""
    return UNIT_LINE.findall(output)


def stored_rows(out) -> list:
    path = out / STORE_FILE
    if not path.exists():
        return []
    with sqlite3.connect(path, timeout=60) as conn:
        try:
            return conn.execute(f"SELECT {', '.join(KEY_COLUMNS)}, status FROM units").fetchall()
        except sqlite3.OperationalError:  # tables not created yet
            return []


def wait_for_stored(out, count, process, timeout=600):
    deadline = time.monotonic() + timeout
    while len(stored_rows(out)) < count:
        assert process.poll() is None, "the run ended before storing enough units"
        assert time.monotonic() < deadline
        time.sleep(0.05)


def write_config(tmp_path) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(CONFIG))
    return path


def test_two_processes_on_one_run_directory_share_the_units(tmp_path):
    config, out = write_config(tmp_path), tmp_path / "run"
    first, second = start_run(config, out), start_run(config, out)
    outputs = [process.communicate(timeout=1200)[0] for process in (first, second)]
    assert [first.returncode, second.returncode] == [0, 0], outputs
    by_first, by_second = (computed_units(output) for output in outputs)
    assert by_first and by_second, "the second process found nothing left to do: no sharing was tested"
    assert not set(by_first) & set(by_second)
    assert len(by_first) + len(by_second) == N_UNITS
    rows = stored_rows(out)
    assert len(rows) == len(set(rows)) == N_UNITS and {row[-1] for row in rows} == {"ok"}
    with sqlite3.connect(out / STORE_FILE) as conn:
        assert conn.execute("SELECT COUNT(*) FROM leases").fetchone() == (0,)


def test_a_run_killed_with_sigkill_holds_no_unit_back(tmp_path):
    config, out = write_config(tmp_path), tmp_path / "run"
    killed = start_run(config, out)
    wait_for_stored(out, 2, killed)
    os.kill(killed.pid, signal.SIGKILL)
    killed.communicate()
    stored_before = {row[:-1] for row in stored_rows(out)}
    with sqlite3.connect(out / STORE_FILE) as conn:
        assert conn.execute("SELECT COUNT(*) FROM leases").fetchone()[0] >= 1  # the unit it was computing
    started = time.monotonic()
    resumed = start_run(config, out)
    output = resumed.communicate(timeout=1200)[0]
    assert resumed.returncode == 0, output
    computed = computed_units(output)
    assert len(computed) == N_UNITS - len(stored_before)
    assert {(d, m, int(s)) for d, m, s in computed}.isdisjoint({(row[0], row[2], row[4]) for row in stored_before})
    assert len(stored_rows(out)) == N_UNITS
    assert time.monotonic() - started < 120  # the dead owner's lease did not have to lapse (LEASE_SECONDS)


GATED_METHOD = '''
import os, time
from mlhidden.methods.br import BR


class GatedBR(BR):
    """BR whose fit waits, while $GATE names a missing file, so a test can stop its process mid-unit."""

    def fit(self, X, Y):
        while os.environ.get("GATE") and not os.path.exists(os.environ["GATE"]):
            time.sleep(0.02)
        return super().fit(X, Y)
'''
SHORT_LEASE = (
    "import sys, mlhidden.experiment.leases as c; c.LEASE_SECONDS = 1.0; "
    "from mlhidden.cli import main; sys.exit(main())"
)


def _gated_run(tmp_path, out, *, gate=None, lease=False) -> subprocess.Popen:
    """``mlhidden run`` of one GatedBR unit in its own process (``lease``: leases lapse after 1 s, not 120)."""
    (tmp_path / "gated.py").write_text(GATED_METHOD)
    env = {name: value for name, value in os.environ.items() if name != "GATE"}
    env["PYTHONPATH"] = str(tmp_path)
    if gate is not None:
        env["GATE"] = str(gate)
    entry = ["-c", SHORT_LEASE] if lease else ["-m", "mlhidden"]
    command = [
        sys.executable,
        *entry,
        "run",
        "-d",
        "Logical",
        "-m",
        "gated:GatedBR",
        "--splits",
        "1",
        "--n-jobs",
        "1",
        "-q",
        "--out",
        str(out),
    ]
    return subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=Path(__file__).resolve().parents[2],
    )


def _leases(out) -> list:
    """The leases on units (a run's lease on the directory is held from before its first unit)."""
    path = out / STORE_FILE
    if not path.exists():
        return []
    with sqlite3.connect(path, timeout=60) as conn:
        try:
            return conn.execute(f"SELECT owner, renewed_at FROM leases WHERE split != {RUN_SPLIT}").fetchall()
        except sqlite3.OperationalError:
            return []


def _unit_rows(out) -> list:
    with sqlite3.connect(out / STORE_FILE, timeout=60) as conn:
        return conn.execute("SELECT method, split, status, finished_at, train_seconds FROM units").fetchall()


def test_a_frozen_lease_holder_does_not_overwrite_the_unit_another_run_took_over(tmp_path):
    out, gate = tmp_path / "run", tmp_path / "gate"
    frozen = _gated_run(tmp_path, out, gate=gate)
    try:
        deadline = time.monotonic() + 120
        while not _leases(out):  # it holds the lease and waits in fit
            assert frozen.poll() is None and time.monotonic() < deadline, frozen.communicate()
            time.sleep(0.05)
        os.kill(frozen.pid, signal.SIGSTOP)
        time.sleep(1.5)  # past the other run's 1 s lease
        gate.touch()
        other = _gated_run(tmp_path, out, lease=True)
        assert other.wait(timeout=300) == 0, other.communicate()
        taken_over = _unit_rows(out)
        assert len(taken_over) == 1 and taken_over[0][2] == "ok"
    finally:
        os.kill(frozen.pid, signal.SIGCONT)
    _, stderr = frozen.communicate(timeout=300)
    assert frozen.returncode == 0, stderr
    assert _unit_rows(out) == taken_over, "the resumed run overwrote the unit of the run that took it over"
    assert "1 unit(s) computed here were discarded" in stderr
    assert _leases(out) == []


def test_leases_of_killed_runs_are_cleared(tmp_path):
    out = tmp_path / "run"
    assert _gated_run(tmp_path, out).wait(timeout=300) == 0
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    with sqlite3.connect(
        out / STORE_FILE
    ) as conn:  # a run killed with kill -9 while computing a unit of another config
        conn.execute(
            "INSERT INTO leases VALUES ('Logical', 'x', 'CC', 'y', 0, 1, ?, ?, ?, ?)",
            (f"{socket.gethostname()}:{int(dead.stdout)}:0", socket.gethostname(), int(dead.stdout), time.time()),
        )
    assert _gated_run(tmp_path, out).wait(timeout=300) == 0
    assert _leases(out) == []


def test_a_second_config_is_refused_while_a_run_is_in_progress(tmp_path):
    out, gate = tmp_path / "run", tmp_path / "gate"
    running = _gated_run(tmp_path, out, gate=gate)
    try:
        deadline = time.monotonic() + 120
        while not _leases(out):  # it computes its unit
            assert running.poll() is None and time.monotonic() < deadline, running.communicate()
            time.sleep(0.05)
        command = [sys.executable, "-m", "mlhidden", "run", "-d", "Logical", "-m", "CC", "--splits", "1", "-q"]
        other = subprocess.run([*command, "--out", str(out)], capture_output=True, text=True, timeout=300)
        assert other.returncode == 2, other.stderr
        assert other.stdout == "" and len(other.stderr.splitlines()) == 1
        assert "run: another run (config " in other.stderr and f"process {running.pid} on " in other.stderr
    finally:
        gate.touch()
    _, stderr = running.communicate(timeout=300)
    assert running.returncode == 0, stderr
    assert {row[0] for row in _unit_rows(out)} == {"gated:GatedBR"}
    assert (out / "exact_match.csv").read_text().startswith("dataset,status,GatedBR,")
    assert json.loads((out / "run.json").read_text())["config"]["methods"][0]["label"] == "GatedBR"
