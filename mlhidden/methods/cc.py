"""Classifier chains: each label's model also sees the labels before it in the chain."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from joblib import Parallel, delayed
from numpy.typing import ArrayLike
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from mlhidden.data.dataset import Matrix, RandomStateLike
from mlhidden.methods.base import MultiLabelClassifier, hstack_features
from mlhidden.methods.base_learners import fit_binary
from mlhidden.methods.inference import greedy_search
from mlhidden.methods.solvers.logistic_models import batchable_logistic, fit_logistic_models

if TYPE_CHECKING:
    from typing_extensions import Self


def _resolve_order(order: object, n_labels: int, rng: np.random.RandomState) -> np.ndarray:
    """The chain order as a permutation of ``range(n_labels)``.

    ``None`` keeps the label order as given (the protocol already shuffles labels per split),
    ``"random"`` draws a permutation from ``rng``, a sequence is checked to be a permutation.
    """
    if order is None:
        return np.arange(n_labels)
    if isinstance(order, str):
        if order != "random":
            raise ValueError(f"order must be None, 'random' or a permutation, got {order!r}")
        return rng.permutation(n_labels)
    permutation = np.asarray(order, dtype=int)
    if sorted(permutation.tolist()) != list(range(n_labels)):
        raise ValueError(f"order {permutation.tolist()} is not a permutation of 0..{n_labels - 1}")
    return permutation


class CC(MultiLabelClassifier):
    """Classifier chain (CC) with greedy inference (paper eq. 3).

    Link ``j`` predicts label ``order[j]`` from ``[x, y_order[0], ..., y_order[j-1]]``. Links
    are trained on the true labels, so they are independent given Y and are fitted in parallel
    (with a plain logistic base learner, as one batched problem with a triangular mask);
    at prediction time each link consumes the previous links' hard predictions.

    Parameters
    ----------
    estimator : estimator, str, dict or None, default=None
        The base learner or a base-learner spec; None means ``"logistic"``.
    order : None, "random" or sequence of int, default=None
        Chain order. None follows the label columns as given.
    n_jobs : int or None, default=None
        Links fitted in parallel (joblib); results do not depend on it.
    random_state : int, RandomState or None, default=None
        Seeds the random order (if any) and the base learners.

    Attributes
    ----------
    order_ : ndarray of int, the chain order used.
    estimators_ : list of fitted classifiers, in chain order.

    Examples
    --------
    >>> import numpy as np
    >>> from mlhidden.methods import CC
    >>> X = np.array([[0., 0.], [0., 1.], [1., 0.], [1., 1.]] * 5)
    >>> Y = np.array([[0, 0, 0], [1, 0, 1], [1, 0, 1], [1, 1, 0]] * 5)  # OR, AND, XOR
    >>> CC(order=[0, 1, 2]).fit(X, Y).predict(X[:4]).tolist()
    [[0, 0, 0], [1, 0, 1], [1, 0, 1], [1, 1, 0]]
    """

    # Whether batched logistic links fit in centred coordinates (same optimum; CCASL's chain does).
    _center_inputs = False

    def __init__(
        self, estimator: object = None, *, order: object = None, n_jobs: int | None = None,
        random_state: RandomStateLike = None,
    ) -> None:
        self.estimator = estimator
        self.order = order
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X: Matrix, Y: ArrayLike) -> Self:
        X, Y = self._fit_input(X, Y)
        return self._fit_chain(X, Y, check_random_state(self.random_state))

    def _fit_chain(self, X: Matrix, Y: np.ndarray, rng: np.random.RandomState) -> Self:
        """Fit the links on checked X and Y, drawing the order and the seeds from ``rng``."""
        self.order_ = _resolve_order(self.order, Y.shape[1], rng)
        seeds = np.asarray(rng.randint(np.iinfo(np.int32).max, size=Y.shape[1]))
        chained = Y[:, self.order_]
        if batchable_logistic(self.estimator):
            self.estimators_ = fit_logistic_models(
                self.estimator, X, chained, seeds, extra=chained, n_extra_used=np.arange(Y.shape[1]),
                center=self._center_inputs,
            )
        else:
            augmented = hstack_features(X, chained)
            n_features = X.shape[1]
            self.estimators_ = Parallel(n_jobs=self.n_jobs)(
                delayed(fit_binary)(
                    self.estimator, augmented[:, : n_features + j], chained[:, j], np.random.RandomState(seeds[j])
                )
                for j in range(Y.shape[1])
            )
        self.n_labels_ = Y.shape[1]
        return self

    def _infer(self, X: Matrix) -> tuple[np.ndarray, np.ndarray]:
        """Greedy pass down the chain: hard predictions and the marginal each link gave."""
        check_is_fitted(self)
        X = self._check_X(X, reset=False)
        hard, proba = greedy_search(self.estimators_, X)
        in_label_order = np.argsort(self.order_)
        return hard[:, in_label_order], proba[:, in_label_order]

    def predict(self, X: Matrix) -> np.ndarray:
        return self._infer(X)[0]

    def predict_with_proba(self, X: Matrix) -> tuple[np.ndarray, np.ndarray]:
        return self._infer(X)

    def predict_proba(self, X: Matrix) -> np.ndarray:
        """P(y_j = 1 | x, greedy predictions of the labels before j), shape (n, L)."""
        return self._infer(X)[1]
