"""The stored runs a claims file is checked on, found by name from the folders given.

A folder given is either a run directory (it holds a store, or its compact copy; its name is the folder's
name) or a folder of run directories (each sub-folder with either is a run, by its folder name). Where two
runs given share a folder name, each is known by its path instead, as given on the command line,
and the name they share is refused: a sub-claim is never decided on a run its file did not mean.
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from mlhidden.errors import UserError
from mlhidden.runs.record import RunRecord
from mlhidden.runs.run_results import RunResults, sort_units
from mlhidden.runs.status import OK
from mlhidden.runs.store import load_results, results_exist, stored_datasets
from mlhidden.stats.replication import split_test_train_ratio

TIME_CONVENTION = (
    "A time sub-claim counts each method's own work plus the fits it reused from another method, as if it ran "
    "alone; the time tables show each method's own work."
)
"""The convention :func:`standalone_times` applies, in one sentence for the page."""


def standalone_times(units: pd.DataFrame) -> pd.DataFrame:
    """``units`` with each method's train and total time as if run alone.

    The store keeps a unit's own work and the cost of the fits it reused from other methods apart;
    a claim about time counts a shared fit in every method that uses it.
    """
    reused = units["reused_seconds"].astype(float).fillna(0.0)
    return units.assign(train_seconds=units["train_seconds"] + reused, total_seconds=units["total_seconds"] + reused)


class StoredRuns:
    """Run name -> run directory, each run read on first use.

    ``runs[name]`` is the run's :class:`~mlhidden.runs.run_results.RunResults`, its units in
    table order with standalone times, or None when no run of that name was given. ``paths`` maps
    each run's name (:meth:`key`) to its folder; ``shared`` each folder name two runs share to their
    paths.
    """

    def __init__(self, folders: Iterable[str | os.PathLike[str]]):
        found: dict[tuple[str, Path], Path] = {}  # (name, resolved) -> as given: one run given twice is one
        for folder in map(Path, folders):
            if results_exist(folder):
                found.setdefault((folder.resolve().name, folder.resolve()), folder)
            elif folder.is_dir():
                for sub in sorted(folder.iterdir()):
                    if results_exist(sub):
                        found.setdefault((sub.name, sub.resolve()), sub)
            else:
                raise UserError("no such run directory", path=folder,
                                hint="give a run directory (made by mlhidden run) or a folder of them")
        names = Counter(name for name, _ in found)
        self.paths: dict[str, Path] = {}
        self.shared: dict[str, list[str]] = {}
        for (name, _), path in found.items():
            key = name if names[name] == 1 else _path_name(path)
            self.paths[key] = path
            if key != name:
                self.shared.setdefault(name, []).append(key)
        self._results: dict[str, RunResults | None] = {}

    @classmethod
    def under(cls, folder: str | os.PathLike[str]) -> StoredRuns:
        """The runs in ``folder``, or none when there is no such folder: a report names the runs it
        reads, and one not run yet is None (``runs[name]``), not an error."""
        return cls([folder]) if Path(folder).is_dir() else cls([])

    def key(self, name: str) -> str:
        """The name the run ``name`` refers to is known by: its folder name, or where two runs given
        share that, its path as given (``./`` and a trailing ``/`` aside). A shared name is refused."""
        if name in self.shared:
            paths = self.shared[name]
            raise UserError(f"two runs given are named '{name}': {' and '.join(paths)}",
                            hint=f"name one by its path, e.g. run: {paths[0]}")
        if name in self.paths or "/" not in name:
            return name
        return str(Path(name))

    def __getitem__(self, name: str) -> RunResults | None:
        name = self.key(name)
        if name not in self._results:
            path = self.paths.get(name)
            run = load_results(path) if path is not None else None
            if run is not None:
                units = standalone_times(sort_units(run.units, run.datasets, run.methods, run.unavailable))
                run = dataclasses.replace(run, units=units)
            self._results[name] = run
        return self._results[name]

    def only(self) -> str | None:
        """The run's name when exactly one run was given."""
        return next(iter(self.paths)) if len(self.paths) == 1 else None

    def record(self, name: str) -> RunRecord:
        """The run's stored config, typed."""
        run = self[name]
        assert run is not None
        return RunRecord.from_record(run.config)

    def shapes(self, name: str) -> pd.DataFrame:
        """The run's datasets as stored: n_samples, n_labels, n_features, label_cardinality by name."""
        return stored_datasets(self.paths[self.key(name)])

    def ok_units(self, name: str) -> pd.DataFrame:
        """The run's ok units, with each dataset's group (its config entry) as ``group``."""
        run = self[name]
        assert run is not None
        groups = {spec.table_name: spec.group for spec in self.record(name).datasets}
        units = run.units[run.units["status"] == OK]
        return units.assign(group=units["dataset"].map(groups))

    def test_train_ratio(self, name: str) -> float:
        """n_test / n_train of one of the run's splits (or folds): the overlap the corrected t-test needs."""
        return split_test_train_ratio(self.record(name))


def _path_name(path: Path) -> str:
    """A run's path as a name: as given where it has a folder part, else absolute (never a bare folder name)."""
    return str(path) if len(path.parts) > 1 else str(path.absolute())
