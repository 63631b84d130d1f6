"""A one-hidden-layer perceptron trained by back-propagation, in numpy (the paper's MLP baseline)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import ThreadpoolController

from mlhidden.data.dataset import Matrix, RandomStateLike
from mlhidden.methods.base import MultiLabelClassifier
from mlhidden.methods.epoch_passes import (
    momentum_step,
    output_residual,
    sigmoid_of_sum,
    times_sigmoid_slope,
    whole_rows,
)
from mlhidden.methods.hidden_units import SCALING_OPTIONS, apply_scaling, column_scaling
from mlhidden.methods.sklearn_api import Interval
from mlhidden.methods.sparse_products import in_column_chunks, matmul, padded_rows, transposed, with_padded_rows

if TYPE_CHECKING:
    from typing_extensions import Self


@dataclass
class Network:
    """Weights of a sigmoid network x -> h = s(x W1 + b1) -> p = s(h W2 + b2), in single precision."""

    W1: np.ndarray
    b1: np.ndarray
    W2: np.ndarray
    b2: np.ndarray

    def hidden(self, X: Matrix) -> np.ndarray:
        return sigmoid_of_sum(matmul(X.astype(np.float32, copy=False), self.W1), self.b1)

    def output(self, H: np.ndarray) -> np.ndarray:
        return sigmoid_of_sum(H @ self.W2, self.b2)


def product_layout(X: Matrix) -> tuple[Matrix, Matrix]:
    """X and its transpose in single precision, laid out so both products of an epoch with X run fast.

    A sparse X becomes CSR, and its transpose is laid out by :func:`~mlhidden.methods.sparse_products.transposed`
    (the same sums bit for bit whichever layout). A dense X is kept once, in column order, whose
    transpose is C-ordered: each product in BLAS's fast layout.
    """
    if sp.issparse(X):
        X = cast(Any, X).astype(np.float32).tocsr()
        return X, transposed(X)
    X = np.asfortranarray(X, dtype=np.float32)
    return X, X.T


@functools.cache
def _thread_pools() -> ThreadpoolController:
    """The native thread pools loaded, numpy's OpenBLAS (which an epoch's products use) among them, found once: finding
    them reads the process's memory map, which grows long where numba and scikit-learn are loaded."""
    return ThreadpoolController()


def train_network(
    X: Matrix, Y: np.ndarray, n_hidden: int, learning_rate: float, n_epochs: int, momentum: float,
    rng: np.random.RandomState,
) -> Network:
    """Full-batch gradient descent with momentum on the mean (over rows) cross-entropy summed over labels.

    Weights start uniform in +-sqrt(2 / (fan_in + fan_out)) (Glorot's bound for sigmoid units, as
    in scikit-learn's MLP), biases at 0. Sparse X stays sparse: both products with X are
    sparse-dense. The epochs are deterministic given ``rng`` (which only draws the weights).

    Everything runs in single precision, in place (the network's predictions are the same as in
    double precision but for rounding). The two products with X take two thirds of an epoch
    (Scene, Enron), and float32 halves their cost as it halves the rest's memory traffic.
    """
    n_rows, n_features = X.shape
    n_labels = Y.shape[1]
    bound1 = np.sqrt(2.0 / (n_features + n_hidden))
    bound2 = np.sqrt(2.0 / (n_hidden + n_labels))
    W1 = rng.uniform(-bound1, bound1, (n_features, n_hidden)).astype(np.float32)
    gathered = sp.issparse(X)
    net = Network(
        with_padded_rows(W1) if gathered else W1, np.zeros(n_hidden, dtype=np.float32),
        rng.uniform(-bound2, bound2, (n_hidden, n_labels)).astype(np.float32), np.zeros(n_labels, dtype=np.float32),
    )
    # The sparse products gather rows of W1 and of the hidden residual: rows padded to cache lines load whole.
    delta_hidden = padded_rows(n_rows, n_hidden, np.float32) if gathered else np.empty((n_rows, n_hidden), np.float32)
    X, X_T = product_layout(X)
    X_T = in_column_chunks(X_T, n_hidden)  # its product with the hidden residual, whose rows outgrow L2
    velocity = [np.zeros_like(p) for p in (net.W1, net.b1, net.W2, net.b2)]
    params, delta_rows = (whole_rows(net.W1), net.b1, net.W2, net.b2), whole_rows(delta_hidden)
    targets = Y.astype(np.float32) / np.float32(n_rows)
    rate, momentum, row_share = np.float32(learning_rate), np.float32(momentum), np.float32(1.0 / n_rows)
    # Thousands of small products: BLAS threads cost more than they save (and thrash on a busy machine).
    with _thread_pools().limit(limits=1, user_api="blas"):
        for _ in range(n_epochs):
            H = net.hidden(X)
            delta_out, out_sums = output_residual(H @ net.W2, net.b2, row_share, targets)
            np.matmul(delta_out, net.W2.T, out=delta_hidden)
            _, hidden_sums = times_sigmoid_slope(delta_rows, H)
            grads = (matmul(X_T, delta_hidden), hidden_sums, H.T @ delta_out, out_sums)
            for param, step, grad in zip(params, velocity, grads):
                momentum_step(param, step, grad, momentum, rate)
    return net


def candidate_sizes(n_hidden: int | None, max_hidden: int, n_features: int, n_labels: int) -> list[int]:
    """The hidden layer sizes MLP selects from: ``[n_hidden]``, or 2L and 2D capped at ``max_hidden`` (once if
    equal)."""
    if n_hidden is not None:
        return [n_hidden]
    return list(dict.fromkeys(min(max_hidden, 2 * d) for d in (n_labels, n_features)))


def validation_rows(fraction: float, n_rows: int) -> int:
    """How many of ``n_rows`` training rows MLP holds out to select the hidden layer size (at least one each side)."""
    return min(max(int(round(fraction * n_rows)), 1), n_rows - 1)


def _exact_match_and_hamming(Y: np.ndarray, P: np.ndarray) -> tuple[float, float]:
    correct = Y == (P >= 0.5)
    return float(correct.all(axis=1).mean()), float(correct.mean())


class MLP(MultiLabelClassifier):
    """Multi-layer perceptron: one sigmoid hidden layer, sigmoid outputs, back-propagation (Table 5).

    Trained by full-batch gradient descent on the cross-entropy (learning rate 0.1, 1000
    epochs, MEKA's BPNN ``-r 0.1 -E 1000``) with momentum 0.9: MEKA updates after every
    example, N times per epoch, and full-batch descent needs the momentum to get comparably far
    in 1000 updates (with MEKA's 0.1 it under-fits sparse text data). The hidden layer size is
    the best of K in {2L, 2D}, each capped at ``max_hidden`` = 100, on an internal 60/40 split
    of the training rows (by exact match, then Hamming score; the first candidate on ties),
    and the network is then retrained on all training rows. Identical candidates (both capped
    at 100) are trained once, with no internal split.

    Parameters
    ----------
    n_hidden : int or None, default=None
        A fixed hidden layer size; None selects from {2L, 2D} as above.
    max_hidden : int, default=100
        Cap on the candidate sizes.
    learning_rate : float, default=0.1
    n_epochs : int, default=1000
    momentum : float, default=0.9
    validation_fraction : float, default=0.4
        Share of the training rows held out to select the hidden layer size.
    input_scaling : {"auto", "standard", "maxabs"} or None, default="auto"
        Input scaling with training statistics ("auto": standardise dense X, max-abs sparse X).
    random_state : int, RandomState or None, default=None
        Seeds the internal split and the initial weights.

    Attributes
    ----------
    n_hidden_ : int, the hidden layer size used.
    network_ : Network, the trained weights (on the scaled inputs).
    validation_scores_ : dict, hidden size -> (exact match, Hamming score) on the internal split.

    References
    ----------
    Paper Section 4.4 and Table 5; Tables 7-8 (MLP).

    Examples
    --------
    >>> import numpy as np
    >>> from mlhidden.methods import MLP
    >>> X = np.array([[0., 0.], [0., 1.], [1., 0.], [1., 1.]] * 5)
    >>> Y = np.array([[0, 0, 0], [1, 0, 1], [1, 0, 1], [1, 1, 0]] * 5)  # OR, AND, XOR
    >>> MLP(n_epochs=50, random_state=0).fit(X, Y).predict(X[:4]).shape
    (4, 3)
    """

    _parameter_constraints = {
        "n_hidden": [None, Interval(Integral, 1, None, closed="left")],
        "max_hidden": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "n_epochs": [Interval(Integral, 0, None, closed="left")],
        "momentum": [Interval(Real, 0, 1, closed="left")],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "input_scaling": [SCALING_OPTIONS, None],
    }

    def __init__(
        self, *, n_hidden: int | None = None, max_hidden: int = 100, learning_rate: float = 0.1, n_epochs: int = 1000,
        momentum: float = 0.9, validation_fraction: float = 0.4, input_scaling: str | None = "auto",
        random_state: RandomStateLike = None,
    ) -> None:
        self.n_hidden = n_hidden
        self.max_hidden = max_hidden
        self.learning_rate = learning_rate
        self.n_epochs = n_epochs
        self.momentum = momentum
        self.validation_fraction = validation_fraction
        self.input_scaling = input_scaling
        self.random_state = random_state

    def fit(self, X: Matrix, Y: ArrayLike) -> Self:
        X, Y = self._fit_input(X, Y)
        rng = check_random_state(self.random_state)
        self.offset_, self.scale_ = column_scaling(X, self.input_scaling)
        X = apply_scaling(X, self.offset_, self.scale_)
        sizes = candidate_sizes(self.n_hidden, self.max_hidden, X.shape[1], Y.shape[1])
        self.validation_scores_ = {}
        if len(sizes) > 1 and X.shape[0] > 1:
            rows = rng.permutation(X.shape[0])
            n_valid = validation_rows(self.validation_fraction, X.shape[0])
            valid, train = rows[:n_valid], rows[n_valid:]
            for size in sizes:
                net = self._train(X[train], Y[train], size, rng)
                self.validation_scores_[size] = _exact_match_and_hamming(Y[valid], net.output(net.hidden(X[valid])))
            sizes = [max(sizes, key=lambda size: self.validation_scores_[size])]
        self.n_hidden_ = sizes[0]
        self.network_ = self._train(X, Y, self.n_hidden_, rng)
        self.n_labels_ = Y.shape[1]
        return self

    def _train(self, X: Matrix, Y: np.ndarray, size: int, rng: np.random.RandomState) -> Network:
        return train_network(X, Y, size, self.learning_rate, self.n_epochs, self.momentum, rng)

    def predict_proba(self, X: Matrix) -> np.ndarray:
        check_is_fitted(self)
        X = apply_scaling(self._check_X(X, reset=False), self.offset_, self.scale_)
        return np.asarray(self.network_.output(self.network_.hidden(X)).astype(np.float64))
