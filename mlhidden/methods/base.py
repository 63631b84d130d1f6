"""What every multi-label method shares: the scikit-learn contract and input checks."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin, MultiOutputMixin
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from mlhidden.data.dataset import Matrix
from mlhidden.methods.base_learners import check_base_learner
from mlhidden.methods.sparse_products import csr_from_dense


def _thresholded(proba: np.ndarray) -> np.ndarray:
    return np.asarray(proba >= 0.5).astype(np.int8)


class MultiLabelClassifier(MultiOutputMixin, ClassifierMixin, BaseEstimator):
    """Base class: ``fit(X, Y)`` with a binary label matrix, ``predict`` thresholds ``predict_proba``.

    ``score`` (from ``ClassifierMixin``) is then exact match, scikit-learn's subset accuracy.
    Subclasses implement ``fit`` and ``predict_proba`` (marginal P(y_j = 1 | x), shape (n, L));
    methods whose prediction is not a threshold of the marginals (chains) override ``predict``, and
    ``predict_with_proba`` where one pass gives both.
    Methods built from a base learner (an ``estimator`` parameter) say whether they read its
    probabilities in ``_needs_probabilities`` and whether it must be multi-class in ``_needs_multiclass``.
    """

    def predict(self, X: Matrix) -> np.ndarray:
        return _thresholded(self.predict_proba(X))

    def predict_with_proba(self, X: Matrix) -> tuple[np.ndarray, np.ndarray]:
        """``(predict(X), predict_proba(X))``, bit for bit, from one pass where the method can share it.

        A run wants both for every test row (:func:`~mlhidden.runs.unit_fit.fit_unit`), and a chain's
        greedy pass, a stack's middle layer, a basis or a network gives them together: called apart,
        each computes it again. Thresholded marginals come from one ``predict_proba``.
        """
        if type(self).predict is MultiLabelClassifier.predict:
            proba = self.predict_proba(X)
            return _thresholded(proba), proba
        return self.predict(X), self.predict_proba(X)

    @property
    def classes_(self) -> list[np.ndarray]:
        """The classes of each label, ``[0, 1]``: scikit-learn's multi-output convention, which
        its scorers (``make_scorer``, ``cross_validate``) read. Available after ``fit``."""
        check_is_fitted(self, "n_labels_")
        return [np.array([0, 1])] * self.n_labels_

    def _needs_probabilities(self) -> bool:
        """Whether the method reads its base learner's ``predict_proba`` (PCC's search does)."""
        return False

    def _needs_multiclass(self) -> bool:
        """Whether the method fits its base learner on more than two classes (LP does)."""
        return False

    def _fit_input(self, X: Matrix, Y: ArrayLike) -> tuple[Matrix, np.ndarray]:
        """The start of every ``fit``: parameters and base learner checked, X and Y validated."""
        if hasattr(self, "_parameter_constraints"):
            self._validate_params()
        if "estimator" in self.get_params(deep=False):
            check_base_learner(
                self.estimator,
                needs_probabilities=self._needs_probabilities(),
                needs_multiclass=self._needs_multiclass(),
                method=type(self).__name__,
            )
        X = self._check_X(X, reset=True)
        return X, self._check_Y(Y, X.shape[0])

    def _check_X(self, X: Matrix, *, reset: bool) -> Matrix:
        """Validate X (scikit-learn's checks and messages): sparse becomes CSR, dense float64.

        NaN is refused: impute missing values first (the runner does, with training means).
        """
        if not reset:
            check_is_fitted(self)
        X = validate_data(self, X, reset=reset, accept_sparse="csr", dtype=np.float64)
        return sp.csr_matrix(X) if sp.issparse(X) else X

    def _check_Y(self, Y: Any, n_samples: int) -> np.ndarray:
        """Validate Y: a 0/1 label matrix (sparse is made dense, a vector is one label)."""
        if Y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        Y = check_array(Y, accept_sparse="csr", ensure_2d=False, dtype=None, input_name="Y")
        Y = Y.toarray() if sp.issparse(Y) else Y
        if Y.ndim == 1:
            Y = Y.reshape(-1, 1)
        if Y.ndim != 2 or Y.shape[0] != n_samples:
            raise ValueError(f"Y must have shape (n_samples, n_labels) with n_samples={n_samples}, got {Y.shape}")
        if not np.isin(Y, (0, 1)).all():
            kind = type_of_target(Y)
            if kind.startswith("multiclass"):
                raise ValueError(
                    f"Only binary classification is supported. The target is {kind}: Y must be a 0/1 label matrix"
                )
            raise ValueError(
                f"Unknown label type: {kind} with values {np.unique(Y)[:5].tolist()}. Y must be a 0/1 label matrix"
            )
        return np.asarray(Y.astype(np.int8))

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        tags.classifier_tags.multi_class = False
        tags.classifier_tags.multi_label = True
        return tags


def hstack_features(X: Matrix, Z: np.ndarray) -> Matrix:
    """``[X, Z]`` column-wise, sparse when X is sparse (label columns are few and dense-ish)."""
    if sp.issparse(X):
        return sp.hstack([X, csr_from_dense(Z)], format="csr")
    return np.hstack([X, np.asarray(Z, dtype=np.float64)])


def shares_one_pass(estimator: Any) -> bool:
    """Whether ``estimator.predict_with_proba`` computes both from one pass: its class's own, or thresholded
    marginals; not a ``predict`` then a ``predict_proba``, nor any estimator without the method."""
    if not isinstance(estimator, MultiLabelClassifier):
        return False
    kind = type(estimator)
    return kind.predict_with_proba is not MultiLabelClassifier.predict_with_proba or (
        kind.predict is MultiLabelClassifier.predict
    )
