"""Scaling inside each base model: the standard_logistic base learner against scikit-learn's own pipeline."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from mlhidden.data import load_dataset
from mlhidden.methods.base_learners import make_base_learner
from mlhidden.methods.registry import get_entry, make_resolved_method, resolve_method
from mlhidden.methods.scaled_logistic import StandardScaledLogisticRegression


@pytest.mark.parametrize("make_sparse", [False, True])
def test_it_predicts_as_a_scaler_and_a_logistic_regression_in_a_pipeline_on_a_real_dataset(make_sparse):
    data = load_dataset("Music")
    X, y = data.X[:400], data.Y[:400, 0]
    X = sparse.csr_matrix(X) if make_sparse else np.asarray(X.toarray() if sparse.issparse(X) else X)
    ours = make_base_learner("standard_logistic").fit(X, y)
    pipeline = make_pipeline(StandardScaler(with_mean=not make_sparse), LogisticRegression()).fit(X, y)
    test = data.X[400:]
    test = sparse.csr_matrix(test) if make_sparse else np.asarray(test.toarray() if sparse.issparse(test) else test)
    np.testing.assert_allclose(ours.predict_proba(test), pipeline.predict_proba(test), rtol=1e-9, atol=1e-12)
    assert isinstance(ours, StandardScaledLogisticRegression) and ours.coef_.shape == (1, X.shape[1])


def test_a_chain_scales_its_label_columns_too_unlike_scaling_x_once():
    data = load_dataset("Music")
    X, Y = data.X[:400], data.Y[:400]
    inside = make_resolved_method(get_entry("CC"), resolve_method("CC", {}, "standard_logistic")).fit(X, Y)
    once = make_resolved_method(get_entry("CC"), resolve_method("CC", {}, "logistic", "standard")).fit(X, Y)
    last_inside, last_once = inside.estimators_[-1], once[-1].estimators_[-1]
    n_features = X.shape[1]
    # The same model of x up to scaling, but the label columns' weights differ: only one saw them scaled.
    assert last_inside.coef_.shape == last_once.coef_.shape == (1, n_features + Y.shape[1] - 1)
    assert not np.allclose(last_inside.coef_[0, n_features:], last_once.coef_[0, n_features:] / 1.0, rtol=1e-3)
