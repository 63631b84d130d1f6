"""What every multi-label method shares: the scikit-learn contract and input checks."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, MultiOutputMixin
from sklearn.utils.validation import check_is_fitted


class MultiLabelClassifier(MultiOutputMixin, ClassifierMixin, BaseEstimator):
    """Base class: ``fit(X, Y)`` with a binary label matrix, ``predict`` thresholds ``predict_proba``.

    ``score`` (from ``ClassifierMixin``) is then exact match, scikit-learn's subset accuracy.
    Subclasses implement ``fit`` and ``predict_proba`` (marginal P(y_j = 1 | x), shape (n, L));
    methods whose prediction is not a threshold of the marginals (chains) override ``predict``.
    """

    def predict(self, X):
        return (self.predict_proba(X) >= 0.5).astype(np.int8)

    @property
    def classes_(self):
        """The classes of each label, ``[0, 1]``: scikit-learn's multi-output convention, which
        its scorers (``make_scorer``, ``cross_validate``) read. Available after ``fit``."""
        check_is_fitted(self, "n_labels_")
        return [np.array([0, 1])] * self.n_labels_

    def _fit_input(self, X, Y):
        """The start of every ``fit``: parameters checked (where declared), X and Y validated."""
        if hasattr(self, "_parameter_constraints"):
            self._validate_params()
        X = self._check_X(X, reset=True)
        return X, self._check_Y(Y, X.shape[0])

    def _check_X(self, X, *, reset: bool):
        """Validate X: CSR sparse stays sparse, dense becomes float64; NaN must be imputed first."""
        if sp.issparse(X):
            X = sp.csr_matrix(X, dtype=np.float64)
            values = X.data
        else:
            X = np.asarray(X, dtype=np.float64)
            if X.ndim != 2:
                raise ValueError(f"X must be 2-dimensional, got shape {X.shape}")
            values = X
        if not np.isfinite(values).all():
            raise ValueError("X contains NaN or infinity; impute missing values before fitting")
        if reset:
            self.n_features_in_ = X.shape[1]
        else:
            check_is_fitted(self)
            if X.shape[1] != self.n_features_in_:
                raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} was fitted with {self.n_features_in_}")
        return X

    @staticmethod
    def _check_Y(Y, n_samples: int) -> np.ndarray:
        Y = np.asarray(Y.toarray() if sp.issparse(Y) else Y)
        if Y.ndim == 1:
            Y = Y.reshape(-1, 1)
        if Y.ndim != 2 or Y.shape[0] != n_samples:
            raise ValueError(f"Y must have shape (n_samples, n_labels) with n_samples={n_samples}, got {Y.shape}")
        if not np.isin(Y, (0, 1)).all():
            raise ValueError("Y must be a binary (0/1) label matrix")
        return Y.astype(np.int8)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        return tags


def hstack_features(X, Z):
    """``[X, Z]`` column-wise, sparse when X is sparse (label columns are few and dense-ish)."""
    if sp.issparse(X):
        return sp.hstack([X, sp.csr_matrix(Z, dtype=np.float64)], format="csr")
    return np.hstack([X, np.asarray(Z, dtype=np.float64)])
