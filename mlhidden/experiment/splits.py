"""Train/test splits and seeds: every method sees the same split and label order.

Seeds are derived from (run seed, dataset, split index) only, so adding a method or a dataset
to a config never changes the numbers of the others (benchopt's rule).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

TRAIN_FRACTION = 0.6


def derive_seed(run_seed: int, *keys) -> int:
    """A 32-bit seed from the run seed and any keys, stable across processes and platforms."""
    text = "\x1f".join([str(int(run_seed)), *map(str, keys)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")


@dataclass(frozen=True)
class Split:
    """One randomisation: train/test row indices and the label order the methods see."""

    index: int
    seed: int
    train: np.ndarray
    test: np.ndarray
    label_order: np.ndarray


def make_split(
    n_samples: int, n_labels: int, seed: int, index: int = 0, train_fraction: float = TRAIN_FRACTION, shuffle_labels: bool = True
) -> Split:
    """A random ``train_fraction`` train/test partition plus a random label order, from ``seed``.

    The training part has at least one row and the test part at least one row. With
    ``shuffle_labels=False`` the labels keep their order (the partition is the same).
    """
    if n_samples < 2:
        raise ValueError(f"need at least 2 samples to split, got {n_samples}")
    rng = np.random.RandomState(seed)
    rows = rng.permutation(n_samples)
    n_train = min(max(int(round(train_fraction * n_samples)), 1), n_samples - 1)
    label_order = rng.permutation(n_labels) if shuffle_labels else np.arange(n_labels)
    return Split(index, seed, np.sort(rows[:n_train]), np.sort(rows[n_train:]), label_order)


def split_seed(run_seed: int, dataset_name: str, index: int) -> int:
    """The seed of split ``index`` of a dataset: depends only on (run seed, dataset, index)."""
    return derive_seed(run_seed, "split", dataset_name, index)


def split_for(
    run_seed: int, dataset_name: str, index: int, n_samples: int, n_labels: int,
    train_fraction: float = TRAIN_FRACTION, shuffle_labels: bool = True,
) -> Split:
    """Split ``index`` of a dataset in a run."""
    return make_split(n_samples, n_labels, split_seed(run_seed, dataset_name, index), index, train_fraction, shuffle_labels)


def method_seed(run_seed: int, dataset_name: str, index: int) -> int:
    """The ``random_state`` handed to every method on a split.

    The same for all methods on a split, so methods that define a shared random structure the
    same way (CCASL and its +BR/+AML variants) draw it identically.
    """
    return derive_seed(run_seed, "method", dataset_name, index)
