"""The stored runs a claims file is checked on, found by name from the folders given.

A folder given is either a run directory (it holds a store; its name is the folder's name) or a
folder of run directories (each sub-folder with a store is a run, by its folder name).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from mlhidden.errors import UserError
from mlhidden.report.replication import split_test_train_ratio
from mlhidden.report.tables import sort_units
from mlhidden.runs.record import RunRecord
from mlhidden.runs.run_results import RunResults
from mlhidden.runs.status import OK
from mlhidden.runs.store import ResultStore, load_results, store_exists


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
    table order with standalone times, or None when no run of that name was given.
    """

    def __init__(self, folders: Iterable[str | os.PathLike[str]]):
        self.paths: dict[str, Path] = {}
        for folder in map(Path, folders):
            if store_exists(folder):
                self.paths[folder.resolve().name] = folder
            elif folder.is_dir():
                self.paths.update({sub.name: sub for sub in sorted(folder.iterdir()) if store_exists(sub)})
            else:
                raise UserError("no such run directory", path=folder,
                                hint="give a run directory (made by mlhidden run) or a folder of them")
        self._results: dict[str, RunResults | None] = {}

    def __getitem__(self, name: str) -> RunResults | None:
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
        with ResultStore(self.paths[name], create=False) as store:
            return store.datasets().set_index("name")

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
