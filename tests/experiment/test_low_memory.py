"""Running out of memory or threads ends a command in one line, and a run's run.json says how it ended.

A real ``mlhidden run`` under an address-space limit (``RLIMIT_AS``, what ``ulimit -v`` sets)
fails in different places by the limit: a thread of joblib's executor cannot start (the run
used to wait forever), a shared library cannot be mapped while the tables are written (an
ImportError traceback). Which limit hits which place depends on the machine, so the end is
checked whatever happened, and the handlers are also driven directly.
"""

from __future__ import annotations

import gc
import json
import os
import resource
import signal
import subprocess
import sys
import threading
import time

import click
import pytest
from click.testing import CliRunner

from mlhidden.cli.endings import OneLineErrors, ResourcesExhausted, exhaustion_in_threads_stops_the_main_thread

HANG_SECONDS = 120
"""A run still going after this is stuck (these runs take seconds)."""


def _limited(megabytes: int):
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (megabytes << 20, megabytes << 20))

    return limit


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="the limits were found on Linux")
@pytest.mark.parametrize(
    ("megabytes", "method", "n_jobs"),
    [
        (450, "BR", None),
        (600, "BR", None),
        (348, "BR", 1),  # the progress thread could not start: a traceback, run.json "running"
        (355, "BR", 2),  # loky's executor thread could not start, then joblib could not join it: a traceback
        (366, "ELM", 1),  # OpenBLAS could not map its buffer and ended the process: run.json "running"
    ],
)
def test_a_run_under_a_memory_limit_ends_in_one_line_with_run_json_final(megabytes, method, n_jobs, tmp_path):
    out = tmp_path / "out"
    command = [sys.executable, "-m", "mlhidden", "run", "-d", "Logical", "-m", method, "--splits", "2", "--out",
               str(out), "-q", *([] if n_jobs is None else ["--n-jobs", str(n_jobs)])]
    env = {**os.environ, "PYTHONFAULTHANDLER": "1"}  # a stuck run shows where it waits when aborted
    run = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, preexec_fn=_limited(megabytes)
    )
    try:
        _, stderr = run.communicate(timeout=HANG_SECONDS)
    except subprocess.TimeoutExpired:
        run.send_signal(signal.SIGABRT)
        _, stderr = run.communicate()
        pytest.fail(f"the run was still going after {HANG_SECONDS} s: {stderr[-4000:]}")
    assert "Traceback" not in stderr and "Exception in thread" not in stderr and "OpenBLAS error" not in stderr, stderr
    if run.returncode:
        assert run.returncode == 1, stderr
        assert stderr.strip().splitlines()[-1].startswith("error: out of memory"), stderr
    if (out / "run.json").exists():
        assert json.loads((out / "run.json").read_text())["status"] != "running"


@click.group(cls=OneLineErrors)
def commands():
    pass


@commands.command()
@click.argument("kind")
def exhaust(kind):
    if kind == "memory":
        raise MemoryError()
    if kind == "thread":
        raise RuntimeError("can't start new thread")
    if kind == "library":
        raise ImportError("/lib/x.so: failed to map segment from shared object")
    if kind == "bug":
        raise ImportError("No module named 'nowhere'")
    if kind == "join-after-thread":  # joblib's abort, after loky's executor thread could not start
        try:
            raise RuntimeError("can't start new thread")
        except RuntimeError:
            raise RuntimeError("cannot join thread before it is started")  # noqa: B904 (as joblib raises it)
    worker = threading.Thread(target=lambda: (_ for _ in ()).throw(RuntimeError("can't start new thread")))
    worker.start()
    time.sleep(HANG_SECONDS)  # the main thread is stopped long before


@pytest.mark.parametrize("kind", ["memory", "thread", "library", "join-after-thread", "in-a-thread"])
def test_exhaustion_anywhere_is_one_line(kind):
    result = CliRunner().invoke(commands, ["exhaust", kind])
    assert result.exit_code == 1, (result.output, result.exception)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: out of memory"), result.output


def test_an_import_error_that_is_a_bug_keeps_its_traceback():
    result = CliRunner().invoke(commands, ["exhaust", "bug"])
    assert isinstance(result.exception, ImportError)


def die_of_exhaustion_in_a_thread():
    worker = threading.Thread(target=lambda: (_ for _ in ()).throw(RuntimeError("can't start new thread")))
    worker.start()
    worker.join()


def wait_as_joblib_waits(seconds):
    """Poll in short sleeps, as joblib's result loop does: an asynchronous exception lands between two."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_thread_dying_of_exhaustion_stops_the_main_thread():
    with pytest.raises(ResourcesExhausted, match="a thread died for lack of memory or threads"):
        with exhaustion_in_threads_stops_the_main_thread():
            die_of_exhaustion_in_a_thread()
            wait_as_joblib_waits(HANG_SECONDS)


def test_the_stop_still_arrives_when_it_first_lands_in_a_garbage_collector_callback():
    def dies_during_collection(phase, info):
        if phase == "start" and not deaths:
            deaths.append(phase)
            die_of_exhaustion_in_a_thread()
            sum(range(1000))  # bytecodes where the exception lands, inside the callback

    deaths: list[str] = []
    gc.callbacks.append(dies_during_collection)
    try:
        with pytest.raises(ResourcesExhausted):
            with exhaustion_in_threads_stops_the_main_thread():
                gc.collect()
                wait_as_joblib_waits(5)
    finally:
        gc.callbacks.remove(dies_during_collection)
    assert deaths == ["start"]


def test_a_run_stopped_by_memory_error_leaves_run_json_final(tmp_path):
    from mlhidden.experiment.config import parse_config
    from mlhidden.experiment.runner import run_experiment
    from mlhidden.runs.provenance import read_run_json

    def exhausted_after_one(unit, result, done, total):
        raise MemoryError()

    config = parse_config({"datasets": ["Logical"], "methods": ["BR"], "splits": 3})
    with pytest.raises(MemoryError):
        run_experiment(config, tmp_path, n_jobs=1, on_unit=exhausted_after_one)
    record = read_run_json(tmp_path)
    assert record["status"] == "incomplete"
    assert record["units"] == {"total": 3, "done": 1, "failed": 0, "skipped": 0, "not_run": 2}


OPENBLAS_THREADS = (
    "import mlhidden.cli, numpy; from threadpoolctl import threadpool_info; "
    "print(*{i['num_threads'] for i in threadpool_info() if i['internal_api'] == 'openblas'})"
)


def test_a_command_loads_openblas_with_one_thread_unless_told_otherwise():
    """OpenBLAS reserves a pool and buffers per thread as it loads, and under ``ulimit -v`` ends the
    process itself when it later cannot map one; units compute with one BLAS thread anyway."""
    env = {name: value for name, value in os.environ.items() if name != "OPENBLAS_NUM_THREADS"}
    threads = subprocess.run([sys.executable, "-c", OPENBLAS_THREADS], env=env, capture_output=True, text=True)
    if not threads.stdout.strip():
        pytest.skip("numpy does not use OpenBLAS here")
    assert threads.stdout.split() == ["1"], threads.stderr
    if (os.cpu_count() or 1) > 1:
        told = subprocess.run(
            [sys.executable, "-c", OPENBLAS_THREADS], env={**env, "OPENBLAS_NUM_THREADS": "2"}, capture_output=True,
            text=True,
        )
        assert told.stdout.split() == ["2"], told.stderr


RUN_UNDER_HEADROOM = """
import resource, sys
import mlhidden.cli, numpy, scipy.linalg.blas, sklearn.linear_model
from mlhidden.cli import main

def used(field):
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) << 10 for line in status if line.startswith(field + ":"))

limit = used("VmSize") + (int(sys.argv[1]) << 20)
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
sys.argv = ["mlhidden", "run", "-d", "Logical", "-m", sys.argv[2], "--splits", "2", "--n-jobs", "1", "--out",
            sys.argv[3], "-q"]
main()
"""


def _run_under_headroom(megabytes: int, method: str, out) -> subprocess.CompletedProcess:
    """``mlhidden run`` with ``megabytes`` of address space left once everything it computes with is imported:
    a limit that fails at one place whatever the machine's libraries take."""
    command = [sys.executable, "-c", RUN_UNDER_HEADROOM, str(megabytes), method, str(out)]
    return subprocess.run(command, capture_output=True, text=True, timeout=HANG_SECONDS)


def _ends_as_out_of_memory(run: subprocess.CompletedProcess, out) -> dict:
    """Assert one ``error: out of memory`` line and exit 1; return run.json, which must say how the run ended."""
    assert "Traceback" not in run.stderr and "OpenBLAS error" not in run.stderr, run.stderr
    assert run.returncode == 1, run.stderr
    assert run.stderr.strip().splitlines()[-1].startswith("error: out of memory"), run.stderr
    record = json.loads((out / "run.json").read_text())
    assert record["status"] == "incomplete", record
    return record


@pytest.mark.skipif(sys.platform != "linux", reason="the headroom is read from /proc")
@pytest.mark.parametrize(
    ("megabytes", "method"),
    [
        (24, "BR"),  # the progress thread cannot start
        (40, "ELM"),  # OpenBLAS cannot map its work buffer at ELM's first product (it ended the process itself)
    ],
)
def test_a_run_that_runs_out_of_memory_before_its_first_unit_ends_in_one_line_with_run_json_final(
    megabytes, method, tmp_path
):
    record = _ends_as_out_of_memory(_run_under_headroom(megabytes, method, tmp_path / "out"), tmp_path / "out")
    assert record["units"]["done"] == 0 and record["units"]["not_run"] == 2


def test_a_progress_thread_that_cannot_start_ends_the_run_as_out_of_memory(tmp_path, monkeypatch):
    start = threading.Thread.start

    def no_thread_for_the_progress(thread):
        if thread.name == "mlhidden-progress":
            raise RuntimeError("can't start new thread")
        start(thread)

    monkeypatch.setattr(threading.Thread, "start", no_thread_for_the_progress)
    from mlhidden.cli import cli

    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["run", "-d", "Logical", "-m", "BR", "--splits", "2", "--n-jobs", "1", "--out",
                                      str(out), "-q"])
    assert result.exit_code == 1, (result.output, result.exception)
    assert result.output.strip().splitlines()[-1].startswith("error: out of memory (a thread could not start)")
    assert json.loads((out / "run.json").read_text())["status"] == "incomplete"


WORKER_WITHOUT_A_THREAD = """
import os, threading
from mlhidden.experiment.backends import _start_worker

def no_thread(thread):
    raise RuntimeError("can't start new thread")

threading.Thread.start = no_thread
_start_worker(os.getppid())
print("computing")
"""


def test_a_worker_that_cannot_start_its_parent_watch_computes_unwatched():
    """loky ends a worker whose initializer raises, with a traceback, and the run then loses every worker."""
    worker = subprocess.run([sys.executable, "-c", WORKER_WITHOUT_A_THREAD], capture_output=True, text=True)
    assert worker.returncode == 0 and worker.stdout == "computing\n", worker.stderr
