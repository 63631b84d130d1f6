"""Label powerset: every distinct label vector of the training data is one class."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from mlhidden.data.dataset import Matrix, RandomStateLike
from mlhidden.methods.base import MultiLabelClassifier
from mlhidden.methods.base_learners import ESTIMATOR_CONSTRAINT, fit_binary

if TYPE_CHECKING:
    from typing_extensions import Self


class LP(MultiLabelClassifier):
    """Label powerset (LP): one multi-class base model over the label vectors seen in training.

    Prediction is the label vector of the most probable class, which directly targets exact
    match (eq. 1 restricted to the vectors seen); ``predict_proba`` gives the marginals
    ``p(y_j = 1 | x) = sum over classes with y_j = 1 of p(class | x)``. A single distinct vector
    in training gives a constant model. Label vectors never seen in training are never predicted.

    Parameters
    ----------
    estimator : estimator, str, dict or None, default=None
        A multi-class base learner or spec; None means ``"logistic"`` (multinomial).
    random_state : int, RandomState or None, default=None
        Seeds the base learner.

    Attributes
    ----------
    label_vectors_ : ndarray of int8, shape (n_classes, L), the distinct training label vectors.
    estimator_ : the fitted multi-class model; its class c is ``label_vectors_[c]``.

    References
    ----------
    Paper Section 1 (LP) and Table 3.

    Examples
    --------
    >>> import numpy as np
    >>> from mlhidden.methods import LP
    >>> X = np.array([[0., 0.], [0., 1.], [1., 0.], [1., 1.]] * 5)
    >>> Y = np.array([[0, 0, 0], [1, 0, 1], [1, 0, 1], [1, 1, 0]] * 5)  # OR, AND, XOR
    >>> LP().fit(X, Y).predict(X[:4]).tolist()
    [[0, 0, 0], [1, 0, 1], [1, 0, 1], [1, 1, 0]]
    """

    _parameter_constraints = {"estimator": ESTIMATOR_CONSTRAINT}

    def __init__(self, estimator: object = None, *, random_state: RandomStateLike = None) -> None:
        self.estimator = estimator
        self.random_state = random_state

    def _needs_multiclass(self) -> bool:
        return True

    def fit(self, X: Matrix, Y: ArrayLike) -> Self:
        X, Y = self._fit_input(X, Y)
        self.label_vectors_, classes = np.unique(Y, axis=0, return_inverse=True)
        self.estimator_ = fit_binary(self.estimator, X, classes.ravel(), check_random_state(self.random_state))
        self.n_labels_ = Y.shape[1]
        return self

    def _class_proba(self, X: Matrix) -> np.ndarray:
        """p(class | x) over all classes of ``label_vectors_`` (zero for any the model lacks)."""
        check_is_fitted(self)
        X = self._check_X(X, reset=False)
        model = self.estimator_
        proba = np.zeros((X.shape[0], len(self.label_vectors_)))
        if hasattr(model, "predict_proba"):
            proba[:, model.classes_] = model.predict_proba(X)
        else:
            proba[np.arange(X.shape[0]), model.predict(X)] = 1.0
        return proba

    def predict_proba(self, X: Matrix) -> np.ndarray:
        return np.asarray(np.clip(self._class_proba(X) @ self.label_vectors_, 0.0, 1.0))  # sums may round above 1

    def predict(self, X: Matrix) -> np.ndarray:
        most_probable = self._class_proba(X).argmax(axis=1)
        return np.asarray(self.label_vectors_[most_probable])
