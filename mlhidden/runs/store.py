"""The results store: one SQLite file per run directory, one row per finished unit.

Every finished unit is committed in its own transaction the moment it arrives, so an
interrupted run loses at most the units that were still computing; re-running the same config
skips what is stored (resume). The key holds the dataset checksum and the method's canonical
parameter hash, so results from another data version or parameter setting never mix.

Each unit's test predictions go into the ``predictions`` table in the same transaction, and
each split's true test labels into ``test_labels`` (:mod:`mlhidden.runs.predictions`).
Stores written before those tables existed still load; they only lack predictions. :func:`load_results`
reads stores into the tables a report needs (:mod:`mlhidden.runs.run_results`).
"""

from __future__ import annotations

import json
import os
import sqlite3
import warnings
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mlhidden.errors import InputWarning, UserError
from mlhidden.io import STORE_FILE, PathLike, storage_error
from mlhidden.runs.compact_results import (
    StoredTables,
    differing_files,
    has_compact_copy,
    label_accuracies,
    label_hits,
    ok_checksums,
    read_compact_tables,
    read_label_hits,
)
from mlhidden.runs.predictions import UnitPredictions, pack_bits, pack_scores, stored_predictions
from mlhidden.runs.provenance import read_run_json
from mlhidden.runs.run_results import RunResults, expected_keys, merge_results
from mlhidden.runs.status import OK
from mlhidden.runs.store_damage import damaged_store_error, damaged_units
from mlhidden.runs.store_file import check_schema, connect, store_error, tidy_after_reading
from mlhidden.runs.store_schema import (
    KEY_COLUMNS,
    KEY_FIELDS,
    OLDEST_READABLE_VERSION,
    REGISTRY_NAME,
    SCHEMA_VERSION,
    SPLIT_COLUMNS,
    UNIT_COLUMNS,
    UNIT_FIELDS,
    WHERE_KEY,
    UnitKey,
    create_or_migrate,
    missing_unit_columns,
)
from mlhidden.runs.units import UnitResult


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
            self._refuse_damaged_units()
        except BaseException:
            self._conn.close()
            raise

    def _refuse_damaged_units(self) -> None:
        """Refuse (UserError) a store holding a unit mlhidden never writes (see :mod:`.store_damage`)."""
        with self._faults():
            damaged = damaged_units(self._conn)
            if damaged:
                n_units = self._conn.execute("SELECT count(*) FROM units").fetchone()[0]
                raise damaged_store_error(self.path, damaged, n_units)

    @contextmanager
    def _faults(self) -> Iterator[None]:
        """SQLite's errors on this store as one line each (:func:`~mlhidden.runs.store_file.store_error`)."""
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
                f"the results store is damaged: its '{key}' meta entry is not JSON ({exc})", path=self.path
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
        self, key: UnitKey, result: UnitResult, truth: np.ndarray | None = None, *, owner: str | None = None
    ) -> bool:
        """Store one finished unit under ``key`` (replacing an earlier failed attempt with the same key), and
        its predictions with the ``truth`` of its test rows when both are given.

        With a lease ``owner``, only if it holds the unit's lease, or nobody does and the unit is
        not stored, checked in the writing transaction: a process whose lapsed lease another took
        over never overwrites that one's unit. Returns whether the unit was written.
        """
        row = {**result.row(key), "finished_at": now()}
        columns = UNIT_COLUMNS
        values = [row.get(c) for c in UNIT_FIELDS]
        with self._transaction():
            if owner is not None and not self._lease_is_held_by(key, owner):
                return False
            self._conn.execute(
                f"INSERT OR REPLACE INTO units ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", values
            )
            if truth is not None and result.predicted is not None:
                n_rows, n_labels = truth.shape
                scores = None if result.label_scores is None else pack_scores(result.label_scores)
                self._conn.execute(
                    "INSERT OR REPLACE INTO predictions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (*key, n_rows, n_labels, pack_bits(result.predicted), scores),
                )
                self._conn.execute(
                    "INSERT OR IGNORE INTO test_labels VALUES (?, ?, ?, ?, ?)",
                    (*(row[c] for c in SPLIT_COLUMNS), pack_bits(truth)),
                )
        return True

    def _lease_is_held_by(self, key: UnitKey, owner: str) -> bool:
        holder = self._conn.execute(f"SELECT owner FROM leases WHERE {WHERE_KEY}", key).fetchone()
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

    def tables(self) -> StoredTables:
        """What a report reads of the run (all but the predictions), as its compact copy holds it too."""
        config = self.get_meta("config")
        if config is None:
            raise UserError("the results store holds no run yet", path=self.path, hint="run `mlhidden run` first")
        return StoredTables(
            config, self.get_meta("unavailable", {}), self.get_meta("dataset_order", []), self.datasets(), self.units()
        )

    def label_hits(self) -> pd.DataFrame | None:
        """Per unit with stored predictions, each label's test rows predicted right
        (:func:`~mlhidden.runs.compact_results.label_hits`); None for a store without predictions."""
        return label_hits(self.iter_predictions()) if self.has_predictions() else None

    def units(self) -> pd.DataFrame:
        """Every stored unit, its key's method as :data:`~mlhidden.runs.store_schema.REGISTRY_NAME`; the
        columns a store of an older schema lacks are there, empty (NULL)."""
        with self._faults():
            units = pd.read_sql_query("SELECT * FROM units", self._conn)
            missing = missing_unit_columns(self._conn)
        units = units.assign(**{column: None for column in missing}) if missing else units
        units = units.rename(columns={"method": REGISTRY_NAME})
        return units[[*UNIT_FIELDS, *(column for column in units if column not in UNIT_FIELDS)]]


def load_results(run_dirs: PathLike | Iterable[PathLike]) -> RunResults:
    """The units of a run's config (not of earlier configs in the same directory), or of several runs merged.

    ``units['method']`` holds the method's table label (its registry name is ``registry_name``);
    ``missing`` counts units the config asks for that are not stored (an interrupted run).

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
    """One run's results from its store, or where it has none from its compact copy (:mod:`.compact_results`)."""
    if _reads_the_store(run_dir):
        with ResultStore(run_dir, create=False) as store:
            tables = store.tables()
        _say_if_copy_differs(run_dir, tables)
    else:
        tables = read_compact_tables(run_dir)
    return _run_results(run_dir, tables)


def _say_if_copy_differs(run_dir: PathLike, tables: StoredTables) -> None:
    """Warn where the run directory's compact copy is not the store's: the store is read, never a stale copy."""
    differing = differing_files(run_dir, tables)
    if differing:
        warnings.warn(
            f"{run_dir}: {' and '.join(differing)} differ from the store (written before its last units); "
            "the store's results are shown. Re-run the run's command (it skips what is stored) to write them again",
            InputWarning, stacklevel=3,
        )


def _run_results(run_dir: PathLike, tables: StoredTables) -> RunResults:
    """The units of the config of ``tables`` in table order's columns, with what is missing and left out."""
    config, units, unavailable = tables.config, tables.units, tables.unavailable
    assert config is not None
    checksums = ok_checksums(tables.datasets)
    wanted = expected_keys(config, checksums)
    keys = list(zip(*(units[c] for c in KEY_FIELDS)))
    asked = pd.Series([k in wanted for k in keys], index=units.index, dtype=bool)
    left_out = int((~asked).sum())
    labels = [wanted[key] for key, is_asked in zip(keys, asked) if is_asked]  # the config's, not the stored
    units = units[asked].copy()
    units.insert(KEY_FIELDS.index(REGISTRY_NAME), "method", labels)
    units = units[[*(column for column in units if column != REGISTRY_NAME), REGISTRY_NAME]]  # units.csv's order
    units["total_seconds"] = units["train_seconds"] + units["test_seconds"]
    return RunResults(
        units.reset_index(drop=True),
        # once: older runs named two alike
        [d for d in dict.fromkeys(tables.order) if d in checksums or d in unavailable],
        [m["label"] for m in config["methods"]],
        unavailable,
        config,
        len(wanted) - len(units),
        checksums,
        {str(run_dir): read_run_json(run_dir)},
        left_out,
    )


def stored_label_accuracies(run_dir: PathLike) -> pd.DataFrame | None:
    """Each label's test accuracy in every unit of the run's config (see
    :func:`~mlhidden.runs.compact_results.label_accuracies`), from the stored predictions or, without a
    store, from the compact copy's label hits; None where neither has them."""
    if _reads_the_store(run_dir):
        with ResultStore(run_dir, create=False) as store:
            tables = store.tables()
            hits = store.label_hits()
    else:
        tables, hits = read_compact_tables(run_dir), read_label_hits(run_dir)
    if hits is None:
        return None
    assert tables.config is not None
    return label_accuracies(hits, tables.config, ok_checksums(tables.datasets))


def stored_datasets(run_dir: PathLike) -> pd.DataFrame:
    """The run's datasets as stored (by name: sha256, source, n_samples, n_labels, n_features,
    label_cardinality, status), from its store or, without one, its compact copy."""
    if _reads_the_store(run_dir):
        with ResultStore(run_dir, create=False) as store:
            return store.datasets().set_index("name")
    return read_compact_tables(run_dir).datasets.set_index("name")


def _reads_the_store(run_dir: PathLike) -> bool:
    """Whether ``run_dir`` is read from its store: it has one (a symlink to nothing counts, and is refused
    when opened), or it has no compact copy to read instead."""
    store = Path(run_dir) / STORE_FILE
    return store.exists() or store.is_symlink() or not has_compact_copy(run_dir)


def results_exist(run_dir: PathLike) -> bool:
    """Whether ``run_dir`` is a stored run to report on: it has a store, or the compact copy of one."""
    return store_exists(run_dir) or has_compact_copy(run_dir)


def unit_key(unit: Mapping[str, Any]) -> UnitKey:
    return tuple(unit[c] for c in KEY_FIELDS)


def store_exists(run_dir: PathLike) -> bool:
    return (Path(run_dir) / STORE_FILE).exists()


def existing_stores(run_dirs: Iterable[PathLike]) -> Iterator[ResultStore]:
    """The stores of those of ``run_dirs`` that have one, each open (as it is, nothing created) while its turn lasts."""
    for run_dir in run_dirs:
        if store_exists(run_dir):
            with ResultStore(run_dir, create=False) as store:
                yield store


def remove_store(run_dir: PathLike) -> None:
    """Delete a run directory's store (``--fresh``), WAL side files included."""
    for suffix in ("", "-wal", "-shm"):
        path = Path(run_dir) / (STORE_FILE + suffix)
        path.unlink(missing_ok=True)


