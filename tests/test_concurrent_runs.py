"""Two ``mlhidden run`` processes on one run directory share the units; a killed one holds nothing back.

Real processes, real store: each unit is claimed in the store before it is computed, so no unit
is computed by both, none is lost, and each is stored once.
"""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import yaml

from mlhidden.experiment.store import KEY_COLUMNS, STORE_FILE

# Scene units take 1-3 s each, long enough for a second process to start while the first works.
CONFIG = {"name": "shared", "datasets": ["Scene"], "methods": ["BR", "CC", "CCASL"], "splits": 4, "seed": 3}
N_UNITS = 3 * 4
UNIT_LINE = re.compile(r"^\[\s*\d+/\d+\] (\S+) · (\S+) · split (\d+): ok", re.MULTILINE)


def start_run(config_path, out) -> subprocess.Popen:
    command = [str(Path(sys.executable).parent / "mlhidden"), "run", "--config", str(config_path), "--out", str(out), "--n-jobs", "1", "-v"]
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
        assert conn.execute("SELECT COUNT(*) FROM claims").fetchone() == (0,)


def test_a_run_killed_with_sigkill_holds_no_unit_back(tmp_path):
    config, out = write_config(tmp_path), tmp_path / "run"
    killed = start_run(config, out)
    wait_for_stored(out, 2, killed)
    os.kill(killed.pid, signal.SIGKILL)
    killed.communicate()
    stored_before = {row[:-1] for row in stored_rows(out)}
    with sqlite3.connect(out / STORE_FILE) as conn:
        assert conn.execute("SELECT COUNT(*) FROM claims").fetchone()[0] >= 1  # the unit it was computing
    started = time.monotonic()
    resumed = start_run(config, out)
    output = resumed.communicate(timeout=1200)[0]
    assert resumed.returncode == 0, output
    computed = computed_units(output)
    assert len(computed) == N_UNITS - len(stored_before)
    assert {(d, m, int(s)) for d, m, s in computed}.isdisjoint({(row[0], row[2], row[4]) for row in stored_before})
    assert len(stored_rows(out)) == N_UNITS
    assert time.monotonic() - started < 120  # the dead owner's claim did not have to lapse (LEASE_SECONDS)
