"""Trivial baselines: predictors that ignore x, the floor every published number should clear.

A paper's value below what one of these gets (Medical's Hamming score of 0.70 against the
all-zero predictor's 0.97) cannot be a real method's result as printed. Each is fitted
on the training part like any method, so it is scored on the same splits as the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils.validation import check_is_fitted

from mlhidden.data.dataset import Matrix
from mlhidden.methods.base import MultiLabelClassifier

if TYPE_CHECKING:
    from typing_extensions import Self


class _LabelFrequencies(MultiLabelClassifier):
    """Learns the training label frequencies; ``predict_proba`` gives them for every row.

    The frequencies are the best x-free estimate of the marginals P(y_j = 1), so the probability
    and ranking metrics of a baseline are those of a model that knows only the label priors.
    """

    def fit(self, X: Matrix, Y: ArrayLike) -> Self:
        X, Y = self._fit_input(X, Y)
        self.label_frequencies_ = Y.mean(axis=0)
        self.n_labels_ = Y.shape[1]
        self._fit_prediction(Y)
        return self

    def _fit_prediction(self, Y: np.ndarray) -> None:
        """Set ``prediction_``, the label vector predicted for every row."""
        raise NotImplementedError

    def predict_proba(self, X: Matrix) -> np.ndarray:
        check_is_fitted(self)
        X = self._check_X(X, reset=False)
        return np.tile(self.label_frequencies_, (X.shape[0], 1))

    def predict(self, X: Matrix) -> np.ndarray:
        check_is_fitted(self)
        X = self._check_X(X, reset=False)
        return np.tile(self.prediction_, (X.shape[0], 1))


class AllZero(_LabelFrequencies):
    """Predicts no label for any example: the floor of the Hamming score on sparse label sets.

    Attributes
    ----------
    label_frequencies_ : ndarray of shape (L,), the training label frequencies (``predict_proba``).
    prediction_ : ndarray of int8, shape (L,), all zero.

    Examples
    --------
    >>> import numpy as np
    >>> from mlhidden.methods.baselines import AllZero
    >>> X, Y = np.zeros((4, 1)), np.array([[1, 0], [1, 0], [1, 1], [0, 0]])
    >>> AllZero().fit(X, Y).predict(X[:1]).tolist()
    [[0, 0]]
    """

    def _fit_prediction(self, Y: np.ndarray) -> None:
        self.prediction_ = np.zeros(Y.shape[1], dtype=np.int8)


class LabelMajority(_LabelFrequencies):
    """Predicts each label's majority value in training (1 where at least half the rows have it).

    The best x-free predictor for the Hamming score; its prediction is ``predict_proba >= 0.5``.

    Attributes
    ----------
    label_frequencies_ : ndarray of shape (L,), the training label frequencies (``predict_proba``).
    prediction_ : ndarray of int8, shape (L,).

    Examples
    --------
    >>> import numpy as np
    >>> from mlhidden.methods.baselines import LabelMajority
    >>> X, Y = np.zeros((4, 1)), np.array([[1, 0], [1, 0], [1, 1], [0, 0]])
    >>> LabelMajority().fit(X, Y).predict(X[:1]).tolist()
    [[1, 0]]
    """

    def _fit_prediction(self, Y: np.ndarray) -> None:
        self.prediction_ = (self.label_frequencies_ >= 0.5).astype(np.int8)


class MostFrequentLabelSet(_LabelFrequencies):
    """Predicts the label vector seen most often in training (the first in sorted order on ties).

    The best x-free predictor for exact match; LP without features.

    Attributes
    ----------
    label_frequencies_ : ndarray of shape (L,), the training label frequencies (``predict_proba``).
    prediction_ : ndarray of int8, shape (L,), the most frequent training label vector.

    Examples
    --------
    >>> import numpy as np
    >>> from mlhidden.methods.baselines import MostFrequentLabelSet
    >>> X, Y = np.zeros((4, 1)), np.array([[1, 0], [1, 1], [1, 1], [0, 0]])
    >>> MostFrequentLabelSet().fit(X, Y).predict(X[:1]).tolist()
    [[1, 1]]
    """

    def _fit_prediction(self, Y: np.ndarray) -> None:
        vectors, counts = np.unique(Y, axis=0, return_counts=True)
        self.prediction_ = vectors[np.argmax(counts)].astype(np.int8)


TRIVIAL_BASELINES = (AllZero, LabelMajority, MostFrequentLabelSet)
