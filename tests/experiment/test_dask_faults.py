"""A dask cluster that stops answering ends the run: units not run reported, exit 1, run.json final.

The scheduler and the workers are real processes on 127.0.0.1, started with the ``dask`` command
in their own sessions, so that a worker is killed together with its nanny (SIGKILL to its process
group), as a lost machine would be. ``MLHIDDEN_DASK_TIMEOUT`` keeps the waits to a few seconds.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from stores import stored_units

from mlhidden.runs.provenance import read_run_json

DASK = str(Path(sys.executable).with_name("dask"))
TIMEOUT_SECONDS = "2"
N_SPLITS = 40
N_UNITS = 2 * N_SPLITS
START_SECONDS = 60
"""How long a scheduler or worker process may take to come up on a busy machine."""
HANG_SECONDS = 120




def _kill_group(process: subprocess.Popen):
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


@pytest.fixture
def processes():
    """Processes a test starts, each in its own session; killed (with their children) at the end."""
    started: list[subprocess.Popen] = []

    def start(*args):
        process = subprocess.Popen(
            [DASK, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        started.append(process)
        return process

    yield start
    for process in started:
        _kill_group(process)


@pytest.fixture
def scheduler(processes, tmp_path):
    """A ``dask scheduler`` process on 127.0.0.1: ``(process, address)``."""
    file = tmp_path / "scheduler.json"
    process = processes(
        "scheduler",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--dashboard-address",
        "127.0.0.1:0",
        "--scheduler-file",
        str(file),
    )
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        try:
            return process, json.loads(file.read_text())["address"]
        except (OSError, ValueError, KeyError):
            time.sleep(0.05)
    raise AssertionError("the dask scheduler did not start")


@pytest.fixture
def worker(processes, scheduler):
    """One ``dask worker`` (a nanny and its one-thread worker process) connected to ``scheduler``."""
    import distributed

    process = processes(
        "worker", scheduler[1], "--nthreads", "1", "--host", "127.0.0.1", "--dashboard-address", "127.0.0.1:0"
    )
    with distributed.Client(scheduler[1], timeout=START_SECONDS, set_as_default=False) as client:
        client.wait_for_workers(1, timeout=START_SECONDS)
    return process


def _run_on(address, tmp_path, when_stored=None):
    """A real ``mlhidden run`` process on the cluster at ``address``: ``(exit code, stderr, run dir)``.

    ``when_stored()`` is called once the first unit is stored. A run still going after
    ``HANG_SECONDS`` is a hang (the runs here end within seconds), and fails the test.
    """
    config = tmp_path / "lost.yaml"
    config.write_text(f"name: lost\ndatasets: [Logical]\nmethods: [BR, CC]\nsplits: {N_SPLITS}\n")
    out = tmp_path / "out"
    command = [sys.executable, "-m", "mlhidden", "run", "--config", str(config), "--out", str(out), "-q",
               "--backend", "dask", "--scheduler", address]
    env = {**os.environ, "MLHIDDEN_DASK_TIMEOUT": TIMEOUT_SECONDS}
    run = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    try:
        if when_stored is not None:
            while stored_units(out) < 1 and run.poll() is None:
                time.sleep(0.01)
            when_stored()
        _, stderr = run.communicate(timeout=HANG_SECONDS)
    except subprocess.TimeoutExpired:
        run.kill()
        _, stderr = run.communicate()
        pytest.fail(f"the run was still going after {HANG_SECONDS} s; its output: {stderr[-2000:]}")
    return run.returncode, stderr, out


def _assert_ended_with_units_not_run(ended, fragment):
    code, stderr, out = ended
    assert code == 1, stderr
    assert "Traceback" not in stderr
    assert fragment in stderr, stderr
    record = read_run_json(out)
    assert record["status"] == "incomplete", record["status"]
    units = record["units"]
    assert units["not_run"] > 0 and units["done"] + units["not_run"] == units["total"] == N_UNITS
    assert stored_units(out) == units["done"], "every unit run is stored"
    assert f"{units['not_run']} unit(s) not run: {fragment}" in stderr


@pytest.mark.slow
def test_losing_every_worker_mid_run_ends_the_run(scheduler, worker, tmp_path):
    ended = _run_on(scheduler[1], tmp_path, when_stored=lambda: _kill_group(worker))
    _assert_ended_with_units_not_run(ended, f"the dask cluster at {scheduler[1]} had no worker for {TIMEOUT_SECONDS} s")


def test_a_cluster_without_workers_is_one_line(scheduler, tmp_path):
    ended = _run_on(scheduler[1], tmp_path)
    _assert_ended_with_units_not_run(ended, f"the dask cluster at {scheduler[1]} had no worker for {TIMEOUT_SECONDS} s")
    assert read_run_json(ended[2])["units"]["done"] == 0


@pytest.mark.slow
def test_losing_the_scheduler_mid_run_ends_the_run(scheduler, worker, tmp_path):
    ended = _run_on(scheduler[1], tmp_path, when_stored=lambda: _kill_group(scheduler[0]))
    _assert_ended_with_units_not_run(
        ended, f"lost the dask scheduler at {scheduler[1]}: no answer for {TIMEOUT_SECONDS} s"
    )
    assert "reconnect" not in ended[1], "the dask client's own log line is not shown"
