"""The batched LogisticRegressionCV against scikit-learn's own, label by label, on the real datasets."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from scipy.special import expit
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import log_loss, make_scorer
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import StandardScaler

from mlhidden.data import load_dataset
from mlhidden.methods import CC, PCC
from mlhidden.methods.base_learners import make_base_learner
from mlhidden.methods.shared_fits import SharedFits
from mlhidden.methods.sklearn_api import PENALTY_FROM_L1_RATIO
from mlhidden.methods.solvers.batched_logistic_cv import fit_batched_logistic_cv, training_weights
from mlhidden.methods.solvers.logistic_models import batchable_logistic, fit_logistic_models

TUNED = {"name": "logistic_cv", "params": {"max_iter": 1000}}
CS = [0.01, 0.1, 1.0, 10.0, 100.0]




def reference(template):
    """scikit-learn's own fit of ``template``.

    Before 1.8 its ``neg_log_loss`` cannot score a held-out fold of one class (it raises); from
    1.8 it names both labels, as the batched fit does, and so does the reference here before 1.8.
    """
    if PENALTY_FROM_L1_RATIO:
        return clone(template)
    both_labels = make_scorer(log_loss, greater_is_better=False, response_method="predict_proba", labels=[0, 1])
    return clone(template).set_params(scoring=both_labels)


def fold_scores(model):
    """The held-out scores as (fold, C), from either layout of ``scores_`` (see mlhidden.methods.sklearn_api)."""
    return model.scores_[:, 0, :] if PENALTY_FROM_L1_RATIO else model.scores_[model.classes_[1]]


def layout(value):
    """A fitted attribute's type and shape (per key for a dict), to compare with scikit-learn's."""
    if isinstance(value, dict):
        return {key: np.shape(item) for key, item in value.items()}
    return type(value).__name__, np.shape(value), getattr(value, "dtype", None)


def standardised(mirror_dir, name, n_train):
    data = load_dataset(name, data_dir=mirror_dir)
    X = data.X.toarray() if hasattr(data.X, "toarray") else np.asarray(data.X)
    scaler = StandardScaler().fit(X[:n_train])
    return scaler.transform(X[:n_train]), data.Y[:n_train], scaler.transform(X[n_train:])


@pytest.fixture(scope="module")
def scene(mirror_dir):
    return standardised(mirror_dir, "Scene", 900)


@pytest.fixture(scope="module")
def medical(mirror_dir):
    """Medical's 8 most frequent labels and 7 with fewer positives than folds."""
    X, Y, X_test = standardised(mirror_dir, "Medical", 400)
    counts = Y.sum(axis=0)
    return X, Y[:, np.concatenate([np.argsort(-counts)[:8], np.flatnonzero((counts > 0) & (counts < 3))[:7]])], X_test


def fold_gradient(X, y, train, coef, intercept, C):
    """The exact gradient of a fold's lbfgs objective (mean log-loss over its rows plus ||w||^2 / (2 C n))."""
    Xf, yf = X[train], y[train]
    residual = (expit(Xf @ coef + intercept) - yf) / train.size
    return np.append(Xf.T @ residual + coef / (C * train.size), residual.sum())


def test_folds_are_the_splitters_folds_of_each_target(scene):
    _, Y, _ = scene
    weights = training_weights(Y, 3)
    assert weights.shape == (Y.shape[0], 3 * Y.shape[1])
    for target in range(Y.shape[1]):
        for fold, (train, _) in enumerate(StratifiedKFold(3).split(Y, Y[:, target])):
            np.testing.assert_array_equal(np.flatnonzero(weights[:, fold * Y.shape[1] + target]), train)


def test_each_fold_fit_is_at_its_optimum_and_scored_on_its_held_out_rows(scene):
    X, Y, _ = scene
    weights = training_weights(Y, 3)
    fit = fit_batched_logistic_cv(X, Y, weights=weights, Cs=CS, max_iter=1000)
    n_targets = Y.shape[1]
    for target in range(n_targets):
        for fold in range(3):
            train = np.flatnonzero(weights[:, fold * n_targets + target])
            held_out = np.setdiff1d(np.arange(X.shape[0]), train)
            for index, C in enumerate(CS):
                coef, intercept = fit.paths[fold, index, :-1, target], fit.paths[fold, index, -1, target]
                assert np.abs(fold_gradient(X, Y[:, target], train, coef, intercept, C)).max() <= 1e-4
                proba = expit(X[held_out] @ coef + intercept)
                expected = -log_loss(Y[held_out, target], proba, labels=[0, 1])
                assert fit.scores[fold, index, target] == pytest.approx(expected, abs=1e-5)
    assert (fit.C == np.asarray(CS)[fit.scores.sum(axis=0).argmax(axis=0)]).all()
    assert fit.converged.all()


def test_labels_get_sklearns_C_and_predictions_on_scene(scene):
    """Scene's folds hold both classes, so each C's fit has one optimum and the same C wins.

    At large C the problems are nearly separable, the optimum is flat, and where two solvers stop
    within tol moves the held-out loss by a few per cent; at the smallest C it does not."""
    X, Y, X_test = scene
    template = make_base_learner(TUNED)
    assert batchable_logistic(template)
    models = fit_logistic_models(template, X, Y, seeds=np.arange(Y.shape[1]))
    for target, model in enumerate(models):
        theirs = reference(template).fit(X, Y[:, target])
        assert model.C_ == theirs.C_
        np.testing.assert_allclose(fold_scores(model)[:, 0], fold_scores(theirs)[:, 0], rtol=2e-3)
        assert (model.predict(X_test) == theirs.predict(X_test)).mean() >= 0.999
        fitted = (
            "coefs_paths_",
            "scores_",
            "n_iter_",
            "Cs_",
            "C_",
            "l1_ratio_",
            "l1_ratios_",
            "classes_",
            "coef_",
            "intercept_",
        )
        for name in fitted:
            assert layout(getattr(model, name)) == layout(getattr(theirs, name)), name
        assert model.n_features_in_ == theirs.n_features_in_
        restored = pickle.loads(pickle.dumps(model))
        np.testing.assert_array_equal(restored.predict_proba(X_test), model.predict_proba(X_test))


def test_rare_labels_warn_as_sklearn_warns_and_predict_as_it_does(medical):
    """Folds with one class have no finite optimum (the C chosen there is noise for both); predictions still agree."""
    X, Y, X_test = medical
    assert Y.sum(axis=0).min() < 3
    template = make_base_learner(TUNED)
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        models = fit_logistic_models(template, X, Y, seeds=np.arange(Y.shape[1]))
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        references = [reference(template).fit(X, Y[:, target]) for target in range(Y.shape[1])]
    assert sorted(str(w.message) for w in ours) == sorted(str(w.message) for w in theirs)
    assert not any(issubclass(w.category, RuntimeWarning) for w in ours)
    same = [(model.predict(X_test) == reference.predict(X_test)).mean() for model, reference in zip(models, references)]
    assert np.mean(same) >= 0.999


def test_a_chain_reused_from_the_shared_fits_still_gives_the_splitters_warnings(medical, tmp_path):
    X, Y, _ = medical
    counts = []
    with SharedFits(tmp_path).active() as shared:
        for method in (CC(estimator=TUNED, order=None), PCC(estimator=TUNED, order=None)):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                method.fit(X, Y)
            counts.append(sum("least populated class" in str(w.message) for w in caught))
    assert shared.n_reused == 1
    assert counts[0] == counts[1] > 0


def test_unconverged_fits_warn_once_per_call():
    rng = np.random.RandomState(0)
    X, Y = rng.normal(size=(90, 5)), (rng.uniform(size=(90, 3)) < 0.5).astype(int)
    with pytest.warns(ConvergenceWarning, match=r"for 3 of 3 targets \(max_iter=1\)"):
        fit_logistic_models({"name": "logistic_cv", "params": {"max_iter": 1}}, X, Y, seeds=np.arange(3))


@pytest.mark.parametrize(
    "params",
    [
        {"scoring": "accuracy"},
        {"use_legacy_attributes": True} if PENALTY_FROM_L1_RATIO else {"l1_ratios": [0.0]},
        {"cv": StratifiedKFold(3, shuffle=True, random_state=0)},
        {"solver": "saga"},
    ],
)
def test_settings_it_does_not_solve_go_to_sklearn(params):
    assert not batchable_logistic({"name": "logistic_cv", "params": params})
