"""BR on a random basis expansion of x: the ELM (threshold units) and BR^(phi) (RBF units)."""

from __future__ import annotations

from numbers import Integral, Real
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from mlhidden.data.dataset import Matrix, RandomStateLike
from mlhidden.methods.base import MultiLabelClassifier, hstack_features
from mlhidden.methods.base_learners import ESTIMATOR_CONSTRAINT, draw_seed
from mlhidden.methods.br import BR
from mlhidden.methods.ccasl import SYNTHETIC_CONSTRAINTS
from mlhidden.methods.hidden_units import ThresholdUnits
from mlhidden.methods.sklearn_api import Interval

if TYPE_CHECKING:
    from typing_extensions import Self


class RandomRBF(TransformerMixin, BaseEstimator):
    """Gaussian radial basis functions centred on random training rows.

    ``phi_c(x) = exp(-gamma ||x - c||^2)`` for ``n_centers`` centres drawn without replacement
    from the training rows (all rows when there are fewer). With ``gamma=None`` the width follows
    the median heuristic: ``gamma = 1 / median ||x - c||^2`` over training rows and centres
    (1 if that median is 0), so that a typical row is about one width from a typical centre.

    Parameters
    ----------
    n_centers : int, default=100
    gamma : float or None, default=None
    random_state : int, RandomState or None, default=None

    Attributes
    ----------
    centers_ : ndarray or CSR matrix of shape (n_centers, n_features)
    gamma_ : float

    Examples
    --------
    >>> import numpy as np
    >>> from mlhidden.methods.expansion import RandomRBF
    >>> RandomRBF(n_centers=3, random_state=0).fit_transform(np.eye(4)).shape
    (4, 3)
    """

    _parameter_constraints = {
        "n_centers": [Interval(Integral, 1, None, closed="left")],
        "gamma": [None, Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
    }

    def __init__(
        self, *, n_centers: int = 100, gamma: float | None = None, random_state: RandomStateLike = None
    ) -> None:
        self.n_centers = n_centers
        self.gamma = gamma
        self.random_state = random_state

    def fit(self, X: Matrix, y: object = None) -> Self:
        self.fit_transform(X)
        return self

    def fit_transform(self, X: Matrix, y: object = None) -> Matrix:
        self._validate_params()
        rng = check_random_state(self.random_state)
        rows = np.sort(rng.choice(X.shape[0], min(self.n_centers, X.shape[0]), replace=False))
        self.centers_ = X[rows]
        distances = euclidean_distances(X, self.centers_, squared=True)
        if self.gamma is None:
            median = float(np.median(distances))
            self.gamma_ = 1.0 / median if median > 0 else 1.0
        else:
            self.gamma_ = float(self.gamma)
        return np.exp(-self.gamma_ * distances)

    def transform(self, X: Matrix) -> Matrix:
        check_is_fitted(self)
        return np.exp(-self.gamma_ * euclidean_distances(X, self.centers_, squared=True))


class BasisBR(MultiLabelClassifier):
    """Base class: BR on a random expansion phi(x) of the input, optionally next to x itself.

    Subclasses define ``_make_basis(n_labels, seed)`` (an unfitted transformer), and the
    parameters ``estimator``, ``include_input`` and ``n_jobs``.
    """

    def fit(self, X: Matrix, Y: ArrayLike) -> Self:
        X, Y = self._fit_input(X, Y)
        rng = check_random_state(self.random_state)
        self.basis_ = self._make_basis(Y.shape[1], draw_seed(rng))
        features = self._features(X, self.basis_.fit_transform(X))
        self.br_ = BR(self.estimator, n_jobs=self.n_jobs, random_state=draw_seed(rng)).fit(features, Y)
        self.n_labels_ = Y.shape[1]
        return self

    def _features(self, X: Matrix, expanded: Matrix) -> Matrix:
        return hstack_features(X, expanded) if self.include_input else expanded

    def _expand(self, X: Matrix) -> Matrix:
        check_is_fitted(self)
        X = self._check_X(X, reset=False)
        return self._features(X, self.basis_.transform(X))

    def predict_proba(self, X: Matrix) -> np.ndarray:
        expanded = self._expand(X)
        return self.br_.predict_proba(expanded)

    def predict(self, X: Matrix) -> np.ndarray:
        expanded = self._expand(X)
        return self.br_.predict(expanded)

    def predict_with_proba(self, X: Matrix) -> tuple[np.ndarray, np.ndarray]:
        expanded = self._expand(X)
        return self.br_.predict(expanded), self.br_.predict_proba(expanded)


class ELM(BasisBR):
    """Extreme learning machine: random threshold hidden units, then BR (logistic) on them.

    The hidden layer is CCASL's synthetic layer without the cascade (unit k sees only x):
    random masked weights and TLUs with the data-dependent random thresholds of Section 4.1,
    K = 2L units (Table 5). The output layer is BR on the hidden units only, as in an ELM
    (the paper's ELM results, well below BR's, fit a network without a skip connection).

    Parameters
    ----------
    estimator : estimator, str, dict or None, default=None
        Base learner of the output BR; None means ``"logistic"``.
    n_hidden : int or None, default=None
        Hidden units K; None means 2L.
    weight_std, connectivity, threshold_std, input_scaling
        The random units, as in :class:`~mlhidden.methods.CCASL`.
    cascade : bool, default=False
        Whether hidden unit k also sees units 1..k-1 (True gives CCASL's cascaded layer).
    include_input : bool, default=False
        Whether the output BR also sees x.
    n_jobs : int or None, default=None
    random_state : int, RandomState or None, default=None

    Attributes
    ----------
    basis_ : ThresholdUnits, the hidden layer.
    br_ : BR, the output layer.

    References
    ----------
    Paper Section 4.4 (ELMs), Table 5 (K = 2L, TLU), Tables 7-8.

    Examples
    --------
    >>> import numpy as np
    >>> from mlhidden.methods import ELM
    >>> X = np.array([[0., 0.], [0., 1.], [1., 0.], [1., 1.]] * 5)
    >>> Y = np.array([[0, 0, 0], [1, 0, 1], [1, 0, 1], [1, 1, 0]] * 5)  # OR, AND, XOR
    >>> ELM(random_state=0).fit(X, Y).predict(X[:4]).shape
    (4, 3)
    """

    _parameter_constraints = {
        **SYNTHETIC_CONSTRAINTS,
        "n_hidden": [None, Interval(Integral, 1, None, closed="left")],
        "cascade": ["boolean"],
        "include_input": ["boolean"],
    }

    def __init__(
        self, estimator: object = None, *, n_hidden: int | None = None, weight_std: float = 0.2,
        connectivity: float = 0.9, threshold_std: float = 0.1, input_scaling: str | None = "auto",
        cascade: bool = False,
        include_input: bool = False, n_jobs: int | None = None, random_state: RandomStateLike = None,
    ) -> None:
        self.estimator = estimator
        self.n_hidden = n_hidden
        self.weight_std = weight_std
        self.connectivity = connectivity
        self.threshold_std = threshold_std
        self.input_scaling = input_scaling
        self.cascade = cascade
        self.include_input = include_input
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _make_basis(self, n_labels: int, seed: int) -> ThresholdUnits:
        return ThresholdUnits(
            n_units=2 * n_labels if self.n_hidden is None else self.n_hidden,
            cascade=self.cascade,
            weight_std=self.weight_std,
            connectivity=self.connectivity,
            threshold_std=self.threshold_std,
            input_scaling=self.input_scaling,
            random_state=seed,
        )


class RBFBR(BasisBR):
    """BR^(phi): BR on a random radial-basis-function expansion of x (paper Table 3).

    The paper only says "a random RBF basis function"; we use Gaussian RBFs centred on
    ``n_centers`` random training rows with the median-heuristic width
    (see :class:`RandomRBF`). On the Logical problem the centres land on the four input
    points, where XOR becomes linearly separable.

    Parameters
    ----------
    estimator : estimator, str, dict or None, default=None
        Base learner of the BR; None means ``"logistic"``.
    n_centers : int, default=100
        Number of RBF centres (capped at the number of training rows).
    gamma : float or None, default=None
        RBF width ``exp(-gamma d^2)``; None: 1 / median squared distance (training rows to centres).
    include_input : bool, default=False
        Whether BR also sees x next to phi(x).
    n_jobs : int or None, default=None
    random_state : int, RandomState or None, default=None

    Attributes
    ----------
    basis_ : RandomRBF
    br_ : BR

    References
    ----------
    Paper Section 2, Table 3 and Fig. 4(e).

    Examples
    --------
    >>> import numpy as np
    >>> from mlhidden.methods import RBFBR
    >>> X = np.array([[0., 0.], [0., 1.], [1., 0.], [1., 1.]] * 5)
    >>> Y = np.array([[0, 0, 0], [1, 0, 1], [1, 0, 1], [1, 1, 0]] * 5)  # OR, AND, XOR
    >>> RBFBR(random_state=0).fit(X, Y).predict(X[:4]).tolist()
    [[0, 0, 0], [1, 0, 1], [1, 0, 1], [1, 1, 0]]
    """

    _parameter_constraints = {
        "estimator": ESTIMATOR_CONSTRAINT,
        **RandomRBF._parameter_constraints,
        "include_input": ["boolean"],
    }

    def __init__(
        self, estimator: object = None, *, n_centers: int = 100, gamma: float | None = None,
        include_input: bool = False,
        n_jobs: int | None = None, random_state: RandomStateLike = None,
    ) -> None:
        self.estimator = estimator
        self.n_centers = n_centers
        self.gamma = gamma
        self.include_input = include_input
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _make_basis(self, n_labels: int, seed: int) -> RandomRBF:
        return RandomRBF(n_centers=self.n_centers, gamma=self.gamma, random_state=seed)
