"""A logistic regression that standardises its own inputs: scaling inside each base model.

Standardising x once, before a method (a method's ``preprocess: standard``), leaves the columns
a method adds itself unscaled: the labels a chain's link sees, or CCASL's synthetic labels. A
base learner that standardises whatever it is given scales those too, as a pipeline of a
scaler and a logistic regression per base model would. Sparse inputs are scaled and not
centred, so that they stay sparse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from scipy import sparse
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from mlhidden.data.dataset import Matrix

if TYPE_CHECKING:
    from typing_extensions import Self


class StandardScaledLogisticRegression(LogisticRegression):
    """``LogisticRegression`` fitted on its inputs standardised (by the training part), with its
    coefficients mapped back to the unscaled inputs, so that it predicts on them directly.

    The parameters are ``LogisticRegression``'s; C penalises the coefficients of the scaled
    inputs.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 100.0], [1.0, 300.0], [2.0, 100.0], [3.0, 300.0]])
    >>> model = StandardScaledLogisticRegression().fit(X, [0, 0, 1, 1])
    >>> model.predict(X).tolist()
    [0, 0, 1, 1]
    """

    coef_: np.ndarray
    intercept_: np.ndarray

    def fit(self, X: Matrix, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        scaler = StandardScaler(with_mean=not sparse.issparse(X)).fit(X, sample_weight=sample_weight)
        super().fit(scaler.transform(X), y, sample_weight=sample_weight)
        self.coef_ = self.coef_ / scaler.scale_
        if scaler.with_mean:
            self.intercept_ = self.intercept_ - self.coef_ @ scaler.mean_
        return self
