"""Evaluation protocols: how a dataset's rows become the train/test parts of its units.

``holdout`` (the default, the paper's) draws ``splits`` independent random partitions;
``kfold`` partitions the shuffled rows into ``folds`` test folds; ``stratified_kfold`` does the
same with iterative stratification (Sechidis et al. 2011, through the maintained
``iterative-stratification`` package), so that rare labels reach every test fold.

The protocol is part of a unit's identity: a k-fold unit's seed (a store key column) is derived
from the protocol as well, so it never equals a holdout unit's, while holdout seeds are exactly
those of runs stored before protocols existed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import KFold

from mlhidden.experiment.splits import Split, derive_seed, make_split, split_seed

HOLDOUT, KFOLD, STRATIFIED_KFOLD = "holdout", "kfold", "stratified_kfold"
PROTOCOL_KINDS = (HOLDOUT, KFOLD, STRATIFIED_KFOLD)
DEFAULT_FOLDS = 5


@dataclass(frozen=True)
class Protocol:
    """A protocol kind and, for the k-fold kinds, the number of folds (= units per dataset)."""

    kind: str = HOLDOUT
    folds: int | None = None

    @property
    def is_kfold(self) -> bool:
        return self.kind != HOLDOUT

    def record(self) -> dict:
        return {"kind": self.kind, "folds": self.folds} if self.is_kfold else {"kind": self.kind}

    @classmethod
    def from_record(cls, record: dict | None) -> Protocol:
        """A stored config's ``protocol`` entry; runs stored without one are holdout runs."""
        return cls(**record) if record else cls()

    def describe(self, train_fraction: float) -> str:
        if not self.is_kfold:
            return f"train fraction {train_fraction}"
        return f"{self.folds}-fold cross-validation{' (iteratively stratified)' if self.kind == STRATIFIED_KFOLD else ''}"


def unit_seed(protocol: Protocol, run_seed: int, dataset_name: str, index: int) -> int:
    """The store seed of unit ``index`` of a dataset (its label order is drawn from it)."""
    if not protocol.is_kfold:
        return split_seed(run_seed, dataset_name, index)
    return derive_seed(run_seed, "split", dataset_name, index, protocol.kind, protocol.folds)


def _test_folds(protocol: Protocol, Y, seed: int) -> list:
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


def dataset_splits(
    protocol: Protocol, run_seed: int, dataset_name: str, Y, n_splits: int, train_fraction: float, shuffle_labels: bool = True,
) -> list:
    """Every :class:`~mlhidden.experiment.splits.Split` of a dataset in a run, in unit order.

    Holdout splits are those of :func:`~mlhidden.experiment.splits.make_split`; k-fold units
    test on one fold each and train on the others, the folds drawn once per dataset from
    (run seed, dataset, protocol).
    """
    n_samples, n_labels = Y.shape
    seeds = [unit_seed(protocol, run_seed, dataset_name, i) for i in range(n_splits)]
    if not protocol.is_kfold:
        return [make_split(n_samples, n_labels, seed, i, train_fraction, shuffle_labels) for i, seed in enumerate(seeds)]
    folds = _test_folds(protocol, Y, derive_seed(run_seed, "folds", dataset_name, protocol.kind, protocol.folds))
    splits = []
    for i, (seed, test) in enumerate(zip(seeds, folds)):
        label_order = np.random.RandomState(seed).permutation(n_labels) if shuffle_labels else np.arange(n_labels)
        splits.append(Split(i, seed, np.setdiff1d(np.arange(n_samples), test), test, label_order))
    return splits


def label_coverage(splits, Y) -> list:
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
