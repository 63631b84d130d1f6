"""The results store: one SQLite file per run directory, one row per finished unit.

Every finished unit is committed in its own transaction the moment it arrives, so an
interrupted run loses at most the units that were still computing; re-running the same config
skips what is stored (resume). The key holds the dataset checksum and the method's canonical
parameter hash, so results from another data version or parameter setting never mix.

Each unit's test predictions go into the ``predictions`` table in the same transaction, and
each split's true test labels into ``test_labels`` (:mod:`mlhidden.experiment.predictions`).
Stores written before those tables existed still load; they only lack predictions.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd

from mlhidden.errors import UserError
from mlhidden.experiment.predictions import UnitPredictions, pack_bits, pack_scores, stored_predictions
from mlhidden.experiment.provenance import read_run_json
from mlhidden.experiment.record import RunRecord
from mlhidden.experiment.status import OK
from mlhidden.experiment.store_file import check_schema, connect, store_error, tidy_after_reading
from mlhidden.experiment.store_schema import (
    KEY_COLUMNS,
    OLDEST_READABLE_VERSION,
    SCHEMA_VERSION,
    SPLIT_COLUMNS,
    UNIT_COLUMNS,
    WHERE_KEY,
    create_or_migrate,
    missing_unit_columns,
)
from mlhidden.io import PathLike, storage_error

STORE_FILE = "store.sqlite"
UnitKey = tuple[Any, ...]
"""A unit's store key: its values of ``KEY_COLUMNS``, in that order."""


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class ResultStore:
    """Read and write one run directory's ``store.sqlite``."""

    def __init__(self, run_dir: PathLike, *, create: bool = True) -> None:
        """``create=False`` opens an existing store read-only (for reports); otherwise it is created if need be."""
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / STORE_FILE
        self.read_only = not create
        if not self.path.exists() and not self.path.is_symlink() and not create:
            raise UserError(
                "no results store here", path=self.path, hint="give the run directory that `mlhidden run` wrote"
            )
        if create:
            try:
                self.run_dir.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise storage_error(exc, self.run_dir) from None
        self._conn = connect(self.path, read_only=not create)
        try:
            with self._faults():
                version = check_schema(
                    self._conn, self.path, range(OLDEST_READABLE_VERSION, SCHEMA_VERSION + 1), create=create
                )
                if create:
                    self._conn.execute("PRAGMA journal_mode=WAL")
                    self._conn.execute("PRAGMA synchronous=NORMAL")
            if create and version != SCHEMA_VERSION:  # a store at the current version is not written to by opening it
                with self._transaction():
                    create_or_migrate(self._conn, version)
        except BaseException:
            self._conn.close()
            raise

    @contextmanager
    def _faults(self) -> Iterator[None]:
        """SQLite's errors on this store as one line each (:func:`~mlhidden.experiment.store_file.store_error`)."""
        try:
            yield
        except (sqlite3.DatabaseError, pd.errors.DatabaseError) as exc:
            raise store_error(exc, self.path) from None

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        conn = self._conn
        with self._faults():
            if conn.in_transaction:  # one that Ctrl-C or SIGTERM cut short: its unit counts as in flight
                conn.execute("ROLLBACK")
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def close(self) -> None:
        self._conn.close()
        if self.read_only:
            tidy_after_reading(self.path)

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def set_meta(self, key: str, value: object) -> None:
        with self._transaction():
            self._conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value, sort_keys=True)))

    def get_meta(self, key: str, default: Any = None) -> Any:
        with self._faults():
            row = self._conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        try:
            return json.loads(row[0]) if row else default
        except json.JSONDecodeError as exc:
            raise UserError(
                f"the results store is damaged: its '{key}' record is not JSON ({exc})", path=self.path
            ) from None

    def record_dataset(
        self, name: str, *, sha256: str | None = None, source: str | None = None, n_samples: int | None = None,
        n_labels: int | None = None, n_features: int | None = None, label_cardinality: float | None = None,
        status: str = OK,
    ) -> None:
        with self._transaction():
            self._conn.execute(
                "INSERT OR REPLACE INTO datasets VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (name, sha256, source, n_samples, n_labels, n_features, label_cardinality, status),
            )

    def datasets(self) -> pd.DataFrame:
        with self._faults():
            return pd.read_sql_query("SELECT * FROM datasets", self._conn)

    def write_unit(
        self, result: dict[str, Any], predictions: UnitPredictions | None = None, *, owner: str | None = None
    ) -> bool:
        """Store one finished unit (replacing an earlier failed attempt with the same key) and its predictions.

        With a claims ``owner``, only if it holds the unit's claim, or nobody does and the unit is
        not stored, checked in the writing transaction: a process whose lapsed claim another took
        over never overwrites that one's unit. Returns whether the unit was written.
        """
        row = {**result, "finished_at": now()}
        columns = UNIT_COLUMNS
        values = [row.get(c) for c in columns]
        with self._transaction():
            if owner is not None and not self._claim_is_owned_by(unit_key(row), owner):
                return False
            self._conn.execute(
                f"INSERT OR REPLACE INTO units ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", values
            )
            if predictions is not None:
                n_rows, n_labels = predictions.truth.shape
                scores = None if predictions.scores is None else pack_scores(predictions.scores)
                self._conn.execute(
                    "INSERT OR REPLACE INTO predictions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (*unit_key(row), n_rows, n_labels, pack_bits(predictions.predicted), scores),
                )
                self._conn.execute(
                    "INSERT OR IGNORE INTO test_labels VALUES (?, ?, ?, ?, ?)",
                    (*(row[c] for c in SPLIT_COLUMNS), pack_bits(predictions.truth)),
                )
        return True

    def _claim_is_owned_by(self, key: UnitKey, owner: str) -> bool:
        holder = self._conn.execute(f"SELECT owner FROM claims WHERE {WHERE_KEY}", key).fetchone()
        if holder is not None:
            return bool(holder[0] == owner)
        return self._conn.execute(f"SELECT 1 FROM units WHERE {WHERE_KEY} AND status=?", (*key, OK)).fetchone() is None

    def has_predictions(self) -> bool:
        """Whether this store has the predictions tables (stores written before them do not)."""
        query = "SELECT count(*) FROM sqlite_master WHERE type='table' AND name IN ('predictions', 'test_labels')"
        with self._faults():
            return bool(self._conn.execute(query).fetchone()[0] == 2)

    def iter_predictions(self) -> Iterator[tuple[UnitKey, UnitPredictions]]:
        """``(store key, UnitPredictions)`` of every unit with stored predictions, one at a time."""
        if not self.has_predictions():
            return
        join = " AND ".join(f"p.{c} = t.{c}" for c in SPLIT_COLUMNS)
        columns = ", ".join(
            [*(f"p.{c}" for c in KEY_COLUMNS), "p.n_rows", "p.n_labels", "t.truth", "p.predicted", "p.scores"]
        )
        query = f"SELECT {columns} FROM predictions p JOIN test_labels t ON {join}"
        with self._faults():
            for *key, n_rows, n_labels, truth, predicted, scores in self._conn.execute(query):
                try:
                    yield tuple(key), stored_predictions((n_rows, n_labels), truth, predicted, scores)
                except ValueError as exc:
                    raise UserError(
                        f"the results store is damaged: the predictions of {key[2]} on {key[0]} (split {key[4]}) "
                        f"cannot be read ({exc})",
                        path=self.path,
                        hint="restore it from a backup; `mlhidden report` without --metric does not need them",
                    ) from None

    def done_keys(self) -> set[UnitKey]:
        """Keys of the units that finished successfully (failed ones are retried on resume)."""
        query = f"SELECT {', '.join(KEY_COLUMNS)} FROM units WHERE status='{OK}'"
        with self._faults():
            return {tuple(r) for r in self._conn.execute(query)}

    def units(self) -> pd.DataFrame:
        """Every stored unit; the columns a store of an older schema lacks are there, empty (NULL)."""
        with self._faults():
            units = pd.read_sql_query("SELECT * FROM units", self._conn)
            missing = missing_unit_columns(self._conn)
        units = units.assign(**{column: None for column in missing}) if missing else units
        return units[[*UNIT_COLUMNS, *(column for column in units if column not in UNIT_COLUMNS)]]


def expected_keys(config_record: Mapping[str, Any], dataset_checksums: Mapping[str, str]) -> dict[UnitKey, str]:
    """Store key -> method label for every unit a stored config asks for."""
    keys: dict[UnitKey, str] = {}
    recipe = RunRecord.from_record(config_record).split_recipe
    for name, checksum in dataset_checksums.items():
        for i, seed in enumerate(recipe.split_seeds(name)):
            for method in config_record["methods"]:
                keys[(name, checksum, method["name"], method["params_hash"], i, seed)] = method["label"]
    return keys


@dataclass
class RunResults:
    """What a report needs, read from stores alone: units in table order, and what is missing.

    ``checksums`` maps each available dataset to the checksum of its data; ``provenance`` maps
    each run directory read to its ``run.json`` record (None when it has none); ``left_out`` counts
    the stored units the config does not ask for (another run seed, or an earlier config).
    """

    units: pd.DataFrame
    datasets: list[str]
    methods: list[str]
    unavailable: dict[str, str]
    config: dict[str, Any]
    missing: int
    checksums: dict[str, str] = field(default_factory=dict)
    provenance: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    left_out: int = 0

    def note_lines(self) -> list[str]:
        """One line for each kind of unit the tables leave out, so that none is left out silently."""
        lines = []
        if self.missing:
            lines.append(
                f"{self.missing} unit(s) of this config are not in the store yet: "
                "re-run the same command to finish them."
            )
        if self.left_out:
            lines.append(
                f"{self.left_out} stored unit(s) are not in these tables: the config does not ask for them"
                " (units of another run seed, or of methods or datasets since removed from it)."
            )
        return lines


# A unit as a table sees it: its store key (with the registry name) and its table label.
MERGE_KEY = ("dataset", "dataset_sha256", "registry_name", "params_hash", "split", "seed", "method")


def load_results(run_dirs: PathLike | Iterable[PathLike]) -> RunResults:
    """The units of a run's config (not of earlier configs in the same directory), or of several runs merged.

    ``units['method']`` holds the method's table label; ``missing`` counts units the config asks
    for that are not stored (an interrupted run).

    Parameters
    ----------
    run_dirs : str, os.PathLike or list of them
        One run directory, or several to merge into one table (see :func:`merge_results`).
    """
    if isinstance(run_dirs, (str, os.PathLike)):
        run_dirs = [run_dirs]
    runs = {str(run_dir): _load_run(run_dir) for run_dir in run_dirs}
    if not runs:
        raise ValueError("load_results needs at least one run directory")
    return next(iter(runs.values())) if len(runs) == 1 else merge_results(runs)


def _load_run(run_dir: PathLike) -> RunResults:
    with ResultStore(run_dir, create=False) as store:
        config = store.get_meta("config")
        if config is None:
            raise UserError("the results store holds no run yet", path=store.path, hint="run `mlhidden run` first")
        unavailable = store.get_meta("unavailable", {})
        order = store.get_meta("dataset_order", [])
        datasets = store.datasets()
        units = store.units()
    checksums = {r.name: r.sha256 for r in datasets.itertuples() if r.status == OK}
    wanted = expected_keys(config, checksums)
    keys = list(zip(*(units[c] for c in KEY_COLUMNS)))
    asked = pd.Series([k in wanted for k in keys], index=units.index, dtype=bool)
    left_out = int((~asked).sum())
    units = units[asked].copy()
    units["registry_name"] = units["method"]
    units["method"] = units["label"]
    units["total_seconds"] = units["train_seconds"] + units["test_seconds"]
    return RunResults(
        units.reset_index(drop=True),
        [d for d in order if d in checksums or d in unavailable],
        [m["label"] for m in config["methods"]],
        unavailable,
        config,
        len(wanted) - len(units),
        checksums,
        {str(run_dir): read_run_json(run_dir)},
        left_out,
    )


def merge_results(runs: Mapping[str, RunResults]) -> RunResults:
    """Several runs' results as one table, e.g. methods run on different days or clusters.

    A table row compares methods only if they saw the same splits, so runs that share a dataset
    must have split it alike: the same data (checksum), run seed, number of splits and train
    fraction, hence the same split seeds. A method label must also mean the same method and
    parameters in every run. Either mismatch is refused with a ``UserError``. A unit stored by
    several runs is kept once (a successful copy before a failed one).

    Parameters
    ----------
    runs : dict
        Run directory -> its :class:`RunResults`, in the order their datasets and methods should
        appear.
    """
    splits_of: dict[str, tuple[str, tuple[Any, ...], str]] = {}
    method_of: dict[str, tuple[str, tuple[str, str]]] = {}
    for run_dir, run in runs.items():
        for dataset, checksum in run.checksums.items():
            seeds = tuple(RunRecord.from_record(run.config).split_recipe.split_seeds(dataset))
            protocol = (checksum, split_protocol(run.config), seeds)
            description = (
                f"seed {run.config['seed']}, {run.config['splits']} splits, {split_protocol(run.config)}, "
                f"data sha256 {checksum[:12]}"
            )
            first_dir, first_protocol, first_description = splits_of.setdefault(
                dataset, (run_dir, protocol, description)
            )
            if protocol != first_protocol:
                raise UserError(
                    f"cannot merge {first_dir} and {run_dir}: they split {dataset} differently"
                    f" ({first_description} vs {description})",
                    hint="merge only runs made with the same data, seed, protocol, splits, train_fraction "
                    "and shuffle_labels",
                )
        for method in run.config["methods"]:
            identity = (method["name"], method["params_hash"])
            first_dir, first_identity = method_of.setdefault(method["label"], (run_dir, identity))
            if identity != first_identity:
                raise UserError(
                    f"cannot merge {first_dir} and {run_dir}: "
                    f"method '{method['label']}' has different settings in each",
                    hint="give one of them another label in its config and run it again",
                )
    units = pd.concat([run.units for run in runs.values()], ignore_index=True)
    failed_last = units.assign(_failed=units["status"] != OK).sort_values("_failed", kind="stable")
    units = failed_last.drop_duplicates(list(MERGE_KEY)).drop(columns="_failed").sort_index().reset_index(drop=True)
    checksums = {d: c for run in runs.values() for d, c in run.checksums.items()}
    wanted = {
        (*key, label) for run in runs.values() for key, label in expected_keys(run.config, run.checksums).items()
    }
    stored = set(zip(*(units[c] for c in MERGE_KEY)))
    return RunResults(
        units,
        list(dict.fromkeys(d for run in runs.values() for d in run.datasets)),
        list(dict.fromkeys(m for run in runs.values() for m in run.methods)),
        {d: reason for run in runs.values() for d, reason in run.unavailable.items() if d not in checksums},
        {"name": "merged", "runs": {run_dir: run.config for run_dir, run in runs.items()}},
        len(wanted - stored),
        checksums,
        {run_dir: record for run in runs.values() for run_dir, record in run.provenance.items()},
        sum(run.left_out for run in runs.values()),
    )


def split_protocol(config: Mapping[str, Any]) -> str:
    """How a run's config splits every dataset, beyond the seeds: protocol (train fraction or folds) and label order.

    Unit keys hold the split seed, not these, so runs (or a resumed run) may only share units
    when these agree.
    """
    record = RunRecord.from_record(config)
    order = "shuffled labels" if record.shuffle_labels else "labels in file order"
    return f"{record.protocol.describe(record.train_fraction)}, {order}"


def unit_key(unit: Mapping[str, Any]) -> UnitKey:
    return tuple(unit[c] for c in KEY_COLUMNS)


def store_exists(run_dir: PathLike) -> bool:
    return (Path(run_dir) / STORE_FILE).exists()


def remove_store(run_dir: PathLike) -> None:
    """Delete a run directory's store (``--fresh``), WAL side files included."""
    for suffix in ("", "-wal", "-shm"):
        path = Path(run_dir) / (STORE_FILE + suffix)
        path.unlink(missing_ok=True)


