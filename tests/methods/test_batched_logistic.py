"""The batched logistic solver against scikit-learn's LogisticRegression on the real datasets."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import expit
from sklearn.dummy import DummyClassifier
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.multioutput import ClassifierChain, MultiOutputClassifier

from mlhidden.data import load_dataset
from mlhidden.methods import BR, CC
from mlhidden.methods.solvers.batched_logistic import fit_batched_logistic
from mlhidden.methods.solvers.logistic_models import batchable_logistic, fit_logistic_models


@pytest.fixture(scope="module")
def medical(mirror_dir):
    """Medical (sparse text), first 600 rows for training, the rest for testing, 12 varying labels."""
    data = load_dataset(mirror_dir / "Medical.arff")
    Y = data.Y[:, np.argsort(-data.Y[:600].sum(axis=0))[:12]]
    return data.X[:600], Y[:600], data.X[600:], Y[600:]


@pytest.fixture(scope="module")
def music(mirror_dir):
    data = load_dataset(mirror_dir / "Music.arff")
    return data.X[:400], data.Y[:400], data.X[400:], data.Y[400:]


def objective(X, y, coef, intercept, C):
    """scikit-learn's lbfgs objective: mean log-loss plus ||w||^2 / (2 C n)."""
    z = np.asarray(X @ coef).ravel() + intercept
    return np.mean(np.logaddexp(0, z) - y * z) + coef @ coef / (2 * C * X.shape[0])


def tight(C=1.0):
    return LogisticRegression(C=C, tol=1e-10, max_iter=5000)


@pytest.mark.parametrize("C", [1.0, 0.1])
def test_coefficients_match_a_tightly_converged_sklearn_fit_on_sparse_text(medical, C):
    X, Y, _, _ = medical
    assert sp.issparse(X)
    fit = fit_batched_logistic(X, Y, C=C, tol=1e-6)  # converged to the optimum, not just to sklearn's default
    assert fit.converged.all()
    for j in range(Y.shape[1]):
        reference = tight(C).fit(X, Y[:, j])
        np.testing.assert_allclose(fit.coef[:, j], reference.coef_.ravel(), atol=2e-3)
        np.testing.assert_allclose(fit.intercept[j], reference.intercept_[0], atol=2e-3)


def gradient(X, y, coef, intercept, C):
    """The exact gradient of ``objective`` in double precision: weights, then intercept."""
    residual = (expit(np.asarray(X @ coef).ravel() + intercept) - y) / X.shape[0]
    return np.append(np.asarray(X.T @ residual).ravel() + coef / (C * X.shape[0]), residual.sum())


def test_stops_where_sklearn_lbfgs_stops(medical):
    """Same test as lbfgs (every gradient entry within tol), so the optimum is reached as closely."""
    X, Y, _, _ = medical
    fit = fit_batched_logistic(X, Y)
    assert fit.converged.all()
    for j in range(Y.shape[1]):
        assert np.abs(gradient(X, Y[:, j], fit.coef[:, j], fit.intercept[j], 1.0)).max() <= 1e-4
        optimum = tight().fit(X, Y[:, j])
        best = objective(X, Y[:, j], optimum.coef_.ravel(), optimum.intercept_[0], 1.0)
        sk = LogisticRegression().fit(X, Y[:, j])
        default_gap = objective(X, Y[:, j], sk.coef_.ravel(), sk.intercept_[0], 1.0) - best
        assert objective(X, Y[:, j], fit.coef[:, j], fit.intercept[j], 1.0) - best <= max(10 * default_gap, 1e-7)


def test_unconverged_targets_warn_as_sklearn_does(medical):
    X, Y, _, _ = medical
    with pytest.warns(ConvergenceWarning, match=r"for 12 of 12 targets \(max_iter=2\)"):
        models = fit_logistic_models({"name": "logistic", "params": {"max_iter": 2}}, X, Y, seeds=np.arange(Y.shape[1]))
    assert [m.n_iter_[0] for m in models] == [2] * 12


def test_dense_inputs_match_sklearn(music):
    X, Y, X_test, _ = music
    fit = fit_batched_logistic(X, Y, tol=1e-6)
    for j in range(Y.shape[1]):
        reference = tight().fit(X, Y[:, j])
        np.testing.assert_allclose(fit.coef[:, j], reference.coef_.ravel(), atol=2e-3)
        same = ((X_test @ fit.coef[:, j] + fit.intercept[j]) > 0) == reference.predict(X_test)
        assert same.mean() >= 0.99


def test_masked_extra_columns_give_each_chain_link_its_own_inputs(music):
    X, Y, _, _ = music
    tight_spec = {"name": "logistic", "params": {"tol": 1e-6}}
    models = fit_logistic_models(
        tight_spec, X, Y, seeds=np.arange(Y.shape[1]), extra=Y, n_extra_used=np.arange(Y.shape[1])
    )
    for j, model in enumerate(models):
        inputs = np.hstack([X, Y[:, :j]])
        assert model.n_features_in_ == X.shape[1] + j
        reference = tight().fit(inputs, Y[:, j])
        np.testing.assert_allclose(model.coef_, reference.coef_, atol=2e-3)
        assert (model.predict(inputs) == reference.predict(inputs)).mean() >= 0.99


def test_constant_targets_get_a_constant_model(medical):
    X, Y, X_test, _ = medical
    Y = np.column_stack([Y[:, 0], np.zeros(X.shape[0], dtype=np.int8), Y[:, 1], np.ones(X.shape[0], dtype=np.int8)])
    models = fit_logistic_models(LogisticRegression(random_state=0), X, Y, seeds=[1, 2, 3, 4])
    assert [type(m) for m in models] == [LogisticRegression, DummyClassifier, LogisticRegression, DummyClassifier]
    assert models[1].predict(X_test).tolist() == [0] * X_test.shape[0]
    assert models[3].predict(X_test).tolist() == [1] * X_test.shape[0]
    drawn = [np.random.RandomState(seed).randint(np.iinfo(np.int32).max) for seed in (1, 3)]
    assert [models[0].random_state, models[2].random_state] == drawn  # seeded as fit_binary seeds


def test_br_and_cc_predict_as_the_sklearn_routes_do(medical):
    X, Y, X_test, _ = medical
    br = BR(random_state=0).fit(X, Y)
    assert all(type(m) is LogisticRegression for m in br.estimators_)
    peer = MultiOutputClassifier(LogisticRegression()).fit(X, Y)
    assert (br.predict(X_test) == peer.predict(X_test)).mean() >= 0.995
    cc = CC(random_state=0).fit(X, Y)
    chain = ClassifierChain(LogisticRegression()).fit(X, Y)
    assert (cc.predict(X_test) == chain.predict(X_test)).mean() >= 0.995


@pytest.mark.parametrize(
    "estimator, expected",
    [
        (None, True),
        ("logistic", True),
        ({"name": "logistic", "params": {"C": 4.0, "tol": 1e-6}}, True),
        (LogisticRegression(solver="newton-cg"), True),
        (LogisticRegression(solver="liblinear"), True),
        (LogisticRegression(solver="liblinear", intercept_scaling=10.0), False),
        (LogisticRegression(solver="liblinear", dual=True), False),
        (LogisticRegression(class_weight="balanced"), False),
        (LogisticRegression(solver="saga", l1_ratio=1.0), False),
        (LogisticRegression(fit_intercept=False), False),
        (RandomForestClassifier(), False),
        (type("MyLogistic", (LogisticRegression,), {})(), False),
    ],
)
def test_only_plain_logistic_regressions_are_batched(estimator, expected):
    assert batchable_logistic(estimator) is expected
