"""BR with a random forest: one native multi-output forest for all labels, or one per label."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import sparse
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from mlhidden.data.dataset import Matrix, RandomStateLike
from mlhidden.methods.base import MultiLabelClassifier
from mlhidden.methods.base_learners import ESTIMATOR_CONSTRAINT, as_estimator, draw_seed, seed_estimator
from mlhidden.methods.br import BR
from mlhidden.methods.compact_forest import CompactForest, is_compactable

if TYPE_CHECKING:
    from typing_extensions import Self

DENSE_FROM_DENSITY = 0.03
"""A sparse X at least this dense is grown on as a dense float32 array: scikit-learn's dense
splitter finds the same splits as its sparse one (the same trees, node for node) and is faster
there (Enron, OHSUMED, Bibtex); on sparser data (Corel5k, 1.7 %) the sparse splitter is as fast."""


def forest_input(X: Matrix) -> Matrix:
    """X as a forest is fastest grown on: dense float32 (the trees' own dtype) when a sparse X is
    at least :data:`DENSE_FROM_DENSITY` dense, else X as it is."""
    if not isinstance(X, np.ndarray) and sparse.issparse(X) and X.nnz >= DENSE_FROM_DENSITY * X.shape[0] * X.shape[1]:
        return X.astype(np.float32).toarray()
    return X


def _supports_multi_output(estimator: Any) -> bool:
    return bool(estimator.__sklearn_tags__().target_tags.multi_output)


class ForestBR(MultiLabelClassifier):
    """BR_RF: binary relevance with random forests (paper Tables 7-8).

    By default one scikit-learn forest is fitted on the whole label matrix (its trees split on
    all labels at once, and predict every label's probability); the paper's running times
    (BR_RF faster than BR, Table 8) imply this native multi-output forest rather than L
    separate forests. The prediction for each label is still its own output, unconnected to the
    others. ``per_label=True`` fits one forest per label instead (exactly :class:`BR`).
    A scikit-learn forest is kept in compact form (:mod:`~mlhidden.methods.compact_forest`):
    the same predictions in about 1% of the memory.

    Parameters
    ----------
    estimator : estimator, str, dict or None, default=None
        The forest (any multi-output scikit-learn classifier when ``per_label=False``);
        None means ``"random_forest"``.
    per_label : bool, default=False
        One model per label instead of one multi-output model.
    compact : bool, default=True
        Keep a scikit-learn forest as a :class:`~mlhidden.methods.compact_forest.CompactForest`
        (False: keep the forest object itself, e.g. for its feature importances).
    n_jobs : int or None, default=None
        Labels fitted in parallel when ``per_label=True`` (the forest's own ``n_jobs`` is its
        parameter).
    random_state : int, RandomState or None, default=None

    Attributes
    ----------
    estimator_ : the fitted multi-output model or its CompactForest (``per_label=False``), or a fitted :class:`BR`.

    References
    ----------
    Paper Section 5, Tables 7-8 (BR_RF); Fig. 12 (CC_RF is :class:`CC` with this base).

    Examples
    --------
    >>> import numpy as np
    >>> from mlhidden.methods import ForestBR
    >>> X = np.array([[0., 0.], [0., 1.], [1., 0.], [1., 1.]] * 5)
    >>> Y = np.array([[0, 0, 0], [1, 0, 1], [1, 0, 1], [1, 1, 0]] * 5)  # OR, AND, XOR
    >>> ForestBR(random_state=0).fit(X, Y).predict(X[:4]).tolist()
    [[0, 0, 0], [1, 0, 1], [1, 0, 1], [1, 1, 0]]
    """

    _parameter_constraints = {"estimator": ESTIMATOR_CONSTRAINT, "per_label": ["boolean"], "compact": ["boolean"]}

    def __init__(
        self, estimator: object = None, *, per_label: bool = False, compact: bool = True, n_jobs: int | None = None,
        random_state: RandomStateLike = None,
    ) -> None:
        self.estimator = estimator
        self.per_label = per_label
        self.compact = compact
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X: Matrix, Y: ArrayLike) -> Self:
        X, Y = self._fit_input(X, Y)
        rng = check_random_state(self.random_state)
        spec = "random_forest" if self.estimator is None else self.estimator
        if self.per_label:
            self.estimator_: Any = BR(spec, n_jobs=self.n_jobs, random_state=draw_seed(rng)).fit(X, Y)
        else:
            model = seed_estimator(as_estimator(spec), rng)
            if not _supports_multi_output(model):
                raise ValueError(f"{type(model).__name__} does not fit several labels at once; use per_label=True")
            target = Y if Y.shape[1] > 1 else Y[:, 0]
            inputs = forest_input(X)
            self.estimator_ = (
                CompactForest.grow(model, inputs, target)
                if self.compact and is_compactable(model)
                else model.fit(inputs, target)
            )
        self.n_labels_ = Y.shape[1]
        return self

    def predict_proba(self, X: Matrix) -> np.ndarray:
        check_is_fitted(self)
        X = self._check_X(X, reset=False)
        if self.per_label or isinstance(self.estimator_, CompactForest):
            return np.asarray(self.estimator_.predict_proba(X))
        probas: Any = self.estimator_.predict_proba(X)  # a list per label, or one array for one label
        classes: Any = self.estimator_.classes_
        if self.n_labels_ == 1:
            probas, classes = [probas], [classes]
        return np.column_stack([_positive_column(c, p) for c, p in zip(classes, probas)])

    def predict(self, X: Matrix) -> np.ndarray:
        check_is_fitted(self)
        X = self._check_X(X, reset=False)
        if self.per_label:
            return np.asarray(self.estimator_.predict(X))
        return np.asarray(self.estimator_.predict(X)).reshape(X.shape[0], self.n_labels_).astype(np.int8)


def _positive_column(classes: ArrayLike, proba: np.ndarray) -> np.ndarray:
    """P(y = 1) from one output's class probabilities, whatever classes it saw in training."""
    classes = np.asarray(classes)
    if (classes == 1).any():
        return np.asarray(proba[:, np.flatnonzero(classes == 1)[0]])
    return np.zeros(proba.shape[0])
