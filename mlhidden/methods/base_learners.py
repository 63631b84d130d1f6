"""Base learners by name: the binary classifiers that every multi-label method is built from.

A base-learner spec is a name (``"logistic"``), a dotted import path to any scikit-learn
classifier (``"sklearn.svm.LinearSVC"``), or a mapping ``{name: ..., params: {...}}``.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping

import numpy as np
from sklearn.base import clone
from sklearn.dummy import DummyClassifier
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.utils._param_validation import HasMethods

from mlhidden.errors import UserError

BASE_LEARNERS = {
    "logistic": (LogisticRegression, {"C": 1.0}),
    "random_forest": (RandomForestClassifier, {"n_estimators": 100}),
}

# What an ``estimator`` parameter accepts: an estimator, a spec (name or mapping), or None.
ESTIMATOR_CONSTRAINT = [HasMethods(["fit"]), str, Mapping, None]


def parse_base_spec(spec) -> tuple[str, dict]:
    """Split a base-learner spec into ``(name, params)``."""
    if spec is None:
        return "logistic", {}
    if isinstance(spec, str):
        return spec, {}
    if isinstance(spec, Mapping) and "name" in spec:
        unknown = set(spec) - {"name", "params"}
        if unknown:
            raise UserError(f"base learner spec has unknown keys {sorted(unknown)}", hint="use {name: ..., params: {...}}")
        params = spec.get("params") or {}
        if not isinstance(params, Mapping):
            raise UserError(f"base learner '{spec['name']}': params must be a mapping, got {params!r}")
        return str(spec["name"]), dict(params)
    raise UserError(f"base learner spec {spec!r} is not a name or a mapping with 'name'")


def _resolve_class(name: str):
    if name in BASE_LEARNERS:
        return BASE_LEARNERS[name]
    if "." in name:
        module_name, _, attr = name.rpartition(".")
        try:
            cls = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError):
            cls = None
        if inspect.isclass(cls) and hasattr(cls, "fit") and hasattr(cls, "get_params"):
            return cls, {}
    raise UserError(
        f"unknown base learner '{name}'",
        hint=f"valid names: {', '.join(sorted(BASE_LEARNERS))}, or an import path such as sklearn.svm.LinearSVC",
    )


def make_base_learner(spec=None):
    """Build an unfitted base learner from a spec, with our defaults under the user's params."""
    name, params = parse_base_spec(spec)
    cls, defaults = _resolve_class(name)
    valid = set(cls().get_params())
    unknown = set(params) - valid
    if unknown:
        raise UserError(
            f"base learner '{name}' has no parameter(s) {', '.join(sorted(unknown))}",
            hint=f"valid: {', '.join(sorted(valid))}",
        )
    try:
        return cls(**{**defaults, **params})
    except (TypeError, ValueError) as exc:
        raise UserError(f"base learner '{name}': {exc}") from None


def resolved_base_params(spec) -> dict:
    """The full ``{name, params}`` of a spec with defaults filled in, for hashing and display."""
    name, params = parse_base_spec(spec)
    cls, defaults = _resolve_class(name)
    return {"name": name, "params": {**defaults, **params}}


def as_estimator(estimator):
    """An unfitted copy of ``estimator``, which may be a fitted estimator, a spec or None."""
    if estimator is None or isinstance(estimator, (str, Mapping)):
        return make_base_learner(estimator)
    return clone(estimator)


def draw_seed(rng: np.random.RandomState) -> int:
    """One integer seed from ``rng``, for a sub-estimator's ``random_state``."""
    return int(rng.randint(np.iinfo(np.int32).max))


def seed_estimator(estimator, rng: np.random.RandomState):
    """Give ``estimator`` (and nested estimators) a seed drawn from ``rng`` where they take one."""
    seed = draw_seed(rng)
    keys = [k for k in estimator.get_params() if k == "random_state" or k.endswith("__random_state")]
    if keys:
        estimator.set_params(**{k: seed for k in keys})
    return estimator


def fit_binary(estimator, X, y, rng: np.random.RandomState):
    """Fit a fresh copy of ``estimator`` on one target (binary, or multi-class for LP); a constant target gets a constant model.

    Single-class training labels are routine (every Corel5k split has them); scikit-learn's
    classifiers refuse them, so they get a ``DummyClassifier`` that always predicts the one class.
    The seed is drawn even for constant targets so that later seeds do not depend on the data.
    """
    model = seed_estimator(as_estimator(estimator), rng)
    y = np.asarray(y)
    if np.unique(y).size < 2:
        model = DummyClassifier(strategy="prior")
    return model.fit(X, y)


def positive_proba(model, X) -> np.ndarray:
    """P(y=1 | x) from a fitted binary classifier, whatever classes it saw in training."""
    classes = np.asarray(model.classes_)
    if classes.size == 1:
        return np.full(X.shape[0], float(classes[0] == 1))
    if hasattr(model, "predict_proba"):
        proba = model.predict_proba(X)
        return proba[:, np.flatnonzero(classes == 1)[0]]
    return (model.predict(X) == 1).astype(float)
