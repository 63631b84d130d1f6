"""A stored run's config, typed: what the store's ``config`` meta holds, read back.

:func:`mlhidden.experiment.runner.config_record` writes the record as JSON; :meth:`RunRecord.from_record`
reads it, so that a dataset's table name, the label-order default of old stores and the shape of
each entry are known in this one place rather than wherever a report reads the dict.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mlhidden.runs.specs import DatasetSpec, MethodSpec
from mlhidden.runs.splits import Protocol, SplitRecipe

# Runs stored before ``shuffle_labels`` existed shuffled their labels.
STORED_SHUFFLE_LABELS_DEFAULT = True
# A stored method entry is its resolved identity (methods.registry.resolve_method) plus label, group and sweep.
RESOLVED_KEYS = ("name", "params", "base", "preprocess")


@dataclass(frozen=True)
class DatasetRecord(DatasetSpec):
    """A dataset entry of a stored config: the config's own entry, which the units were loaded from."""

    @property
    def table_name(self) -> str:
        """The dataset's name in the store and the tables: its label, else its name."""
        return self.label or self.name


@dataclass(frozen=True)
class RunRecord:
    """A stored run's config: datasets and methods in config order, the split protocol, the seed.

    The methods are :class:`~mlhidden.runs.specs.MethodSpec` again, whose ``params_hash``
    is the stored one.
    """

    name: str
    datasets: tuple[DatasetRecord, ...]
    methods: tuple[MethodSpec, ...]
    splits: int
    seed: int
    train_fraction: float
    shuffle_labels: bool = STORED_SHUFFLE_LABELS_DEFAULT
    protocol: Protocol = Protocol()

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> RunRecord:
        """Read the dict a store keeps (``ResultStore.get_meta("config")``)."""
        return cls(
            name=record["name"],
            datasets=tuple(DatasetRecord(**spec) for spec in record["datasets"]),
            methods=tuple(
                MethodSpec(
                    label=m["label"],
                    name=m["name"],
                    params=m["params"],
                    base=m.get("base"),
                    resolved={key: m[key] for key in RESOLVED_KEYS if key in m},
                    entry=None,
                    group=m["group"],
                    sweep=m.get("sweep", {}),
                )
                for m in record["methods"]
            ),
            splits=record["splits"],
            seed=record["seed"],
            train_fraction=record["train_fraction"],
            shuffle_labels=record.get("shuffle_labels", STORED_SHUFFLE_LABELS_DEFAULT),
            protocol=Protocol.from_record(record.get("protocol")),
        )

    @property
    def split_recipe(self) -> SplitRecipe:
        """What decided every stored unit's split and seeds: ask it, never derive them again."""
        return SplitRecipe(self.seed, self.splits, self.protocol, self.train_fraction, self.shuffle_labels)

    def dataset(self, table_name: str) -> DatasetRecord:
        """The entry whose table name is ``table_name``."""
        return next(spec for spec in self.datasets if spec.table_name == table_name)

    def method(self, label: str) -> MethodSpec:
        """The entry whose table label is ``label``."""
        return next(method for method in self.methods if method.label == label)
