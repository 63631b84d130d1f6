"""The same config gives identical stored metrics whatever the parallelism.

Every registered method (``METHODS`` is iterated, so new ones are covered) on Logical and on the
real Music file. Between ``n_jobs=1`` (units in this process, BLAS free to use every core) and
``n_jobs=2`` (units in loky workers limited to one BLAS thread each), nothing may change: a method
whose results depend on the thread count is a bug. So is one whose predictions depend on its own
``n_jobs``.
"""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest

from mlhidden.data import load_dataset
from mlhidden.experiment.config import parse_config
from mlhidden.experiment.runner import run_experiment
from mlhidden.methods.registry import METHODS, make_method
from mlhidden.runs.metrics import SCORES
from mlhidden.runs.splits import SplitRecipe
from mlhidden.runs.store import KEY_COLUMNS, load_results

CONFIG = {"name": "determinism", "datasets": ["Logical", "Music"], "methods": list(METHODS), "splits": 1, "seed": 3}


def _stored_scores(run_dir) -> pd.DataFrame:
    units = load_results(run_dir).units
    return units[[*KEY_COLUMNS, "status", "error", *SCORES]].sort_values(list(KEY_COLUMNS)).reset_index(drop=True)


def test_stored_metrics_do_not_depend_on_n_jobs(tmp_path, mirror_dir):
    config = parse_config(CONFIG, data_dir=mirror_dir)
    for n_jobs in (1, 2):
        summary = run_experiment(config, tmp_path / f"n_jobs={n_jobs}", n_jobs=n_jobs)
        assert summary.n_units == 2 * len(METHODS) and summary.n_done == summary.n_units
    sequential, parallel = _stored_scores(tmp_path / "n_jobs=1"), _stored_scores(tmp_path / "n_jobs=2")
    assert (sequential["status"] == "ok").all(), sequential.loc[sequential["status"] != "ok", "error"].tolist()
    assert set(sequential["method"]) == set(METHODS)
    pd.testing.assert_frame_equal(sequential, parallel, check_exact=True)


@pytest.mark.parametrize(
    "method", [name for name, entry in METHODS.items() if "n_jobs" in inspect.signature(entry.cls.__init__).parameters]
)
def test_predictions_do_not_depend_on_the_methods_own_n_jobs(method, mirror_dir):
    music = load_dataset("Music", data_dir=mirror_dir)
    split = SplitRecipe(0, 1).splits("Music", music.Y)[0]
    X_train, Y_train, X_test = music.X[split.train], music.Y[split.train], music.X[split.test]
    probabilities = []
    for n_jobs in (1, 2):
        estimator = make_method(method, random_state=7).set_params(n_jobs=n_jobs)
        probabilities.append(estimator.fit(X_train, Y_train).predict_proba(X_test))
    np.testing.assert_array_equal(probabilities[0], probabilities[1])
