"""A meta BR over a middle layer's outputs, with the input as a skip connection (MBR and kin)."""

from __future__ import annotations

from numbers import Integral
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import clone
from sklearn.model_selection import KFold
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from mlhidden.data.dataset import Matrix, RandomStateLike
from mlhidden.methods.base import MultiLabelClassifier, hstack_features
from mlhidden.methods.base_learners import ESTIMATOR_CONSTRAINT, draw_seed
from mlhidden.methods.br import BR
from mlhidden.methods.sklearn_api import Interval, StrOptions

if TYPE_CHECKING:
    from typing_extensions import Self

STACK_CONSTRAINTS = {
    "skip_input": ["boolean"],
    "meta_cv": [None, Interval(Integral, 2, None, closed="left")],
    "meta_input": [StrOptions({"predict", "proba"})],
}


def _middle_outputs(middle: Any, X: Matrix, meta_input: str) -> np.ndarray:
    """What the output layer sees of a fitted middle layer: hard predictions or probabilities."""
    return np.asarray(middle.predict(X) if meta_input == "predict" else middle.predict_proba(X), dtype=np.float64)


def _out_of_fold_outputs(middle: Any, X: Matrix, T: np.ndarray, n_folds: int, meta_input: str, seed: int) -> np.ndarray:
    """Middle-layer outputs for every training row from a copy fitted without that row's fold.

    With fewer rows than folds, each row is its own fold; a single row gets in-sample outputs.
    """
    n_rows = X.shape[0]
    if n_rows < 2:
        return _middle_outputs(clone(middle).fit(X, T), X, meta_input)
    outputs = np.zeros(T.shape)
    for train, test in KFold(min(n_folds, n_rows), shuffle=True, random_state=seed).split(X):
        outputs[test] = _middle_outputs(clone(middle).fit(X[train], T[train]), X[test], meta_input)
    return outputs


class StackedBR(MultiLabelClassifier):
    """Base class: a middle layer fitted on targets T, then a meta BR for Y on [x, its outputs].

    Subclasses build the middle layer and its targets in ``fit`` and call ``_fit_stack``; the
    middle layer's outputs on the training rows are its in-sample predictions (``meta_cv=None``,
    as MBR) or out-of-fold predictions (``meta_cv=k``). Subclasses define ``estimator``,
    ``skip_input``, ``meta_cv``, ``meta_input`` and ``n_jobs``.
    """

    _output_layer = BR

    def _needs_probabilities(self) -> bool:
        return bool(self.meta_input == "proba")

    def _fit_stack(self, middle: Any, X: Matrix, T: np.ndarray, Y: np.ndarray, rng: np.random.RandomState) -> Self:
        """Fit ``middle`` (unfitted, seeded here) on (X, T) and the meta BR on its outputs for Y."""
        middle = clone(middle).set_params(random_state=draw_seed(rng))
        meta_seed, fold_seed = draw_seed(rng), draw_seed(rng)
        self.middle_ = clone(middle).fit(X, T)
        if self.meta_cv is None:
            outputs = _middle_outputs(self.middle_, X, self.meta_input)
        else:
            outputs = _out_of_fold_outputs(middle, X, T, self.meta_cv, self.meta_input, fold_seed)
        self.meta_ = self._output_layer(self.estimator, n_jobs=self.n_jobs, random_state=meta_seed).fit(
            self._meta_features(X, outputs), Y
        )
        self.n_labels_ = Y.shape[1]
        return self

    def _meta_features(self, X: Matrix, outputs: np.ndarray) -> Matrix:
        hidden = self._output_layer_inputs(outputs)
        return hstack_features(X, hidden) if self.skip_input else hidden

    def _output_layer_inputs(self, outputs: np.ndarray) -> np.ndarray:
        """What the output layer sees of the middle layer's outputs: all of them."""
        return outputs

    def _meta_inputs(self, X: Matrix) -> Matrix:
        check_is_fitted(self)
        X = self._check_X(X, reset=False)
        return self._meta_features(X, _middle_outputs(self.middle_, X, self.meta_input))

    def predict_proba(self, X: Matrix) -> np.ndarray:
        """The meta BR's marginals, shape (n, L)."""
        inputs = self._meta_inputs(X)
        return self.meta_.predict_proba(inputs)

    def predict(self, X: Matrix) -> np.ndarray:
        inputs = self._meta_inputs(X)
        return self.meta_.predict(inputs)

    def predict_with_proba(self, X: Matrix) -> tuple[np.ndarray, np.ndarray]:
        """Both from one pass of the middle layer (a CCASL chain's greedy pass, for CCASL+BR)."""
        inputs = self._meta_inputs(X)
        return self.meta_.predict(inputs), self.meta_.predict_proba(inputs)


class MBR(StackedBR):
    """Meta binary relevance (MBR, "stacked BR", "2BR"): BR, then a second BR on [x, BR's outputs].

    The second (meta) BR learns to correct the first from its predictions of all the labels
    (Godbole & Sarawagi 2004); the input is passed to both layers (the skip connection).

    Parameters
    ----------
    estimator : estimator, str, dict or None, default=None
        Base learner of both layers, or a base-learner spec; None means ``"logistic"``.
    skip_input : bool, default=True
        Whether the meta BR also sees x.
    meta_cv : int or None, default=None
        None: the meta BR is trained on the first BR's predictions on the training rows;
        k: on k-fold out-of-fold predictions (the first BR is still refitted on all rows).
    meta_input : {"predict", "proba"}, default="predict"
        Whether the meta BR sees the first layer's 0/1 predictions or its probabilities.
    n_jobs : int or None, default=None
        Labels fitted in parallel within each BR.
    random_state : int, RandomState or None, default=None

    Attributes
    ----------
    middle_ : BR, the first layer.
    meta_ : BR, the meta layer.

    References
    ----------
    Paper Section 1 (MBR); the output layer of CCASL+BR and CCASL+AML (Section 4.2).

    Examples
    --------
    >>> import numpy as np
    >>> from mlhidden.methods import MBR
    >>> X = np.array([[0., 0.], [0., 1.], [1., 0.], [1., 1.]] * 5)
    >>> Y = np.array([[0, 0, 0], [1, 0, 1], [1, 0, 1], [1, 1, 0]] * 5)  # OR, AND, XOR
    >>> MBR().fit(X, Y).predict(X[:4]).shape
    (4, 3)
    """

    _parameter_constraints = {"estimator": ESTIMATOR_CONSTRAINT, **STACK_CONSTRAINTS}

    def __init__(
        self, estimator: object = None, *, skip_input: bool = True, meta_cv: int | None = None,
        meta_input: str = "predict",
        n_jobs: int | None = None, random_state: RandomStateLike = None,
    ) -> None:
        self.estimator = estimator
        self.skip_input = skip_input
        self.meta_cv = meta_cv
        self.meta_input = meta_input
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X: Matrix, Y: ArrayLike) -> Self:
        X, Y = self._fit_input(X, Y)
        middle = BR(self.estimator, n_jobs=self.n_jobs)
        return self._fit_stack(middle, X, Y, Y, check_random_state(self.random_state))
