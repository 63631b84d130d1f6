"""Generated datasets for the benchmark: the shapes of datasets we cannot ship, with their skew."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from mlhidden.data import Dataset


def make_mediamill_like(n_samples=43907, n_features=120, n_labels=101, random_state=0) -> Dataset:
    """Dense data of MediaMill's shape and label skew: label j is a noisy linear threshold of x.

    Label frequencies fall off like MediaMill's (a few frequent labels, many rare ones, about
    4.4 labels per row), which is what makes logistic regressions slow to converge.
    """
    rng = np.random.RandomState(random_state)
    X = rng.standard_normal((n_samples, n_features))
    scores = X @ rng.standard_normal((n_features, n_labels)) / np.sqrt(n_features)
    scores += 0.5 * rng.standard_normal(scores.shape)
    frequency = np.clip(0.75 * np.arange(1, n_labels + 1) ** -0.9, 0.002, 0.75)
    thresholds = np.array([np.quantile(scores[:, j], 1 - f) for j, f in enumerate(frequency)])
    Y = (scores > thresholds).astype(np.int8)
    return Dataset("MediaMill-synthetic", X, Y, params={"random_state": random_state})


def make_many_labels(n_samples=5000, n_features=500, n_labels=1000, random_state=0) -> Dataset:
    """Sparse binary words and a thousand labels, of Delicious's shape (L ~ 1000, D = 500).

    Each row has about 20 of the 500 words; label j is a noisy linear threshold of the words with
    a frequency falling from 0.3 to 0.003 (at least a few positives in a training part).
    """
    rng = np.random.RandomState(random_state)
    X = sp.random(n_samples, n_features, density=0.04, format="csr", random_state=rng, data_rvs=np.ones)
    scores = np.asarray(X @ rng.standard_normal((n_features, n_labels))) + 0.5 * rng.standard_normal(
        (n_samples, n_labels)
    )
    frequency = np.geomspace(0.3, 0.003, n_labels)
    thresholds = np.array([np.quantile(scores[:, j], 1 - f) for j, f in enumerate(frequency)])
    Y = (scores > thresholds).astype(np.int8)
    return Dataset("Many-labels-synthetic", X, Y, params={"random_state": random_state})


def make_delicious_like(n_samples=16000, n_features=500, n_labels=1000, random_state=0) -> Dataset:
    """Sparse binary words and a thousand sparse labels, of Mulan's delicious shape (N = 16,105, D = 500, L = 983).

    Each row has about 20 of the 500 words. Label j is a noisy linear threshold of the words with
    a frequency of ``0.4 j^-0.55`` (0.4 down to 0.009): about 19 labels per row, as delicious has
    (cardinality 19.0), most of them rare. :func:`make_many_labels` has the same words but 64 labels a row.
    """
    rng = np.random.RandomState(random_state)
    X = sp.random(n_samples, n_features, density=0.04, format="csr", random_state=rng, data_rvs=np.ones)
    scores = np.asarray(X @ rng.standard_normal((n_features, n_labels))) + 0.5 * rng.standard_normal(
        (n_samples, n_labels)
    )
    frequency = 0.4 * np.arange(1, n_labels + 1) ** -0.55
    thresholds = np.array([np.quantile(scores[:, j], 1 - f) for j, f in enumerate(frequency)])
    Y = (scores > thresholds).astype(np.int8)
    return Dataset("Delicious-synthetic", X, Y, params={"random_state": random_state})
