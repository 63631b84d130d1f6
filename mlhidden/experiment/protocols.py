"""Evaluation protocols: how a dataset's rows become the train/test parts of its units.

``holdout`` (the default, the paper's) draws ``splits`` independent random partitions;
``kfold`` partitions the shuffled rows into ``folds`` test folds; ``stratified_kfold`` does the
same with iterative stratification (Sechidis et al. 2011, through the maintained
``iterative-stratification`` package), so that rare labels reach every test fold.

The protocol is part of a unit's identity: its seeds and splits are derived from it in
:mod:`mlhidden.experiment.splits` (:class:`~mlhidden.experiment.splits.SplitRecipe`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

if TYPE_CHECKING:
    from mlhidden.experiment.splits import Split
    from mlhidden.experiment.yaml_lines import Fail

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


def parse_protocol(data: Mapping[str, Any], fail: Fail, max_folds: int) -> Protocol:
    """A config's ``protocol: {kind: holdout | kfold | stratified_kfold, folds: K}`` (default: holdout).

    ``fail`` reports a problem at its config line (:func:`~mlhidden.experiment.yaml_lines.failure_at`).
    """
    entry = data.get("protocol") or {"kind": "holdout"}
    entry = {"kind": entry} if isinstance(entry, str) else entry
    if not isinstance(entry, Mapping) or entry.get("kind") not in PROTOCOL_KINDS:
        kind = entry.get("kind") if isinstance(entry, Mapping) else entry
        fail(f"unknown protocol kind {kind!r}", ("protocol",), hint=f"use {{kind: {' | '.join(PROTOCOL_KINDS)}}}")
    kind = entry["kind"]
    allowed = ("kind",) if kind == "holdout" else ("kind", "folds")
    bad = [key for key in entry if key not in allowed]
    if bad:
        fail(
            f"unknown key '{bad[0]}' in a {kind} protocol",
            ("protocol", bad[0]),
            hint=f"valid keys: {', '.join(allowed)}",
        )
    if kind == "holdout":
        return Protocol()
    folds = entry.get("folds", DEFAULT_FOLDS)
    if isinstance(folds, bool) or not isinstance(folds, int) or folds < 2:
        fail(f"'folds' must be an integer >= 2, got {folds!r}", ("protocol", "folds"))
    if folds > max_folds:
        fail(
            f"'folds' is {folds:,}, more than the {max_folds:,} a run may have",
            ("protocol", "folds"),
            hint="the paper uses 10 splits",
        )
    return Protocol(kind, folds)


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
