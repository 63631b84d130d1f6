"""A run's config as stored, typed: what the store's ``config`` meta and ``run.json`` hold.

:meth:`RunRecord.record` writes the dict and :meth:`RunRecord.from_record` reads it back, so that the
label-order default of old stores, the shape of each entry and the config hash are known in this one
place rather than wherever a report reads the dict. A run's config
(:class:`~mlhidden.experiment.config.RunConfig`) is a ``RunRecord`` plus runtime options.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mlhidden.methods.resolved_method import ResolvedMethod
from mlhidden.runs.specs import DatasetSpec, MethodSpec, canonical_hash
from mlhidden.runs.splits import Protocol, SplitRecipe

# Runs stored before ``shuffle_labels`` existed shuffled their labels.
STORED_SHUFFLE_LABELS_DEFAULT = True
# A stored method entry is its resolved identity (methods.ResolvedMethod.as_dict) plus label, group and sweep.


@dataclass(frozen=True)
class RunRecord:
    """A run's config as stored: datasets and methods in config order, the split protocol, the seed.

    Read back from a store, the methods are :class:`~mlhidden.runs.specs.MethodSpec` again, whose
    ``params_hash`` is the stored one.
    """

    name: str
    datasets: tuple[DatasetSpec, ...]
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
            datasets=tuple(DatasetSpec(**spec) for spec in record["datasets"]),
            methods=tuple(
                MethodSpec(
                    label=m["label"],
                    name=m["name"],
                    params=m["params"],
                    base=m.get("base"),
                    resolved=ResolvedMethod.from_dict(m),
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

    def to_dict(self) -> dict[str, Any]:
        """The run's identity, which :attr:`config_hash` digests; a holdout run's has no ``protocol`` entry, as
        before protocols existed."""
        protocol = {"protocol": self.protocol.record()} if self.protocol.is_kfold else {}
        return {
            "name": self.name,
            "datasets": [d.record() for d in self.datasets],
            "methods": [m.record() for m in self.methods],
            "splits": self.splits,
            "seed": self.seed,
            "train_fraction": self.train_fraction,
            "shuffle_labels": self.shuffle_labels,
            **protocol,
        }

    @property
    def config_hash(self) -> str:
        return canonical_hash(self.to_dict())

    def record(self) -> dict[str, Any]:
        """What the store and ``run.json`` keep, enough to rebuild every table without the YAML file (what
        :meth:`from_record` reads): :meth:`to_dict` with each method's ``params_hash``, and the ``config_hash``."""
        record = self.to_dict()
        for method, spec in zip(record["methods"], self.methods):
            method["params_hash"] = spec.params_hash
        record["config_hash"] = self.config_hash
        return record

    @property
    def split_recipe(self) -> SplitRecipe:
        """What decides every unit's split and seeds (:mod:`mlhidden.runs.splits`): ask it, never derive them again."""
        return SplitRecipe(self.seed, self.splits, self.protocol, self.train_fraction, self.shuffle_labels)

    def dataset(self, table_name: str) -> DatasetSpec:
        """The entry whose table name is ``table_name``."""
        return next(spec for spec in self.datasets if spec.table_name == table_name)

    def method(self, label: str) -> MethodSpec:
        """The entry whose table label is ``label``."""
        return next(method for method in self.methods if method.label == label)
