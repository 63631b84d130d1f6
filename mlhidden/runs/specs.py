"""A run's datasets and methods as specs: what a config resolves to and what a stored run records."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from sklearn.base import clone

from mlhidden.data.catalog import DatasetSource, dataset_source, load_source
from mlhidden.data.dataset import Dataset, RandomStateLike
from mlhidden.data.transforms import apply_transforms
from mlhidden.io import PathLike
from mlhidden.methods.registry import MethodEntry, get_entry, make_resolved_method, seeded
from mlhidden.methods.resolved_method import ResolvedMethod


@dataclass(frozen=True)
class DatasetSpec:
    """A dataset in a config: a catalog or generator name, or a path to a MEKA ARFF file.

    ``params`` go to a generator (or ``labels`` to an ARFF reader), ``transform`` to
    :mod:`mlhidden.data.transforms`. ``label`` names it in tables (None: the dataset's own name);
    ``group`` and ``sweep`` say which sweep point of which entry it is. ``source`` is what the name
    resolved to when the config was read (kind, file or registry name, data path), which loading reads
    instead of resolving the name again; None in a stored run's record. It is no part of the record,
    whose hash keys the run.
    """

    name: str
    params: dict[str, Any] = field(default_factory=dict)
    transform: dict[str, Any] = field(default_factory=dict)
    label: str | None = None
    group: str | None = None
    sweep: dict[str, Any] = field(default_factory=dict)
    source: DatasetSource | None = field(default=None, compare=False, repr=False)

    def record(self) -> dict[str, Any]:
        """What the store and ``run.json`` keep: the entry as written, resolved again when a stored run is loaded."""
        return {
            "name": self.name, "params": self.params, "transform": self.transform, "label": self.label,
            "group": self.group, "sweep": self.sweep,
        }

    @property
    def table_name(self) -> str:
        """The dataset's name in the store and the tables: its label, else its registry name."""
        return self.label or self.name


@dataclass(frozen=True)
class MethodSpec:
    """A configured method: ``label`` is its column in the tables, ``resolved`` its full identity,
    ``entry`` the registry entry it was resolved from (its class; None in a stored run's record,
    where it is looked up by name when first built), ``prototype`` the unfitted estimator built and
    checked when the config was read (None in a stored run's record: built when first needed).

    Workers (loky processes, dask) receive the prototype with the spec and copy it, so methods
    registered from Python or given by import path work there as in this process.
    """

    label: str
    name: str
    params: dict[str, Any]
    base: Any
    resolved: ResolvedMethod
    entry: MethodEntry | None = field(compare=False, repr=False)
    group: str | None = None
    sweep: dict[str, Any] = field(default_factory=dict)
    prototype: Any = field(default=None, compare=False, repr=False)

    @functools.cached_property
    def params_hash(self) -> str:
        """The hash of ``resolved`` in every store key, worked out once (a plan asks it of every unit)."""
        return canonical_hash(self.resolved.as_dict())

    @property
    def method_entry(self) -> MethodEntry:
        """The registry entry: the one resolved when the config was read, else looked up by name."""
        return self.entry or get_entry(self.name)

    def make(self, random_state: RandomStateLike = None) -> Any:
        """The unfitted estimator of one unit: a copy of the prototype with the unit's ``random_state``."""
        if self.prototype is None:
            object.__setattr__(self, "prototype", make_resolved_method(self.method_entry, self.resolved))
        return seeded(clone(self.prototype), random_state)

    def record(self) -> dict[str, Any]:
        """What the store and ``run.json`` keep: label, sweep point, the resolved identity, and
        for a method that is not built in, the package and version providing it."""
        provider = self.method_entry.provider()
        return {
            "label": self.label,
            "group": self.group or self.label,
            "sweep": self.sweep,
            **self.resolved.as_dict(),
            **({"provider": provider} if provider else {}),
        }


def canonical_hash(value: object) -> str:
    """A short stable digest of a JSON-able value (sorted keys), used in store keys."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def load_dataset_spec(spec: DatasetSpec, data_dir: PathLike | None = None) -> Dataset:
    """A config's dataset entry as the units see it: loaded, transformed, named by its label.

    A spec read from a config is loaded from its ``source``; ``data_dir`` (the data path's first folder)
    serves a stored run's record only, whose names are resolved here.
    """
    source = spec.source or dataset_source(spec.name, data_dir)
    data = apply_transforms(load_source(source, spec.params or None), spec.transform)
    return dataclasses.replace(data, name=spec.label) if spec.label else data
