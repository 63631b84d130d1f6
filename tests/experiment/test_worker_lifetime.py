"""A run's worker processes end with it: ``kill -9`` of a real ``mlhidden run`` leaves no process behind.

Nothing in the killed parent can clean up, so each loky worker watches its parent itself. The
processes are found through ``/proc`` (Linux), the way ``ps`` finds them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from stores import stored_units

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds processes through /proc (Linux)")
WAIT_SECONDS = 60
"""A bound on every wait: a run that starts, or workers that end, far slower than this are stuck."""


def _parent_of(pid: int) -> int | None:
    """The parent pid of a live process; None for one that is gone or a zombie (dead, not yet reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    state, parent = stat.rsplit(")", 1)[1].split()[:2]
    return None if state in ("Z", "X") else int(parent)


def _children(pid: int) -> set[int]:
    return {
        int(entry.name)
        for entry in Path("/proc").iterdir()
        if entry.name.isdigit() and _parent_of(int(entry.name)) == pid
    }


def test_kill_9_of_a_run_leaves_no_worker(tmp_path):
    run_dir = tmp_path / "run"
    command = [sys.executable, "-m", "mlhidden", "run", "-d", "Logical", "-m", "BR", "-m", "CC", "--splits", "500",
               "--n-jobs", "2", "--out", str(run_dir), "-q"]
    run = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + WAIT_SECONDS
        while stored_units(run_dir) < 2 and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        workers = _children(run.pid)
        assert run.poll() is None and len(workers) >= 2, "the run computes in worker processes"
        os.kill(run.pid, signal.SIGKILL)
        run.wait()
        deadline = time.monotonic() + WAIT_SECONDS
        while any(_parent_of(pid) is not None for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = {pid for pid in workers if _parent_of(pid) is not None}
        assert not left, f"worker processes {sorted(left)} outlived their killed parent"
    finally:
        for pid in workers:
            if _parent_of(pid) is not None:
                os.kill(pid, signal.SIGKILL)
        if run.poll() is None:
            run.kill()
            run.wait()
