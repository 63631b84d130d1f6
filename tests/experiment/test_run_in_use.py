"""One run directory, one config at a time: another config is refused while a run is in use, and told what
becomes of a finished run it replaces.

A live run is stood in for by a lease on the run held from this test (the lease a running
``mlhidden run`` holds); tests/experiment/test_concurrent_runs.py does it with two real processes.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from mlhidden.cli import cli
from mlhidden.experiment.leases import UnitLeases
from mlhidden.runs.store import STORE_FILE

LOGICAL = ["-d", "Logical", "--splits", "2", "--n-jobs", "1", "-q"]


def run(out: Path, *args: str):
    return CliRunner().invoke(cli, ["run", *LOGICAL, *args, "--out", str(out)])


def stored_config(out: Path) -> dict:
    with sqlite3.connect(out / STORE_FILE) as conn:
        config = json.loads(conn.execute("SELECT value FROM meta WHERE key='config'").fetchone()[0])
    conn.close()
    return config


def test_another_config_is_refused_while_a_run_holds_the_directory(tmp_path):
    out = tmp_path / "run"
    assert run(out, "-m", "BR").exit_code == 0
    first = stored_config(out)
    record = (out / "run.json").read_bytes()
    with UnitLeases(out / STORE_FILE) as running:
        running.hold_run(first["config_hash"])
        for extra in ([], ["--fresh"]):
            other = run(out, "-m", "CC", *extra)
            assert other.exit_code == 2, other.output
            assert len(other.stderr.splitlines()) == 1 and other.stdout == ""
            assert f"process {os.getpid()} on {socket.gethostname()}) is running into this directory" in other.stderr
        same = run(out, "-m", "BR")
        assert same.exit_code == 0, same.output
    assert stored_config(out)["config_hash"] == first["config_hash"]
    assert (out / "run.json").read_bytes() == record
    with sqlite3.connect(out / STORE_FILE) as conn:
        assert conn.execute("SELECT COUNT(*) FROM units").fetchone() == (2,)
        assert conn.execute("SELECT COUNT(*) FROM leases WHERE owner != ?", (running.owner,)).fetchone() == (0,)
    conn.close()


def test_another_config_into_a_finished_run_folder_says_what_becomes_of_the_run_there(tmp_path):
    out = tmp_path / "run"
    assert run(out, "-m", "BR").exit_code == 0
    replacing = run(out, "-m", "CC")
    assert replacing.exit_code == 0, replacing.output
    assert f"warning: {out} held the run 'run' (BR on Logical, 2 splits, config " in replacing.stderr
    assert "whose tables leave out 2 of that run's stored units (they stay stored;" in replacing.stderr
    back = run(out, "-m", "BR")
    assert back.exit_code == 0, back.output
    assert "0 unit(s) run, 2 already stored" in back.stderr
    provenance = json.loads((out / "run.json").read_text())
    assert provenance["config"]["name"] == "run" == stored_config(out)["name"]
