"""Every split and seed of a run, derived here and nowhere else.

A run's :class:`SplitRecipe` (run seed, protocol, number of units, train fraction, label
shuffling) gives each unit of a dataset its split seed (a store key column), its method seed
(the ``random_state`` every method gets) and its :class:`Split` (train/test rows and label
order). The store, the provenance, the runner and every report or refit ask the recipe
of a config or stored run record, so a unit is never re-derived by a second rule.

Seeds are derived from (run seed, dataset, split index) only, so adding a method or a dataset
to a config never changes the numbers of the others (benchopt's rule). A k-fold unit's split
seed is derived from the protocol as well, so it never equals a holdout unit's.

A protocol says how a dataset's rows become the train/test parts of its units: ``holdout`` (the
default, the paper's) draws ``splits`` independent random partitions; ``kfold`` partitions the
shuffled rows into ``folds`` test folds; ``stratified_kfold`` does the same with iterative
stratification (Sechidis et al. 2011, through the maintained ``iterative-stratification``
package), so that rare labels reach every test fold.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.model_selection import KFold

HOLDOUT, KFOLD, STRATIFIED_KFOLD = "holdout", "kfold", "stratified_kfold"
PROTOCOL_KINDS = (HOLDOUT, KFOLD, STRATIFIED_KFOLD)
DEFAULT_FOLDS = 5
TRAIN_FRACTION = 0.6


@dataclass(frozen=True)
class Protocol:
    """A protocol kind and, for the k-fold kinds, the number of folds (= units per dataset)."""

    kind: str = HOLDOUT
    folds: int | None = None

    @property
    def is_kfold(self) -> bool:
        return self.kind != HOLDOUT

    def record(self) -> dict[str, Any]:
        return {"kind": self.kind, "folds": self.folds} if self.is_kfold else {"kind": self.kind}

    @classmethod
    def from_record(cls, record: Mapping[str, Any] | None) -> Protocol:
        """A stored config's ``protocol`` entry; runs stored without one are holdout runs."""
        return cls(**record) if record else cls()

    def describe(self, train_fraction: float) -> str:
        if not self.is_kfold:
            return f"train fraction {train_fraction}"
        return (
            f"{self.folds}-fold cross-validation{' (iteratively stratified)' if self.kind == STRATIFIED_KFOLD else ''}"
        )




def label_coverage(splits: Iterable[Split], Y: ArrayLike) -> list[dict[str, Any]]:
    """Per test part: its rows, the positives of the dataset's rarest label, and labels with no positive.

    Labels without a positive in a test part make per-label measures (macro F1, macro AUC)
    undefined there; stratification is meant to keep them few.
    """
    Y = np.asarray(Y)
    positives = Y.sum(axis=0)
    present = np.flatnonzero(positives > 0)
    rarest = present[np.argmin(positives[present])] if present.size else None
    rows = []
    for split in splits:
        test_positives = Y[split.test].sum(axis=0)
        rows.append({
            "split": split.index,
            "test_rows": len(split.test),
            "rarest_label": None if rarest is None else int(rarest),
            "rarest_label_positives": None if rarest is None else int(test_positives[rarest]),
            "labels_without_positive": int(np.sum(test_positives[present] == 0)),
        })
    return rows


def _derive_seed(run_seed: int, *keys: object) -> int:
    """A 32-bit seed from the run seed and any keys, stable across processes and platforms."""
    text = "\x1f".join([str(int(run_seed)), *map(str, keys)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")


@dataclass(frozen=True)
class Split:
    """One unit's split: train/test row indices, the label order the methods see, and the seeds.

    ``seed`` is the split seed (the store's ``seed`` key column); ``method_seed`` the
    ``random_state`` of every method on it (None for a split made outside a run).
    """

    index: int
    seed: int
    train: np.ndarray
    test: np.ndarray
    label_order: np.ndarray
    method_seed: int | None = None


def make_split(
    n_samples: int,
    n_labels: int,
    seed: int,
    index: int = 0,
    train_fraction: float = TRAIN_FRACTION,
    shuffle_labels: bool = True,
) -> Split:
    """A random ``train_fraction`` train/test partition plus a random label order, from ``seed``.

    The training part has at least one row and the test part at least one row. With
    ``shuffle_labels=False`` the labels keep their order (the partition is the same).
    """
    if n_samples < 2:
        raise ValueError(f"need at least 2 samples to split, got {n_samples}")
    rng = np.random.RandomState(seed)
    rows = rng.permutation(n_samples)
    n_train = _holdout_train_rows(n_samples, train_fraction)
    label_order = rng.permutation(n_labels) if shuffle_labels else np.arange(n_labels)
    return Split(index, seed, np.sort(rows[:n_train]), np.sort(rows[n_train:]), label_order)


def _holdout_train_rows(n_samples: int, train_fraction: float) -> int:
    """The training rows of a holdout split of ``n_samples`` rows: at least one, and one fewer than all."""
    return min(max(int(round(train_fraction * n_samples)), 1), n_samples - 1)


def split_seed(run_seed: int, dataset_name: str, index: int) -> int:
    """The seed of holdout split ``index`` of a dataset: depends only on (run seed, dataset, index)."""
    return _derive_seed(run_seed, "split", dataset_name, index)


def method_seed(run_seed: int, dataset_name: str, index: int) -> int:
    """The ``random_state`` handed to every method on a split.

    The same for all methods on a split, so methods that define a shared random structure the
    same way (CCASL and its +BR/+AML variants) draw it identically.
    """
    return _derive_seed(run_seed, "method", dataset_name, index)


def _with_method_seed(split: Split, run_seed: int, dataset_name: str) -> Split:
    return Split(
        split.index,
        split.seed,
        split.train,
        split.test,
        split.label_order,
        method_seed(run_seed, dataset_name, split.index),
    )


@dataclass(frozen=True)
class SplitRecipe:
    """How a run splits every dataset: what decides each unit's split seed, method seed and split.

    Built by a run's config or stored record (:attr:`RunRecord.split_recipe`, the one constructor),
    so that a report or refit asks the record for a unit rather than deriving it again.
    """

    run_seed: int
    n_splits: int
    protocol: Protocol = Protocol()
    train_fraction: float = TRAIN_FRACTION
    shuffle_labels: bool = True

    def split_seed(self, dataset_name: str, index: int) -> int:
        """The store seed of unit ``index`` of a dataset (its label order is drawn from it)."""
        if not self.protocol.is_kfold:
            return split_seed(self.run_seed, dataset_name, index)
        return _derive_seed(self.run_seed, "split", dataset_name, index, self.protocol.kind, self.protocol.folds)

    def split_seeds(self, dataset_name: str) -> list[int]:
        return [self.split_seed(dataset_name, i) for i in range(self.n_splits)]

    def method_seeds(self, dataset_name: str) -> list[int]:
        return [method_seed(self.run_seed, dataset_name, i) for i in range(self.n_splits)]

    def splits(self, dataset_name: str, Y: np.ndarray) -> list[Split]:
        """Every :class:`Split` of a dataset in the run, in unit order, with its method seed.

        Holdout splits are those of :func:`make_split`; k-fold units test on one fold each and
        train on the others, the folds drawn once per dataset from (run seed, dataset, protocol).
        """
        n_samples, n_labels = Y.shape
        seeds = self.split_seeds(dataset_name)
        if not self.protocol.is_kfold:
            splits = [
                make_split(n_samples, n_labels, seed, i, self.train_fraction, self.shuffle_labels)
                for i, seed in enumerate(seeds)
            ]
        else:
            folds_seed = _derive_seed(self.run_seed, "folds", dataset_name, self.protocol.kind, self.protocol.folds)
            splits = []
            for i, (seed, test) in enumerate(zip(seeds, _test_folds(self.protocol, Y, folds_seed))):
                label_order = (
                    np.random.RandomState(seed).permutation(n_labels) if self.shuffle_labels else np.arange(n_labels)
                )
                splits.append(Split(i, seed, np.setdiff1d(np.arange(n_samples), test), test, label_order))
        return [_with_method_seed(split, self.run_seed, dataset_name) for split in splits]

    def test_rows(self, n_samples: int) -> int:
        """The rows of the smallest test part of a dataset of ``n_samples`` rows."""
        if self.protocol.folds is not None:
            return n_samples // self.protocol.folds
        return n_samples - _holdout_train_rows(n_samples, self.train_fraction)


def _test_folds(protocol: Protocol, Y: np.ndarray, seed: int) -> list[np.ndarray]:
    n_samples = Y.shape[0]
    if protocol.folds > n_samples:
        raise ValueError(f"{protocol.folds} folds need at least {protocol.folds} rows, got {n_samples}")
    rows = np.zeros((n_samples, 1))
    if protocol.kind == KFOLD:
        splitter = KFold(protocol.folds, shuffle=True, random_state=seed).split(rows)
    else:
        from iterstrat.ml_stratifiers import MultilabelStratifiedKFold

        splitter = MultilabelStratifiedKFold(protocol.folds, shuffle=True, random_state=seed).split(rows, np.asarray(Y))
    return [np.sort(test) for _, test in splitter]
