"""Chains shared by the machines of a real loopback dask cluster: each fit once cluster-wide, the numbers unchanged.

Four one-thread worker processes on 127.0.0.1, each with its own scratch folder. The workers share
no folder with the client: ``run_dir/shared_fits`` is a file here, so no worker can keep or find a
fit there, as on machines that do not mount the run directory. Each worker counts the fits it
really computes (a module the workers import patches ``SharedFits.get_or_compute`` to record them).
"""

import textwrap
from collections import Counter

import distributed
import pandas as pd
import pytest

from mlhidden.experiment.config import parse_config
from mlhidden.experiment.runner import SHARED_FITS_DIR, run_experiment
from mlhidden.methods import shared_fits
from mlhidden.runs.metrics import SCORES
from mlhidden.runs.store import load_results

SCORE_COLUMNS = ["dataset", "method", "split", "status", *SCORES]
# CC and PCC fit one chain per split, CCASL and CCASL+BR another (and their synthetic layer's fits): 8 units.
CONFIG = {"name": "chains", "datasets": ["Music"], "methods": ["CC", "PCC", "CCASL", "CCASL+BR"], "splits": 2}
COUNTER_MODULE = "mlhidden_test_fit_counter"
COUNTER_SOURCE = """
from mlhidden.methods import shared_fits

COMPUTED = []
_original = shared_fits.SharedFits.get_or_compute


def _counting(self, kind, key, compute):
    def counted():
        COMPUTED.append(f"{kind}-{key}")
        return compute()

    return _original(self, kind, key, counted)


def install():
    shared_fits.SharedFits.get_or_compute = _counting


def computed():
    return list(COMPUTED)
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A scheduler and four one-thread worker processes on 127.0.0.1, each counting the fits it computes."""
    counter_dir = tmp_path_factory.mktemp("counter")
    (counter_dir / f"{COUNTER_MODULE}.py").write_text(textwrap.dedent(COUNTER_SOURCE))
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(counter_dir))
        with distributed.LocalCluster(
            n_workers=4, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0",
            local_directory=str(tmp_path_factory.mktemp("scratch")),
        ) as local_cluster, distributed.Client(local_cluster, set_as_default=False) as client:
            client.run(lambda: __import__(COUNTER_MODULE).install())
            yield local_cluster, client


def scores(run_dir):
    units = load_results(run_dir).units
    return units[SCORE_COLUMNS].sort_values(["dataset", "method", "split"]).reset_index(drop=True)


def test_each_chain_is_fitted_once_cluster_wide_with_the_local_runs_numbers(
    cluster, tmp_path, mirror_dir, monkeypatch
):
    local_cluster, client = cluster
    config = parse_config(CONFIG, data_dir=mirror_dir)
    counter = __import__(COUNTER_MODULE)
    with monkeypatch.context() as patch:
        patch.setattr(shared_fits.SharedFits, "get_or_compute", counter._counting)
        run_experiment(config, tmp_path / "local", n_jobs=1)
    fitted_locally = Counter(counter.computed())
    assert set(fitted_locally.values()) == {1} and len(fitted_locally) < 8
    scratch = {address: info["local_directory"] for address, info in client.scheduler_info()["workers"].items()}
    assert len(set(scratch.values())) == 4, "each worker has a scratch folder of its own"

    run_dir = tmp_path / "dask"
    run_dir.mkdir()
    (run_dir / SHARED_FITS_DIR).write_text("not a folder: the workers cannot share fits through run_dir\n")
    summary = run_experiment(config, run_dir, backend="dask", scheduler=local_cluster.scheduler_address)

    assert (summary.n_done, summary.n_failed, summary.not_run) == (8, 0, [])
    computed = Counter(key for keys in client.run(lambda: __import__(COUNTER_MODULE).computed()).values()
                       for key in keys)
    assert computed == fitted_locally, "each shared fit computed once on the cluster, none on the client"
    assert summary.reused_seconds > 0
    pd.testing.assert_frame_equal(scores(run_dir), scores(tmp_path / "local"), check_exact=True)
    assert not [name for name in client.list_datasets() if str(name).startswith("mlhidden-fit")], (
        "the run's fits are forgotten at its end"
    )
