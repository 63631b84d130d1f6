"""The paper's synthetic multi-label data (Section 4.1, Table 4 and Fig. 'results_syn1').

Random inputs go through a network of random weights to threshold linear units (TLUs), one per
label. The *complex* kind has a hidden layer of ReLU units between inputs and labels, so label
boundaries are non-linear and the labels share the hidden layer; the *simple* kind has none, so
every label is a linear function of the input. The paper gives the architecture but not the
input distribution, the weight distribution or the thresholds; we use standard-normal inputs,
weights and biases, and the TLU thresholds the paper uses for its synthetic labels (Section 4.1):
``t_j ~ Normal(mu_j, 0.1 sigma_j)`` with ``mu_j, sigma_j`` the mean and standard deviation of the
label's activation over the sampled inputs, which keeps every label near balanced.

Those three choices, and whether every label reads every hidden unit, are left open by the paper,
so :func:`draw_network` takes them as options (:data:`INPUT_DISTRIBUTIONS`,
:data:`THRESHOLD_RULES`, :data:`HIDDEN_SHARING`); the defaults are the choices above and draw
exactly the numbers they always did. The report's Table 4 section runs C2 under each option.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils import check_random_state

from mlhidden.data.dataset import Dataset, RandomStateLike
from mlhidden.errors import UserError

THRESHOLD_STD = 0.1
INPUT_DISTRIBUTIONS = ("normal", "uniform", "binary")
"""``inputs``: standard normal; uniform on [0, 1]; fair coin bits {0, 1} (as in Logical)."""
THRESHOLD_RULES = ("jittered_mean", "zero")
"""``thresholds``: the paper's synthetic-label rule (near balanced labels); a plain TLU at 0,
where the drawn output bias alone sets how often a label is on."""
HIDDEN_SHARING = ("shared", "per_label")
"""``hidden``: every label reads every hidden unit; each label reads its own block of
``n_hidden // n_labels`` hidden units, so no hidden unit is common to two labels."""
DEFAULT_OPTIONS = {"inputs": "normal", "thresholds": "jittered_mean", "hidden": "shared"}


@dataclass(frozen=True)
class RandomNetwork:
    """The concept behind a synthetic dataset: x -> (ReLU hidden layer) -> TLU per label.

    Attributes
    ----------
    hidden_weights : ndarray of shape (n_features + 1, n_hidden) or None
        Input weights of the hidden layer, bias in the last row; None for the simple kind.
    output_weights : ndarray of shape (n_inputs + 1, n_labels)
        Weights from the hidden units (or, without a hidden layer, the inputs) to the labels,
        bias in the last row.
    thresholds : ndarray of shape (n_labels,)
        Label j is ``activation_j > thresholds[j]``.
    """

    hidden_weights: np.ndarray | None
    output_weights: np.ndarray
    thresholds: np.ndarray

    def activations(self, X: ArrayLike) -> np.ndarray:
        """The output units' activations before thresholding, shape (n_samples, n_labels)."""
        inputs = np.asarray(X, dtype=np.float64)
        if self.hidden_weights is not None:
            inputs = np.maximum(_affine(inputs, self.hidden_weights), 0.0)
        return _affine(inputs, self.output_weights)

    def labels(self, X: ArrayLike) -> np.ndarray:
        """The label matrix of inputs ``X`` (int8 0/1), e.g. on a grid to draw the true regions."""
        return (self.activations(X) > self.thresholds).astype(np.int8)


def _affine(inputs: np.ndarray, weights: np.ndarray) -> np.ndarray:
    return np.asarray(inputs @ weights[:-1] + weights[-1])


def _positive_int(name: str, value: object, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise UserError(f"synthetic data: {name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _choice(name: str, value: object, choices: Sequence[str]) -> str:
    if value not in choices:
        raise UserError(f"synthetic data: {name} must be one of {', '.join(choices)}, got {value!r}")
    return str(value)


def _inputs(rng: np.random.RandomState, distribution: str, shape: tuple[int, int]) -> np.ndarray:
    if distribution == "uniform":
        return np.asarray(rng.uniform(0.0, 1.0, shape))
    if distribution == "binary":
        return rng.randint(0, 2, shape).astype(np.float64)
    return np.asarray(rng.standard_normal(shape))


def _per_label_blocks(n_hidden: int, n_labels: int) -> np.ndarray:
    """(n_hidden + 1, n_labels) mask: label j reads hidden units j*b .. (j+1)*b - 1 and its bias."""
    block = n_hidden // n_labels
    if block < 1:
        raise UserError(f"synthetic data: hidden=per_label needs n_hidden >= n_labels, got {n_hidden} < {n_labels}")
    mask = np.zeros((n_hidden + 1, n_labels), dtype=bool)
    for label in range(n_labels):
        mask[label * block:(label + 1) * block, label] = True
    mask[-1] = True
    return mask


def draw_network(
    n_samples: int = 10000, n_features: int = 10, n_labels: int = 10, n_hidden: int = 100,
    random_state: RandomStateLike = 0,
    inputs: str = "normal", thresholds: str = "jittered_mean", hidden: str = "shared",
) -> tuple[np.ndarray, RandomNetwork]:
    """Sample the inputs and the random network of one synthetic dataset.

    Parameters
    ----------
    n_samples, n_features, n_labels : int
        N, D and L.
    n_hidden : int
        ReLU units in the hidden layer; 0 means no hidden layer (the simple kind).
    random_state : int, numpy.random.RandomState or None
        Seeds everything; the same seed gives the same inputs and network.
    inputs : {"normal", "uniform", "binary"}
        The input distribution (:data:`INPUT_DISTRIBUTIONS`).
    thresholds : {"jittered_mean", "zero"}
        The TLU threshold rule (:data:`THRESHOLD_RULES`).
    hidden : {"shared", "per_label"}
        Which hidden units each label reads (:data:`HIDDEN_SHARING`); ignored without a hidden layer.

    Every option draws the same random numbers in the same order, so two datasets with one seed
    and different options differ only by that option.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    network : RandomNetwork
    """
    n_samples = _positive_int("n_samples", n_samples, 2)
    n_features = _positive_int("n_features", n_features)
    n_labels = _positive_int("n_labels", n_labels)
    n_hidden = _positive_int("n_hidden", n_hidden, 0)
    inputs = _choice("inputs", inputs, INPUT_DISTRIBUTIONS)
    rule = _choice("thresholds", thresholds, THRESHOLD_RULES)
    hidden = _choice("hidden", hidden, HIDDEN_SHARING)
    rng = check_random_state(random_state)
    X = _inputs(rng, inputs, (n_samples, n_features))
    hidden_weights = rng.standard_normal((n_features + 1, n_hidden)) if n_hidden else None
    output_weights = rng.standard_normal(((n_hidden or n_features) + 1, n_labels))
    if n_hidden and hidden == "per_label":
        output_weights = np.where(_per_label_blocks(n_hidden, n_labels), output_weights, 0.0)
    threshold_noise = rng.standard_normal(n_labels)
    if rule == "zero":
        return X, RandomNetwork(hidden_weights, output_weights, np.zeros(n_labels))
    activations = RandomNetwork(hidden_weights, output_weights, np.zeros(n_labels)).activations(X)
    jittered = activations.mean(axis=0) + THRESHOLD_STD * activations.std(axis=0) * threshold_noise
    return X, RandomNetwork(hidden_weights, output_weights, jittered)


def _params(**params: Any) -> dict[str, Any]:
    """The generator's parameters as stored with the dataset; options left at their defaults are not
    written, so that the records of datasets made before the options existed stay the same."""
    return {key: value for key, value in params.items() if DEFAULT_OPTIONS.get(key, object()) != value}


def _network_dataset(name: str, params: dict[str, Any]) -> Dataset:
    X, network = draw_network(**params)
    return Dataset(
        name=name,
        X=X,
        Y=network.labels(X),
        feature_names=tuple(f"x{i + 1}" for i in range(X.shape[1])),
        label_names=tuple(f"y{j + 1}" for j in range(network.thresholds.shape[0])),
        params=params,
    )


def make_synthetic_complex(
    n_samples: int = 10000, n_features: int = 10, n_labels: int = 10, n_hidden: int = 100,
    random_state: RandomStateLike = 0,
    inputs: str = "normal", thresholds: str = "jittered_mean", hidden: str = "shared",
) -> Dataset:
    """Non-linear synthetic data: random inputs, a ReLU hidden layer, a TLU per label (Table 4a).

    The paper's Table 4 uses N = 10000, L = 10 and 100 hidden units (D is not stated; we use
    10); its Fig. 'results_syn1' uses D = 2, 10 hidden units and L = 2. ``inputs``,
    ``thresholds`` and ``hidden`` are the choices the paper leaves open (see :func:`draw_network`).
    """
    _positive_int("n_hidden", n_hidden)
    params = _params(
        n_samples=n_samples, n_features=n_features, n_labels=n_labels, n_hidden=n_hidden, random_state=random_state,
        inputs=inputs, thresholds=thresholds, hidden=hidden,
    )
    return _network_dataset("SyntheticComplex", params)


def make_synthetic_simple(
    n_samples: int = 10000, n_features: int = 10, n_labels: int = 10, random_state: RandomStateLike = 0,
    inputs: str = "normal", thresholds: str = "jittered_mean",
) -> Dataset:
    """Linear synthetic data: random inputs straight to a TLU per label, no hidden layer (Table 4b)."""
    params = _params(
        n_samples=n_samples, n_features=n_features, n_labels=n_labels, n_hidden=0, random_state=random_state,
        inputs=inputs, thresholds=thresholds,
    )
    return _network_dataset("SyntheticSimple", params)
