"""Probabilistic classifier chains: the chain of CC, with a search for the most probable vector."""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from mlhidden.data.dataset import Matrix, RandomStateLike
from mlhidden.methods.base_learners import ESTIMATOR_CONSTRAINT, draw_seed
from mlhidden.methods.cc import CC
from mlhidden.methods.inference import exact_search, monte_carlo_search
from mlhidden.methods.sklearn_api import Interval, StrOptions

if TYPE_CHECKING:
    from typing_extensions import Self

INFERENCE_CONSTRAINTS = {
    "inference": [StrOptions({"mc", "exact"})],
    "n_samples": [Interval(Integral, 1, None, closed="left")],
    "max_exact_labels": [Interval(Integral, 1, 30, closed="both")],
}


def _check_exact_size(n_links: int, max_exact_labels: int) -> None:
    """Refuse exhaustive inference over more than ``max_exact_labels`` chain links."""
    if n_links > max_exact_labels:
        raise ValueError(
            f"exact inference enumerates 2^{n_links} label vectors; refusing more than "
            f"max_exact_labels={max_exact_labels} links (use inference='mc' or raise max_exact_labels)"
        )


def _search_chain(
    models: Sequence[Any], X: Matrix, inference: str, n_samples: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """MAP vector and marginals of a fitted chain (chain order), by Monte-Carlo or exhaustive search."""
    if inference == "exact":
        return exact_search(models, X)
    return monte_carlo_search(models, X, n_samples, np.random.RandomState(seed))


class PCC(CC):
    """Probabilistic classifier chain (PCC): CC's links, prediction = argmax_y p(y | x) (eq. 2).

    The links are trained exactly as in :class:`CC`. Prediction searches for the label vector
    of highest joint probability ``p(y_1 | x) prod_j p(y_j | x, y_<j)``: by Monte-Carlo sampling
    (the paper's PCC, M = 50 samples per test row, as in Read, Martino & Luengo 2014, with the
    greedy CC vector as an extra candidate) or by enumerating all 2^L vectors (Table 3's PCC).
    Sampling uses a seed drawn at fit time, so predictions are deterministic given
    ``random_state`` and the test rows (a row's samples depend on its position in X).

    Parameters
    ----------
    estimator : estimator, str, dict or None, default=None
        The base learner or a base-learner spec; None means ``"logistic"``.
    order : None, "random" or sequence of int, default=None
        Chain order, as in :class:`CC`.
    inference : {"mc", "exact"}, default="mc"
        Monte-Carlo search or exhaustive search.
    n_samples : int, default=50
        Samples per test row for ``inference="mc"`` (the paper's M).
    max_exact_labels : int, default=16
        ``inference="exact"`` refuses (ValueError) chains longer than this: 2^L vectors per row.
    n_jobs : int or None, default=None
        Links fitted in parallel (joblib); results do not depend on it.
    random_state : int, RandomState or None, default=None
        Seeds the order (if random), the base learners and the Monte-Carlo samples.

    Attributes
    ----------
    order_ : ndarray of int, the chain order used.
    estimators_ : list of fitted classifiers, in chain order.
    inference_seed_ : int, seed of the Monte-Carlo samples at prediction time.

    References
    ----------
    Paper Section 1, eq. (2); Table 3 (exact) and Tables 7-8 (Monte-Carlo, M = 50).

    Examples
    --------
    >>> import numpy as np
    >>> from mlhidden.methods import PCC
    >>> X = np.array([[0., 0.], [0., 1.], [1., 0.], [1., 1.]] * 5)
    >>> Y = np.array([[0, 0, 0], [1, 0, 1], [1, 0, 1], [1, 1, 0]] * 5)  # OR, AND, XOR
    >>> PCC(inference="exact").fit(X, Y).predict(X[:4]).tolist()
    [[0, 0, 0], [1, 0, 1], [1, 0, 1], [1, 1, 0]]
    """

    _parameter_constraints = {"estimator": ESTIMATOR_CONSTRAINT, **INFERENCE_CONSTRAINTS}

    def __init__(
        self, estimator: object = None, *, order: object = None, inference: str = "mc", n_samples: int = 50,
        max_exact_labels: int = 16, n_jobs: int | None = None, random_state: RandomStateLike = None,
    ) -> None:
        self.estimator = estimator
        self.order = order
        self.inference = inference
        self.n_samples = n_samples
        self.max_exact_labels = max_exact_labels
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _needs_probabilities(self) -> bool:
        return True

    def fit(self, X: Matrix, Y: ArrayLike) -> Self:
        X, Y = self._fit_input(X, Y)
        if self.inference == "exact":
            _check_exact_size(Y.shape[1], self.max_exact_labels)
        rng = check_random_state(self.random_state)
        self._fit_chain(X, Y, rng)
        self.inference_seed_ = draw_seed(rng)
        return self

    def _search(self, X: Matrix) -> tuple[np.ndarray, np.ndarray]:
        """MAP vector and marginals, in label order."""
        check_is_fitted(self)
        X = self._check_X(X, reset=False)
        best, marginals = _search_chain(self.estimators_, X, self.inference, self.n_samples, self.inference_seed_)
        in_label_order = np.argsort(self.order_)
        return best[:, in_label_order], marginals[:, in_label_order]

    def predict(self, X: Matrix) -> np.ndarray:
        """The most probable label vector found, shape (n, L)."""
        return self._search(X)[0]

    def predict_proba(self, X: Matrix) -> np.ndarray:
        """Marginals p(y_j = 1 | x) under the chain: exact, or the sample frequencies for ``mc``."""
        return self._search(X)[1]

    def predict_with_proba(self, X: Matrix) -> tuple[np.ndarray, np.ndarray]:
        return self._search(X)
