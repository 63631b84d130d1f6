"""Per-method preprocessing: fitted on the training rows only, part of the method's identity, sparse kept sparse."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from mlhidden.data import load_dataset
from mlhidden.errors import UserError
from mlhidden.experiment.config import parse_config
from mlhidden.experiment.runner import run_experiment
from mlhidden.runs.store import load_results


def methods(*entries):
    return parse_config({"datasets": ["Logical"], "methods": list(entries)}).methods


def test_no_preprocessing_keeps_the_identity_and_any_other_changes_it():
    plain, none, standard, maxabs = methods(
        "BR",
        {"name": "BR", "label": "none", "preprocess": "none"},
        {"name": "BR", "label": "std", "preprocess": "standard"},
        {"name": "BR", "label": "maxabs", "preprocess": ["maxabs"]},
    )
    assert none.resolved == plain.resolved and plain.resolved.preprocess is None
    assert standard.resolved.preprocess == [{"name": "standard", "params": {}}]
    assert len({plain.params_hash, standard.params_hash, maxabs.params_hash}) == 3


def test_transformers_are_fitted_on_the_training_rows_only(mirror_dir):
    data = load_dataset("Music", data_dir=mirror_dir)
    X_train, Y_train = data.X[:300], data.Y[:300]
    (spec,) = methods(
        {"name": "CC", "preprocess": [{"name": "sklearn.preprocessing.StandardScaler", "params": {"with_std": False}}]}
    )
    fitted = spec.make(random_state=0).fit(X_train, Y_train)
    np.testing.assert_allclose(fitted[0].mean_, X_train.mean(axis=0))
    assert fitted[0].with_std is False
    np.testing.assert_array_equal(
        fitted.predict(data.X[300:]), spec.make(random_state=0).fit(X_train, Y_train).predict(data.X[300:])
    )


def test_standard_scaling_of_sparse_input_scales_without_centring(mirror_dir):
    data = load_dataset("Medical", data_dir=mirror_dir)
    X = sp.csr_matrix(data.X[:300])
    (spec,) = methods({"name": "BR", "preprocess": "standard"})
    fitted = spec.make(random_state=0).fit(X, data.Y[:300])
    scaler = fitted[0].scaler_
    assert scaler.with_mean is False and sp.issparse(fitted[0].transform(X))
    dense = spec.make(random_state=0)[0].fit(X.toarray()).scaler_
    assert dense.with_mean is True and np.allclose(dense.scale_, scaler.scale_)


def test_a_preprocessed_method_runs_beside_the_plain_one_and_is_stored_apart(tmp_path):
    config = parse_config({
        "datasets": ["Logical"], "splits": 2,
        "methods": ["BR", {"name": "BR", "label": "BR scaled", "preprocess": "standard"}],
    })
    summary = run_experiment(config, tmp_path, n_jobs=1)
    assert summary.n_done == 4
    units = load_results(tmp_path).units
    assert set(units["method"]) == {"BR", "BR scaled"} and (units["status"] == "ok").all()
    assert units.groupby("method")["params_hash"].nunique().eq(1).all() and units["params_hash"].nunique() == 2


@pytest.mark.parametrize("value", [[], 3, [{"name": "standard", "oops": 1}]])
def test_malformed_preprocess_values_are_refused(value):
    with pytest.raises(UserError, match="preprocess"):
        methods({"name": "BR", "preprocess": value})
