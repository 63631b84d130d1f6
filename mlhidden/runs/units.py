"""A unit of a run, typed: as planned (:class:`PlannedUnit`) and as computed (:class:`UnitResult`).

Together they are a row of the store's ``units`` table, as Python names its columns
(:data:`~mlhidden.runs.store_schema.UNIT_FIELDS`): the plan gives the key, the result every other
column but ``finished_at``, which the store stamps.
The runner plans units, the executor hands them to workers and the store writes what comes back,
all through these two types.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from mlhidden.data.dataset import Dataset
from mlhidden.runs.metrics import METRICS
from mlhidden.runs.specs import MethodSpec
from mlhidden.runs.splits import Split
from mlhidden.runs.store_schema import KEY_FIELDS, METRIC_COLUMNS, UNIT_FIELDS, UnitKey


@dataclass(frozen=True)
class PlannedUnit:
    """One unit of a run: ``method`` fitted on ``split`` of the loaded dataset ``data``."""

    data: Dataset = field(repr=False)
    split: Split = field(repr=False)
    method: MethodSpec

    @property
    def key(self) -> UnitKey:
        """Its store key: dataset, dataset checksum, method, params hash, split index, split seed."""
        return (
            self.data.name, self.data.checksum, self.method.name, self.method.params_hash, self.split.index,
            self.split.seed,
        )

    def key_columns(self) -> dict[str, Any]:
        """Its key as a row in Python names it (``KEY_FIELDS``)."""
        return dict(zip(KEY_FIELDS, self.key))


@dataclass(frozen=True)
class UnitResult:
    """What computing one unit gave: the store's unit columns beside the key, and its test predictions.

    ``label`` to ``label_order`` say what the unit was (its method's table label and identity, the
    ``random_state`` it got and the label order it saw). ``exact_match`` to ``test_seconds`` are the
    catalogue's stored metrics (:data:`~mlhidden.runs.store_schema.METRIC_COLUMNS`; checked when this
    module loads, by :func:`_check_metric_fields`). A failed unit has an ``error`` and no
    measures, times or predictions. ``predicted`` and ``label_scores`` (None without
    ``predict_proba``) go to the store's ``predictions`` table, not to ``units``.
    """

    label: str
    params_json: str
    method_seed: int | None
    label_order: str
    status: str
    error: str = ""
    exact_match: float | None = None
    hamming_score: float | None = None
    micro_f1: float | None = None
    macro_f1: float | None = None
    example_f1: float | None = None
    jaccard: float | None = None
    train_seconds: float | None = None
    test_seconds: float | None = None
    reused_seconds: float | None = None
    worker_seconds: float | None = None
    n_warnings: int = 0
    warnings: str = "[]"
    predicted: np.ndarray | None = field(default=None, repr=False)
    label_scores: np.ndarray | None = field(default=None, repr=False)

    @classmethod
    def of(cls, split: Split, method: MethodSpec, **outcome: Any) -> UnitResult:
        """The result of ``method`` on ``split``: the plan columns filled from them, the rest from ``outcome``."""
        return cls(
            label=method.label, params_json=json.dumps(method.resolved.as_dict(), sort_keys=True),
            method_seed=split.method_seed, label_order=json.dumps(split.label_order.tolist()), **outcome,
        )

    def row(self, key: UnitKey) -> dict[str, Any]:
        """Its row of the ``units`` table under ``key``, every column but ``finished_at``."""
        values = {f.name: getattr(self, f.name) for f in fields(self) if f.name in UNIT_FIELDS}
        return {**dict(zip(KEY_FIELDS, key)), **values}


def _check_metric_fields() -> None:
    """UnitResult's metric fields are the catalogue's stored metrics, in its order, or the module does not load.

    They are written out above rather than made from the catalogue, because a dataclass made at run
    time (``dataclasses.make_dataclass``) has fields the type checker cannot see.
    """
    declared = tuple(f.name for f in fields(UnitResult) if f.name in METRICS)
    if declared != METRIC_COLUMNS:
        raise TypeError(f"UnitResult's metric fields {declared} are not the stored metrics {METRIC_COLUMNS}")


_check_metric_fields()
