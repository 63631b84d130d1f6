"""Methods from other packages (or the user's own) adapted to the protocol's label matrices."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin, MultiOutputMixin, clone
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted

from mlhidden.data.dataset import Matrix

if TYPE_CHECKING:
    from typing_extensions import Self


def _dense(values: Any) -> np.ndarray:
    return np.asarray(values.toarray() if sp.issparse(values) else values)


def _positive_column(proba: Any, classes: ArrayLike, n_rows: int) -> np.ndarray:
    """P(y = 1) from one label's (n, n_classes) probabilities, whatever classes it saw."""
    classes = list(np.asarray(classes))
    return _dense(proba)[:, classes.index(1)] if 1 in classes else np.zeros(n_rows)


class ExternalMethod(MultiOutputMixin, ClassifierMixin, BaseEstimator):
    """Any estimator with ``fit(X, Y)`` and ``predict(X)``, run on a split like the built-in methods.

    What the adapter does, and nothing more:

    - Labels constant in the training rows are not given to ``estimator`` and are predicted
      constant. Random splits make such labels routine (every Corel5k split has some), and
      scikit-learn's classifiers refuse a one-class target; the built-in methods do the same.
    - Predictions become a dense (n, L) 0/1 array, whatever form ``estimator`` returns them in
      (sparse, as scikit-multilearn does; 1-d for a single label).
    - ``predict_proba`` becomes the (n, L) marginals P(y_j = 1 | x), also from a list with one
      (n, 2) array per label (``KNeighborsClassifier``, ``MultiOutputClassifier``).

    Parameters
    ----------
    estimator : estimator
        The method, unfitted; it is cloned for fitting.

    Attributes
    ----------
    estimator_ : the fitted clone, or None when every label is constant in training.
    varying_labels_ : ndarray of int, the labels ``estimator_`` predicts.
    constant_values_ : ndarray of int8, shape (L,), each constant label's value (ignored elsewhere).
    n_labels_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> X = np.array([[0.], [1.], [2.], [3.]])
    >>> Y = np.array([[0, 1], [0, 1], [1, 1], [1, 1]])  # the second label is constant
    >>> ExternalMethod(KNeighborsClassifier(n_neighbors=1)).fit(X, Y).predict(X).tolist()
    [[0, 1], [0, 1], [1, 1], [1, 1]]
    """

    def __init__(self, estimator: Any) -> None:
        self.estimator = estimator

    def fit(self, X: Matrix, Y: ArrayLike) -> Self:
        Y = _dense(Y)
        Y = Y.reshape(len(Y), -1)
        if Y.shape[0] == 0:
            raise ValueError("cannot fit a method on 0 training rows")
        varying = (Y != Y[0]).any(axis=0)
        self.varying_labels_ = np.flatnonzero(varying)
        self.constant_values_ = np.where(varying, 0, Y[0]).astype(np.int8)
        self.n_labels_ = Y.shape[1]
        self.estimator_ = None
        if self.varying_labels_.size:
            target = Y[:, self.varying_labels_]
            self.estimator_ = clone(self.estimator).fit(X, target[:, 0] if target.shape[1] == 1 else target)
        return self

    def _assemble(self, n_rows: int, varying_part: ArrayLike | None) -> np.ndarray:
        columns = np.tile(self.constant_values_.astype(float), (n_rows, 1))
        if varying_part is not None:
            columns[:, self.varying_labels_] = np.asarray(varying_part, dtype=float).reshape(n_rows, -1)
        return columns

    def predict(self, X: Matrix) -> np.ndarray:
        check_is_fitted(self)
        predicted = None if self.estimator_ is None else _dense(self.estimator_.predict(X))
        return self._assemble(X.shape[0], predicted).astype(np.int8)

    def predict_proba(self, X: Matrix) -> np.ndarray:
        """P(y_j = 1 | x) for every label, shape (n, L)."""
        check_is_fitted(self)
        proba = None
        if self.estimator_ is not None:
            proba = self.estimator_.predict_proba(X)
            classes = getattr(self.estimator_, "classes_", None)
            if isinstance(proba, list):
                if classes is None:
                    raise ValueError(
                        f"{type(self.estimator_).__name__}.predict_proba gives one array per label, "
                        "but the estimator has no classes_ saying which column is y = 1: "
                        "set classes_ in fit, as scikit-learn's classifiers do"
                    )
                proba = np.column_stack([_positive_column(p, c, X.shape[0]) for p, c in zip(proba, classes)])
            elif self.varying_labels_.size == 1 and classes is not None:
                proba = _positive_column(proba, classes, X.shape[0])
        return self._assemble(X.shape[0], None if proba is None else _dense(proba))

    @property
    def classes_(self) -> list[np.ndarray]:
        """``[0, 1]`` for every label, as the built-in methods (read by scikit-learn's scorers)."""
        check_is_fitted(self)
        return [np.array([0, 1])] * self.n_labels_

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = get_tags(self.estimator).input_tags.sparse
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        return tags
