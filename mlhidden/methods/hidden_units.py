"""Hidden units made without back-propagation: random threshold units (CCASL's synthetic labels,
ELM's hidden layer) and meta labels from label subsets (CCASL+AML).
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from mlhidden.data.dataset import Matrix, RandomStateLike
from mlhidden.methods.sklearn_api import Interval, StrOptions

if TYPE_CHECKING:
    from typing_extensions import Self

SCALING_OPTIONS = StrOptions({"auto", "standard", "maxabs"})
CASCADE_BLOCK = 64  # threshold units computed one by one between two matrix products (see ThresholdUnits._units)


def column_scaling(X: Matrix, how: str | None) -> tuple[np.ndarray, np.ndarray]:
    """Per-column ``(offset, scale)`` from training rows, so that ``(x - offset) / scale`` is scaled.

    ``how``: ``"standard"`` (mean and standard deviation; sparse X is not centred, so it stays
    sparse), ``"maxabs"`` (largest absolute value, offset 0), ``"auto"`` (standard for dense X,
    maxabs for sparse X), or None (no scaling). Constant and all-zero columns get scale 1.
    """
    n_features = X.shape[1]
    if how == "auto":
        how = "maxabs" if sp.issparse(X) else "standard"
    offset, scale = np.zeros(n_features), np.ones(n_features)
    if how == "standard":
        if not isinstance(X, np.ndarray) and sp.issparse(X):
            mean = np.asarray(X.mean(axis=0)).ravel()
            scale = np.sqrt(np.maximum(np.asarray(X.multiply(X).mean(axis=0)).ravel() - mean**2, 0.0))
        else:
            offset, scale = X.mean(axis=0), X.std(axis=0)
    elif how == "maxabs":
        scale = np.asarray(abs(X).max(axis=0).toarray() if sp.issparse(X) else np.abs(X).max(axis=0)).ravel()
    elif how is not None:
        raise ValueError(f"input scaling must be 'auto', 'standard', 'maxabs' or None, got {how!r}")
    scale = np.where(scale > 1e-12 * max(1.0, float(np.abs(scale).max(initial=0.0))), scale, 1.0)
    return offset, scale


def apply_scaling(X: Matrix, offset: np.ndarray, scale: np.ndarray) -> Matrix:
    """``(X - offset) / scale`` column-wise; sparse X (offset 0) stays sparse."""
    if sp.issparse(X):
        return sp.csr_matrix(X @ sp.diags(1.0 / scale))
    return (X - offset) / scale


class ThresholdUnits(TransformerMixin, BaseEstimator):
    """Random threshold linear units (TLUs), optionally cascaded: the paper's synthetic labels.

    Unit k computes ``a_k = w_k . x'_k`` and outputs ``z_k = [a_k > t_k]`` (Section 4.1), where
    ``x'_k = [x, z_1, ..., z_{k-1}]`` when ``cascade`` (CCASL) or ``x'_k = x`` (ELM). The weight
    matrix is W * B with ``W ~ Normal(0, weight_std)`` and mask ``B ~ Bernoulli(connectivity)``;
    the threshold is ``t_k ~ Normal(mu_k, threshold_std * sigma_k)`` with ``mu_k, sigma_k`` the
    mean and standard deviation of ``a_k`` over the training rows. All random numbers (W, B and
    the standard-normal part of t) are drawn before the data is looked at, so two estimators
    with the same ``random_state`` build the same units from the same data.

    Because t scales with a, multiplying all weights by a constant changes nothing:
    ``weight_std`` (the paper's 0.2, read as a standard deviation) is immaterial for TLUs, and
    the variance reading (std = sqrt(0.2)) gives the same units up to rounding. What matters is
    the relative scale of the inputs, hence ``input_scaling``; the offset of the scaling only
    shifts a_k and is absorbed by the threshold.

    Parameters
    ----------
    n_units : int, default=1
        Number of units K.
    cascade : bool, default=True
        Whether unit k also sees the units before it.
    weight_std : float, default=0.2
        Standard deviation of the random weights.
    connectivity : float, default=0.9
        Probability that a weight is kept (the Bernoulli mask).
    threshold_std : float, default=0.1
        Standard deviation of the threshold, as a fraction of sigma_k.
    input_scaling : {"auto", "standard", "maxabs"} or None, default="auto"
        How x is scaled before the projection, with training statistics (see
        :func:`column_scaling`); "auto" standardises dense X and max-abs scales sparse X.
    random_state : int, RandomState or None, default=None

    Attributes
    ----------
    weights_ : ndarray of shape (n_units, n_features + n_units - 1) (cascade) or (n_units, n_features)
        The masked weights, in the scaled input space; column D + i is the weight of z_i.
    thresholds_ : ndarray of shape (n_units,)
    offset_, scale_ : ndarray of shape (n_features,), the input scaling.
    train_units_ : ndarray of int8, shape (n_samples, n_units), the units on the training rows.

    Examples
    --------
    >>> import numpy as np
    >>> from mlhidden.methods.hidden_units import ThresholdUnits
    >>> X = np.random.RandomState(0).normal(size=(100, 3))
    >>> ThresholdUnits(n_units=4, random_state=0).fit_transform(X).shape
    (100, 4)
    """

    _parameter_constraints = {
        "n_units": [Interval(Integral, 0, None, closed="left")],
        "cascade": ["boolean"],
        "weight_std": [Interval(Real, 0, None, closed="neither")],
        "connectivity": [Interval(Real, 0, 1, closed="right")],
        "threshold_std": [Interval(Real, 0, None, closed="left")],
        "input_scaling": [SCALING_OPTIONS, None],
        "random_state": ["random_state"],
    }

    def __init__(
        self, *, n_units: int = 1, cascade: bool = True, weight_std: float = 0.2, connectivity: float = 0.9,
        threshold_std: float = 0.1, input_scaling: str | None = "auto", random_state: RandomStateLike = None,
    ) -> None:
        self.n_units = n_units
        self.cascade = cascade
        self.weight_std = weight_std
        self.connectivity = connectivity
        self.threshold_std = threshold_std
        self.input_scaling = input_scaling
        self.random_state = random_state

    def fit(self, X: Matrix, y: object = None) -> Self:
        self.fit_transform(X)
        return self

    def fit_transform(self, X: Matrix, y: object = None) -> Matrix:
        self._validate_params()
        rng = check_random_state(self.random_state)
        n_features, K = X.shape[1], self.n_units
        n_inputs = n_features + (max(K - 1, 0) if self.cascade else 0)
        weights = rng.normal(0.0, self.weight_std, size=(K, n_inputs))
        weights *= rng.random_sample((K, n_inputs)) < self.connectivity
        threshold_noise = rng.standard_normal(K)
        self.offset_, self.scale_ = column_scaling(X, self.input_scaling)
        self.weights_ = weights
        self.thresholds_ = np.zeros(K)
        self.n_features_in_ = n_features
        self.train_units_ = self._units(X, threshold_noise=threshold_noise)
        return self.train_units_

    def transform(self, X: Matrix) -> Matrix:
        """The units on new rows, with the thresholds fixed at fit time."""
        check_is_fitted(self)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but ThresholdUnits was fitted with {self.n_features_in_}")
        return self._units(X)

    def _units(self, X: Matrix, threshold_noise: np.ndarray | None = None) -> np.ndarray:
        """Compute the units in order; with ``threshold_noise`` (fit), set the thresholds first.

        The cascade goes in blocks of ``CASCADE_BLOCK`` units: once a block is known, what it
        adds to the later units' activations is one matrix product, so each unit reads only the
        units of its own block one by one (not all K before it: quadratic in K, a large share of CCASL's
        fit at L = 1000).
        """
        n_features, K = self.n_features_in_, self.n_units
        x_weights = self.weights_[:, :n_features] / self.scale_
        activations = np.asarray(X @ x_weights.T) - self.offset_ @ x_weights.T
        units = np.zeros((X.shape[0], K), dtype=np.int8)
        cascade = self.weights_[:, n_features:]
        for start in range(0, K, CASCADE_BLOCK):
            stop = min(start + CASCADE_BLOCK, K)
            block = np.zeros((X.shape[0], stop - start))
            for k in range(start, stop):
                a = activations[:, k]
                if self.cascade and k > start:
                    a = a + block[:, : k - start] @ cascade[k, start:k]
                if threshold_noise is not None:
                    self.thresholds_[k] = a.mean() + self.threshold_std * a.std() * threshold_noise[k]
                units[:, k] = block[:, k - start] = a > self.thresholds_[k]
            if self.cascade and stop < K:
                activations[:, stop:] += block @ cascade[stop:, start:stop].T
        return units


def draw_label_subsets(n_subsets: int, n_labels: int, subset_size: int, rng: np.random.RandomState) -> np.ndarray:
    """``n_subsets`` random label subsets S_k of size min(subset_size, n_labels), one per row."""
    size = min(subset_size, n_labels)
    return np.array([np.sort(rng.choice(n_labels, size, replace=False)) for _ in range(n_subsets)], dtype=int).reshape(
        n_subsets, size
    )


def most_common_combinations(Y: np.ndarray, subsets: np.ndarray) -> np.ndarray:
    """For each subset S_k, the combination y*_{S_k} most frequent in Y (first in sorted order on ties).

    Each row's combination on S_k is read as a binary number, S_k's first label the most
    significant bit, so numeric order is the lexicographic order ``np.unique`` sorts rows in,
    and one ``bincount`` over all subsets counts every combination (its first largest count is
    ``np.unique``'s). Where the 2^|S| counts of a subset would outnumber the rows, each subset's
    rows go through ``np.unique`` instead.
    """
    n_subsets, size = subsets.shape
    if (1 << size) > max(Y.shape[0], 1):
        return _most_common_rows(Y, subsets)
    columns = np.ascontiguousarray(Y.T)
    codes = np.zeros((n_subsets, Y.shape[0]), dtype=np.int64)
    for position in range(size):
        codes <<= 1
        codes += columns[subsets[:, position]]
    codes += (np.arange(n_subsets, dtype=np.int64) << size)[:, None]
    counts = np.bincount(codes.ravel(), minlength=n_subsets << size).reshape(n_subsets, 1 << size)
    best: np.ndarray = counts.argmax(axis=1)
    bits = (best[:, None] >> np.arange(size - 1, -1, -1)) & 1
    return np.asarray(bits, dtype=np.int8).reshape(n_subsets, size)


def _most_common_rows(Y: np.ndarray, subsets: np.ndarray) -> np.ndarray:
    """:func:`most_common_combinations` by one ``np.unique`` over the rows of each subset."""
    combinations = []
    for subset in subsets:
        values, counts = np.unique(Y[:, subset], axis=0, return_counts=True)
        combinations.append(values[counts.argmax()])
    return np.array(combinations, dtype=np.int8).reshape(len(subsets), subsets.shape[1])


def meta_labels(Y: np.ndarray, subsets: np.ndarray, combinations: np.ndarray) -> np.ndarray:
    """The AML units ``z'_k = [y_{S_k} == y*_{S_k}]`` (Section 4.3), shape (n_samples, n_subsets)."""
    return np.asarray((Y[:, subsets] == combinations).all(axis=2), dtype=np.int8)
