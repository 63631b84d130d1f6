"""Per-method input preprocessing: scikit-learn transformers fitted on a unit's training part only.

A method entry's ``preprocess`` is ``standard``, ``maxabs``, ``none`` or a list of transformers,
each a shortcut, an import path (``sklearn.preprocessing.QuantileTransformer``) or
``{name: ..., params: {...}}``. It becomes part of the method's resolved identity
(``ResolvedMethod.preprocess``, a list of ``{name, params}``), so the store keys it; ``none`` adds
nothing, so a method without preprocessing keeps its identity and its stored results. The
method is then built as a scikit-learn ``Pipeline`` whose last step is the method: the
transformers see only the rows the method is fitted on, and the test rows go through the fitted
transformers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MaxAbsScaler, StandardScaler
from sklearn.utils.validation import check_is_fitted

from mlhidden.data.dataset import Matrix
from mlhidden.errors import UserError
from mlhidden.methods.imported_classes import named_class

if TYPE_CHECKING:
    from typing_extensions import Self

NO_PREPROCESSING = "none"


class StandardScaling(TransformerMixin, BaseEstimator):
    """Zero mean and unit variance per column; sparse input is scaled without centring.

    Centring a sparse matrix would make it dense, so sparse columns are only divided by their
    standard deviation (scikit-learn's ``StandardScaler(with_mean=False)``); dense columns are
    centred too. Constant columns are left unscaled.

    Attributes
    ----------
    scaler_ : StandardScaler, fitted with ``with_mean`` set by the training input's sparsity.

    Examples
    --------
    >>> import numpy as np
    >>> from mlhidden.methods.preprocessing import StandardScaling
    >>> StandardScaling().fit_transform(np.array([[0.0], [2.0]])).ravel().tolist()
    [-1.0, 1.0]
    """

    def fit(self, X: Matrix, y: object = None) -> Self:
        self.scaler_ = StandardScaler(with_mean=not sp.issparse(X)).fit(X)
        self.n_features_in_ = self.scaler_.n_features_in_
        return self

    def transform(self, X: Matrix) -> Matrix:
        check_is_fitted(self)
        return self.scaler_.transform(X)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


PREPROCESSORS = {"standard": StandardScaling, "maxabs": MaxAbsScaler}


def _step_spec(step: object) -> tuple[str, dict[str, Any]]:
    if isinstance(step, str):
        return step, {}
    if isinstance(step, Mapping) and isinstance(step.get("name"), str) and set(step) <= {"name", "params"}:
        params = step.get("params") or {}
        if not isinstance(params, Mapping):
            raise UserError(f"preprocess step '{step['name']}': params must be a mapping, got {params!r}")
        return step["name"], dict(params)
    raise UserError(f"preprocess step {step!r} is not a name or {{name: ..., params: {{...}}}}")


def _transformer_class(name: str) -> Any:
    if name in PREPROCESSORS:
        return PREPROCESSORS[name]
    hint = (
        f"use {', '.join(PREPROCESSORS)}, {NO_PREPROCESSING}, or a list of transformers by import path "
        "such as sklearn.preprocessing.MaxAbsScaler"
    )
    return named_class(name, "preprocessing", "transformer", ("fit", "transform", "get_params"), hint)


def _make_transformer(step: Mapping[str, Any]) -> Any:
    """An unfitted transformer from a resolved ``{name, params}`` step, its parameters checked."""
    cls = _transformer_class(step["name"])
    try:
        transformer = cls(**step["params"])
        if hasattr(transformer, "_parameter_constraints"):
            transformer._validate_params()
    except (TypeError, ValueError) as exc:
        raise UserError(f"preprocess step '{step['name']}': {exc}".splitlines()[0]) from None
    return transformer


def resolve_preprocess(value: object) -> list[dict[str, Any]] | None:
    """A config's ``preprocess`` value as a list of ``{name, params}`` steps, each checked; None for none."""
    if value is None or value == NO_PREPROCESSING:
        return None
    steps = [value] if isinstance(value, (str, Mapping)) else value
    if not isinstance(steps, list) or not steps:
        raise UserError(
            f"'preprocess' must be {', '.join(PREPROCESSORS)}, {NO_PREPROCESSING} or a non-empty list of transformers, "
            f"got {value!r}"
        )
    resolved = [dict(zip(("name", "params"), _step_spec(step))) for step in steps]
    for step in resolved:
        _make_transformer(step)
    return resolved


def with_preprocessing(method: Any, steps: Sequence[Mapping[str, Any]] | None) -> Any:
    """``method`` behind its fitted-on-training transformers (a ``Pipeline``), or itself without any."""
    if not steps:
        return method
    transformers = [(f"preprocess{i}", _make_transformer(step)) for i, step in enumerate(steps)]
    return Pipeline([*transformers, ("method", method)])


def method_of(estimator: Any) -> Any:
    """The multi-label method inside a ``with_preprocessing`` pipeline (or the estimator itself)."""
    return estimator.steps[-1][1] if isinstance(estimator, Pipeline) else estimator
