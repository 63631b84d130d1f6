"""The dask backend on a real dask.distributed cluster on loopback: same numbers, resume, lost workers.

One ``LocalCluster`` (a scheduler and two single-threaded worker processes, all on 127.0.0.1)
serves the module. Workers are killed with SIGKILL while they compute, as a crashed or
preempted cluster node would be.
"""

import os
import signal
import sqlite3
import textwrap
import time

import distributed
import pandas as pd
import pytest
from click.testing import CliRunner

from mlhidden.cli import cli
from mlhidden.errors import UserError
from mlhidden.experiment.backends import ExecutionBackend
from mlhidden.experiment.config import parse_config
from mlhidden.experiment.parallel_units import MAX_ATTEMPTS
from mlhidden.experiment.runner import run_experiment
from mlhidden.runs.metrics import SCORES
from mlhidden.runs.provenance import read_run_json
from mlhidden.runs.store import KEY_COLUMNS, STORE_FILE, load_results

SCORE_COLUMNS = ["dataset", "method", "split", "status", *SCORES]
# Music units take 0.2-0.7 s each, so a worker killed while busy dies in the middle of a unit.
CONFIG = {"name": "dask", "datasets": ["Music"], "methods": ["BR", "CC"], "splits": 3}
N_UNITS = 2 * 3
KILLER_MODULE = "mlhidden_test_killer"
KILLER_SOURCE = """
import os
from sklearn.base import BaseEstimator, ClassifierMixin


class ExitOnFit(ClassifierMixin, BaseEstimator):
    '''A base learner whose fit ends its process, as a segfault or the OOM killer would.'''

    def fit(self, X, y):
        os._exit(1)
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A scheduler and two one-thread worker processes on 127.0.0.1; the workers can import the killer module."""
    killer_dir = tmp_path_factory.mktemp("killer")
    (killer_dir / f"{KILLER_MODULE}.py").write_text(textwrap.dedent(KILLER_SOURCE))
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(killer_dir))
        with distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0"
        ) as local_cluster, distributed.Client(local_cluster, set_as_default=False) as client:
            assert all(address.startswith("tcp://127.0.0.1:") for address in client.nthreads())
            yield local_cluster, client


@pytest.fixture(scope="module")
def local_scores(tmp_path_factory, mirror_dir):
    run_dir = tmp_path_factory.mktemp("local")
    run_experiment(parse_config(CONFIG, data_dir=mirror_dir), run_dir, n_jobs=1)
    return scores(run_dir)


def scores(run_dir):
    units = load_results(run_dir).units
    return units[SCORE_COLUMNS].sort_values(["dataset", "method", "split"]).reset_index(drop=True)


def stored_keys(run_dir):
    with sqlite3.connect(run_dir / STORE_FILE) as conn:
        return conn.execute(f"SELECT {', '.join(KEY_COLUMNS)} FROM units").fetchall()


@pytest.fixture
def allowed_failures(cluster):
    """Set how many worker deaths the scheduler tolerates per task before raising KilledWorker."""
    scheduler = cluster[0].scheduler
    default = scheduler.allowed_failures

    def set_to(value):
        scheduler.allowed_failures = value

    yield set_to
    scheduler.allowed_failures = default


def kill_a_busy_worker(client, timeout=10):
    """SIGKILL a worker process as soon as it has a task in flight; return its pid.

    A worker that an earlier test killed comes back under a new address, perhaps only after the
    first look at the pids, so they are looked up again for an address not yet seen.
    """
    pids = client.run(os.getpid)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        busy = [address for address, keys in client.processing().items() if keys]
        if busy and busy[0] not in pids:
            pids = client.run(os.getpid)
        if busy and busy[0] in pids:
            os.kill(pids[busy[0]], signal.SIGKILL)
            return pids[busy[0]]
        time.sleep(0.005)
    raise AssertionError("no worker had a task in flight")


def test_cli_run_on_dask_matches_the_local_run_and_resumes(cluster, local_scores, tmp_path, mirror_dir):
    local_cluster, _ = cluster
    config_path = tmp_path / "dask.yaml"
    config_path.write_text("name: dask\ndatasets: [Music]\nmethods: [BR, CC]\nsplits: 3\n")
    out = tmp_path / "out"
    command = ["run", "--config", str(config_path), "--out", str(out), "--data-dir", str(mirror_dir), "--quiet",
               "--backend", "dask", "--scheduler", local_cluster.scheduler_address]
    result = CliRunner().invoke(cli, command)
    assert result.exit_code == 0, result.output
    assert f"{N_UNITS} unit(s) run, 0 already stored, 0 failed" in result.output
    pd.testing.assert_frame_equal(scores(out), local_scores, check_exact=True)
    backend = read_run_json(out)["backend"]
    assert backend.pop("blas")["threads_per_unit"] == 1
    assert backend == {"name": "dask", "scheduler": local_cluster.scheduler_address, "workers": 2, "threads": 2}

    with sqlite3.connect(out / STORE_FILE) as conn:
        conn.execute("DELETE FROM units WHERE dataset='Music' AND split IN (0, 2) AND method='CC'")
    resumed = run_experiment(
        parse_config(CONFIG, data_dir=mirror_dir), out, backend="dask", scheduler=local_cluster.scheduler_address
    )
    assert (resumed.n_done, resumed.n_skipped, resumed.not_run) == (2, N_UNITS - 2, [])
    pd.testing.assert_frame_equal(scores(out), local_scores, check_exact=True)


def test_a_worker_killed_mid_run_loses_and_duplicates_no_unit(cluster, local_scores, tmp_path, mirror_dir):
    local_cluster, client = cluster
    seen, killed = [], []

    def kill_after_two(unit, result, done, total):
        seen.append(unit.key)
        if len(seen) == 2:
            killed.append(kill_a_busy_worker(client))

    summary = run_experiment(
        parse_config(CONFIG, data_dir=mirror_dir), tmp_path, on_unit=kill_after_two,
        backend="dask", scheduler=local_cluster.scheduler_address,
    )
    assert killed and killed[0] not in client.run(os.getpid).values(), "a busy worker died mid-run"
    assert len(seen) == len(set(seen)) == N_UNITS, "every unit reported exactly once"
    assert (summary.n_done, summary.not_run) == (N_UNITS, [])
    assert sorted(stored_keys(tmp_path)) == sorted(seen)
    pd.testing.assert_frame_equal(scores(tmp_path), local_scores, check_exact=True)
    assert read_run_json(tmp_path)["units"] == {
        "total": N_UNITS,
        "done": N_UNITS,
        "failed": 0,
        "skipped": 0,
        "not_run": 0,
    }


def test_units_of_a_worker_lost_past_the_scheduler_limit_are_resubmitted(
    cluster, allowed_failures, local_scores, tmp_path, mirror_dir
):
    local_cluster, client = cluster
    allowed_failures(0)
    seen = []

    def kill_after_two(unit, result, done, total):
        seen.append(unit.key)
        if len(seen) == 2:
            kill_a_busy_worker(client)

    summary = run_experiment(
        parse_config(CONFIG, data_dir=mirror_dir), tmp_path, on_unit=kill_after_two,
        backend="dask", scheduler=local_cluster.scheduler_address,
    )
    assert summary.n_resubmitted >= 1, (
        "the scheduler gave up on the killed worker's units and the runner sent them again"
    )
    assert len(seen) == len(set(seen)) == N_UNITS and summary.not_run == []
    assert sorted(stored_keys(tmp_path)) == sorted(seen)
    pd.testing.assert_frame_equal(scores(tmp_path), local_scores, check_exact=True)


def test_a_unit_that_always_kills_its_worker_is_reported_not_run(cluster, allowed_failures, tmp_path):
    local_cluster, _ = cluster
    allowed_failures(0)
    config = parse_config({
        "datasets": ["Logical"], "splits": 2,
        "methods": ["BR", {"name": "BR", "label": "doomed", "base": f"{KILLER_MODULE}.ExitOnFit"}],
    })
    summary = run_experiment(config, tmp_path, backend="dask", scheduler=local_cluster.scheduler_address)
    doomed = {key["split"] for key in summary.not_run if key["params_hash"] == config.methods[1].params_hash}
    assert doomed == {0, 1}
    assert summary.n_done + len(summary.not_run) == summary.n_units == 4, "no unit silently dropped"
    assert summary.n_resubmitted >= 2 * (MAX_ATTEMPTS - 1)
    assert len(stored_keys(tmp_path)) == summary.n_done
    assert read_run_json(tmp_path)["status"] == "incomplete"
    assert load_results(tmp_path).missing == len(summary.not_run)


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--backend", "dask"], "the dask backend needs the address of a running scheduler"),
        (["--scheduler", "tcp://127.0.0.1:8786"], "--scheduler is only used with --backend dask"),
    ],
)
def test_backend_options_are_checked_before_anything_runs(args, fragment, tmp_path):
    result = CliRunner().invoke(cli, ["run", "--config", "configs/smoke.yaml", "--out", str(tmp_path / "out"), *args])
    assert result.exit_code == 2 and fragment in result.output
    assert not (tmp_path / "out").exists()


def test_an_unreachable_scheduler_is_a_user_error():
    with pytest.raises(UserError, match="cannot reach the dask scheduler at tcp://127.0.0.1:9"):
        with ExecutionBackend("dask", "tcp://127.0.0.1:9", timeout=1):
            pass
