"""Base learners by name: the binary classifiers that every multi-label method is built from.

A base-learner spec is a name (``"logistic"``), an import path to any scikit-learn classifier
(``"sklearn.svm.LinearSVC"``), or a mapping ``{name: ..., params: {...}}``. A meta-estimator's
``estimator`` parameter may itself be a spec: ``{name: sklearn.calibration.CalibratedClassifierCV,
params: {estimator: sklearn.svm.LinearSVC}}`` gives a linear SVM probabilities.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.sparse import issparse
from sklearn.base import clone, is_classifier
from sklearn.dummy import DummyClassifier
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression, LogisticRegressionCV
from sklearn.linear_model._base import LinearClassifierMixin

from mlhidden.data.dataset import Matrix
from mlhidden.errors import UserError, did_you_mean
from mlhidden.methods.imported_classes import named_class
from mlhidden.methods.scaled_logistic import StandardScaledLogisticRegression
from mlhidden.methods.sklearn_api import PENALTY_FROM_L1_RATIO, HasMethods
from mlhidden.methods.sparse_products import matmul

DEFAULT_C = 1.0
"""The logistic base learners' C where a config sets none: the one place it is written. Each config's
resolved base learner records it (:func:`resolved_base_params`), and every build reads it from there."""
BASE_LEARNERS: dict[str, tuple[type, dict[str, Any]]] = {
    "logistic": (LogisticRegression, {"C": DEFAULT_C}),
    "standard_logistic": (StandardScaledLogisticRegression, {"C": DEFAULT_C}),
    "random_forest": (RandomForestClassifier, {"n_estimators": 100}),
    # C chosen per fit by 3-fold cross-validation on the training part, by log-loss (accuracy
    # ties on rare labels and would pick the smallest C); the folds are not shuffled.
    "logistic_cv": (LogisticRegressionCV, {"Cs": [0.01, 0.1, 1.0, 10.0, 100.0], "cv": 3, "scoring": "neg_log_loss"}),
}
if PENALTY_FROM_L1_RATIO:
    # The L2 penalty and fitted attributes that scikit-learn >= 1.8 warns will become its defaults.
    BASE_LEARNERS["logistic_cv"][1].update({"l1_ratios": [0.0], "use_legacy_attributes": False})
# Base-learner names that are logistic regressions (C tuned or not, scaling inside or not): the report's
# "logistic-regression methods".
LOGISTIC_LEARNERS = (
    "logistic",
    "standard_logistic",
    "logistic_cv",
    "sklearn.linear_model.LogisticRegression",
    "sklearn.linear_model.LogisticRegressionCV",
)
CALIBRATION_HINT = "wrap it: {name: sklearn.calibration.CalibratedClassifierCV, params: {estimator: ...}}"
ONE_VS_REST_HINT = (
    "wrap it: {name: sklearn.multiclass.OneVsRestClassifier, params: {estimator: ...}}, as liblinear did itself before"
)

# What an ``estimator`` parameter accepts: an estimator, a spec (name or mapping), or None.
ESTIMATOR_CONSTRAINT = [HasMethods(["fit"]), str, Mapping, None]


def parse_base_spec(spec: object) -> tuple[str, dict[str, Any]]:
    """Split a base-learner spec into ``(name, params)``."""
    if spec is None:
        return "logistic", {}
    if isinstance(spec, str):
        return spec, {}
    if isinstance(spec, Mapping) and "name" in spec:
        unknown = set(spec) - {"name", "params"}
        if unknown:
            raise UserError(
                f"base learner spec has unknown keys {sorted(unknown)}", hint="use {name: ..., params: {...}}"
            )
        params = spec.get("params") or {}
        if not isinstance(params, Mapping):
            raise UserError(f"base learner '{spec['name']}': params must be a mapping, got {params!r}")
        return str(spec["name"]), dict(params)
    raise UserError(f"base learner spec {spec!r} is not a name or a mapping with 'name'")


def _resolve_class(name: str) -> tuple[Any, dict[str, Any]]:
    if name in BASE_LEARNERS:
        return BASE_LEARNERS[name]
    hint = (
        f"{did_you_mean(name, BASE_LEARNERS)}valid names: {', '.join(sorted(BASE_LEARNERS))}, "
        "or an import path such as sklearn.svm.LinearSVC"
    )
    return named_class(name, "base learner", "estimator", ("fit", "get_params"), hint), {}


def _is_spec(value: object) -> bool:
    """Whether ``value`` is a base-learner spec (a name or a mapping) rather than an estimator."""
    return isinstance(value, (str, Mapping))


def make_base_learner(spec: object = None) -> Any:
    """Build an unfitted base learner from a spec, with our defaults under the user's params."""
    return make_resolved_base_learner(resolved_base_params(spec))


def resolved_base_params(spec: object) -> dict[str, Any]:
    """The full ``{name, params}`` of a spec with defaults filled in: the one place a base learner's spec is
    read and its defaults applied, for hashing, display and :func:`make_resolved_base_learner`."""
    name, params = parse_base_spec(spec)
    _, defaults = _resolve_class(name)
    if _is_spec(params.get("estimator")):
        params["estimator"] = resolved_base_params(params["estimator"])
    return {"name": name, "params": {**defaults, **params}}


def make_resolved_base_learner(resolved: Mapping[str, Any]) -> Any:
    """The unfitted base learner of a :func:`resolved_base_params` description, as it is written.

    Everything is checked here, before any fit: the class, the parameter names and values (by
    the class's own declared constraints), and that it is a classifier.
    """
    name, params = resolved["name"], dict(resolved["params"])
    cls, _ = _resolve_class(name)
    valid = {
        p.name for p in inspect.signature(cls).parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    }
    unknown = set(params) - valid
    if unknown:
        raise UserError(
            f"base learner '{name}' has no parameter(s) {', '.join(sorted(unknown))}",
            hint=f"{did_you_mean(min(unknown), valid)}valid: {', '.join(sorted(valid))}",
        )
    if isinstance(params.get("estimator"), Mapping):
        params["estimator"] = make_resolved_base_learner(params["estimator"])
    try:
        learner = cls(**params)
        if hasattr(learner, "_parameter_constraints"):
            learner._validate_params()
    except (TypeError, ValueError) as exc:
        raise UserError(f"base learner '{name}': {exc}".splitlines()[0]) from None
    if not is_classifier(learner):
        raise UserError(
            f"base learner '{name}' is not a classifier",
            hint="multi-label methods are built from binary classifiers, e.g. logistic or sklearn.svm.LinearSVC",
        )
    return learner


def check_base_learner(
    estimator: Any, *, needs_probabilities: bool, needs_multiclass: bool = False, method: str = "this method",
) -> None:
    """Refuse a base learner that is not a classifier, lacks ``predict_proba`` where it is read, or
    is binary-only where the method fits one multi-class model (LP).

    ``estimator`` is an estimator or a spec (checked by :func:`make_base_learner`). Raises
    ``ValueError`` (``UserError`` for a bad spec).
    """
    learner = make_base_learner(estimator) if estimator is None or _is_spec(estimator) else estimator
    if not is_classifier(learner):
        raise ValueError(f"the base learner {type(learner).__name__} is not a classifier")
    if needs_probabilities and not hasattr(learner, "predict_proba"):
        raise ValueError(
            f"{method} reads its base learner's probabilities, and {type(learner).__name__} has no predict_proba "
            f"({CALIBRATION_HINT})"
        )
    if needs_multiclass and binary_only(learner):
        raise ValueError(
            f"{method} fits one multi-class model, and {type(learner).__name__} with solver='liblinear' is binary only "
            f"in this scikit-learn ({ONE_VS_REST_HINT})"
        )


def binary_only(learner: Any) -> bool:
    """Whether ``learner`` refuses more than two classes: scikit-learn's liblinear logistic regression."""
    params = learner.get_params(deep=False)
    return isinstance(learner, (LogisticRegression, LogisticRegressionCV)) and params.get("solver") == "liblinear"


def as_estimator(estimator: Any) -> Any:
    """An unfitted copy of ``estimator``, which may be a fitted estimator, a spec or None."""
    if estimator is None or _is_spec(estimator):
        return make_base_learner(estimator)
    return clone(estimator)


def draw_seed(rng: np.random.RandomState) -> int:
    """One integer seed from ``rng``, for a sub-estimator's ``random_state``."""
    return int(rng.randint(np.iinfo(np.int32).max))


def seed_estimator(estimator: Any, rng: np.random.RandomState) -> Any:
    """Give ``estimator`` (and nested estimators) a seed drawn from ``rng`` where they take one."""
    seed = draw_seed(rng)
    keys = [k for k in estimator.get_params() if k == "random_state" or k.endswith("__random_state")]
    if keys:
        estimator.set_params(**{k: seed for k in keys})
    return estimator


def fit_binary(estimator: Any, X: Matrix, y: ArrayLike, rng: np.random.RandomState) -> Any:
    """Fit a fresh copy of ``estimator`` on one target (binary, or multi-class for LP); a constant target gets a
    constant model.

    Single-class training labels are routine (every Corel5k split has them); scikit-learn's
    classifiers refuse them, so they get a ``DummyClassifier`` that always predicts the one class.
    The seed is drawn even for constant targets so that later seeds do not depend on the data.
    """
    model = seed_estimator(as_estimator(estimator), rng)
    y = np.asarray(y)
    if np.unique(y).size < 2:
        model = DummyClassifier(strategy="prior")
    return model.fit(X, y)


def positive_proba(model: Any, X: Matrix) -> np.ndarray:
    """P(y=1 | x) from a fitted binary classifier, whatever classes it saw in training."""
    classes = np.asarray(model.classes_)
    if classes.size == 1:
        return np.full(X.shape[0], float(classes[0] == 1))
    if hasattr(model, "predict_proba"):
        proba = model.predict_proba(X)
        return np.asarray(proba[:, np.flatnonzero(classes == 1)[0]])
    return np.asarray(model.predict(X) == 1, dtype=float)


def _is_plain_linear(model: Any) -> bool:
    """Whether ``model.predict`` is scikit-learn's linear rule ``X coef^T + intercept > 0`` over classes [0, 1]."""
    kind = type(model)
    return (
        isinstance(model, LinearClassifierMixin)
        and kind.predict is LinearClassifierMixin.predict
        and kind.decision_function is LinearClassifierMixin.decision_function
        and np.array_equal(getattr(model, "classes_", ()), [0, 1])
    )


def predict_labels(models: list[Any], X: Matrix) -> np.ndarray:
    """Each model's ``predict(X)`` as one column of int8, bit for bit, X validated once rather than per model.

    Linear models score X as their ``decision_function`` does: a sparse X times all their weights in
    one product (:func:`~mlhidden.methods.sparse_products.matmul` sums each entry in scipy's order, as
    scikit-learn's product with one weight vector does), a dense X times each vector as numpy does. On
    Corel5k, validating X for each of 374 labels took most of BR's prediction time.
    """
    predicted = np.empty((X.shape[0], len(models)), dtype=np.int8)
    linear = [j for j, model in enumerate(models) if _is_plain_linear(model)]
    if linear and issparse(X):
        weights = np.column_stack([np.ravel(models[j].coef_) for j in linear])
        predicted[:, linear] = matmul(X, weights) + np.concatenate([models[j].intercept_ for j in linear]) > 0
    else:
        for j in linear:
            predicted[:, j] = np.ravel(X @ models[j].coef_.T + models[j].intercept_) > 0
    for j in sorted(set(range(len(models))) - set(linear)):
        predicted[:, j] = models[j].predict(X)
    return predicted
