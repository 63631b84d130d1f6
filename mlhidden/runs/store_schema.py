"""The results store's tables, its schema version, and the migrations that bring an older store up to it.

A change of the store's tables or columns bumps :data:`SCHEMA_VERSION` and adds a migration
from the previous version to :data:`MIGRATIONS`. A store of an older version is migrated when a
run opens it for writing; ``report`` opens it read-only as it is, and
:func:`missing_unit_columns` names the columns its units lack, so it reports as it did.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from mlhidden.runs.metrics import METRICS

SCHEMA_VERSION = 4
OLDEST_READABLE_VERSION = 1
METRIC_COLUMNS = tuple(name for name, metric in METRICS.items() if metric.stored)
"""One REAL column per stored metric of the catalogue (:attr:`~mlhidden.runs.metrics.Metric.stored`), in its order."""
KEY_COLUMNS = ("dataset", "dataset_sha256", "method", "params_hash", "split", "seed")
REGISTRY_NAME = "registry_name"
"""The key column ``method`` as every row and table in Python names it: the method's registry name
(or import path). In Python ``method`` is always a method's table label (:func:`_python_names`)."""
UnitKey = tuple[Any, ...]
"""A unit's store key: its values of ``KEY_COLUMNS``, in that order."""
SPLIT_COLUMNS = ("dataset", "dataset_sha256", "split", "seed")
WHERE_KEY = " AND ".join(f"{column}=?" for column in KEY_COLUMNS)

UNIT_PLAN_COLUMNS = {"method_seed": "INTEGER", "label_order": "TEXT"}
"""A unit's plan beside its key's split seed: the ``random_state`` its method got, and the label
order (JSON list of label indices) it saw. NULL in units stored before schema version 2."""
REUSED_SECONDS = "reused_seconds"
"""What the fits a unit reused from other methods cost to compute; ``train_seconds`` is the
unit's own work. NULL in units stored before schema version 2, whose ``train_seconds`` includes it."""
WORKER_SECONDS = "worker_seconds"
"""A unit's whole wall time on its worker: its fit and predict, and what they leave out (imputing and
slicing the split, the label scores, evaluating, recording warnings). What dispatch hands a worker,
so what a simulation of it replays; never a score. NULL in units stored before schema version 3."""
ADDED_UNIT_COLUMNS = {**UNIT_PLAN_COLUMNS, REUSED_SECONDS: "REAL", WORKER_SECONDS: "REAL"}
UNIT_COLUMNS = (
    *KEY_COLUMNS,
    "label",
    "params_json",
    "status",
    "error",
    *METRIC_COLUMNS,
    REUSED_SECONDS,
    WORKER_SECONDS,
    "n_warnings",
    "finished_at",
    "warnings",
    *UNIT_PLAN_COLUMNS,
)


def _python_names(columns: tuple[str, ...]) -> tuple[str, ...]:
    """``columns`` of the store as a row or table in Python names them (``method`` is :data:`REGISTRY_NAME`)."""
    return tuple(REGISTRY_NAME if column == "method" else column for column in columns)


KEY_FIELDS = _python_names(KEY_COLUMNS)
"""The keys of a unit's row that make its store key, in :data:`KEY_COLUMNS` order."""
UNIT_FIELDS = _python_names(UNIT_COLUMNS)

TABLES = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS units (
    dataset TEXT NOT NULL, dataset_sha256 TEXT NOT NULL, method TEXT NOT NULL,
    params_hash TEXT NOT NULL, split INTEGER NOT NULL, seed INTEGER NOT NULL,
    label TEXT NOT NULL, params_json TEXT NOT NULL, status TEXT NOT NULL, error TEXT NOT NULL,
    {", ".join(f"{c} REAL" for c in METRIC_COLUMNS)},
    n_warnings INTEGER NOT NULL DEFAULT 0, finished_at TEXT NOT NULL, warnings TEXT NOT NULL DEFAULT '[]',
    {", ".join(f"{c} {kind}" for c, kind in ADDED_UNIT_COLUMNS.items())},
    PRIMARY KEY ({", ".join(KEY_COLUMNS)})
);
CREATE TABLE IF NOT EXISTS leases (
    dataset TEXT NOT NULL, dataset_sha256 TEXT NOT NULL, method TEXT NOT NULL,
    params_hash TEXT NOT NULL, split INTEGER NOT NULL, seed INTEGER NOT NULL,
    owner TEXT NOT NULL, host TEXT NOT NULL, pid INTEGER NOT NULL, renewed_at REAL NOT NULL,
    PRIMARY KEY ({", ".join(KEY_COLUMNS)})
);
CREATE TABLE IF NOT EXISTS predictions (
    dataset TEXT NOT NULL, dataset_sha256 TEXT NOT NULL, method TEXT NOT NULL,
    params_hash TEXT NOT NULL, split INTEGER NOT NULL, seed INTEGER NOT NULL,
    n_rows INTEGER NOT NULL, n_labels INTEGER NOT NULL, predicted BLOB NOT NULL, scores BLOB,
    PRIMARY KEY ({", ".join(KEY_COLUMNS)})
);
CREATE TABLE IF NOT EXISTS test_labels (
    dataset TEXT NOT NULL, dataset_sha256 TEXT NOT NULL, split INTEGER NOT NULL, seed INTEGER NOT NULL,
    truth BLOB NOT NULL, PRIMARY KEY ({", ".join(SPLIT_COLUMNS)})
);
CREATE TABLE IF NOT EXISTS datasets (
    name TEXT PRIMARY KEY, sha256 TEXT, source TEXT, n_samples INTEGER, n_labels INTEGER,
    n_features INTEGER, label_cardinality REAL, status TEXT NOT NULL
);
"""


def _unit_columns(conn: sqlite3.Connection) -> set[str]:
    return {row[1] for row in conn.execute("PRAGMA table_info(units)")}


def _add_unit_columns(conn: sqlite3.Connection) -> None:
    """The columns of :data:`ADDED_UNIT_COLUMNS` the units table lacks, NULL in its rows."""
    present = _unit_columns(conn)
    for column, kind in ADDED_UNIT_COLUMNS.items():
        if column not in present:
            conn.execute(f"ALTER TABLE units ADD COLUMN {column} {kind}")


def _from_version_1(conn: sqlite3.Connection) -> None:
    """Version 1 to 2: each unit's method seed, label order and reused-fit time get columns."""
    if "warnings" not in _unit_columns(conn):  # version 1 stores written before warnings were kept
        conn.execute("ALTER TABLE units ADD COLUMN warnings TEXT NOT NULL DEFAULT '[]'")
    _add_unit_columns(conn)


def _from_version_2(conn: sqlite3.Connection) -> None:
    """Version 2 to 3: each unit's worker time gets a column."""
    _add_unit_columns(conn)


LEASES_BEFORE_VERSION_4 = "claims"
"""The leases table's name in stores before schema version 4, which named it after what a lease did."""


def _from_version_3(conn: sqlite3.Connection) -> None:
    """Version 3 to 4: the units' leases table is named ``leases``, so that "claims" names only a study's claims."""
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (LEASES_BEFORE_VERSION_4,)).fetchone():
        conn.execute(f"ALTER TABLE {LEASES_BEFORE_VERSION_4} RENAME TO leases")


MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {
    1: _from_version_1, 2: _from_version_2, 3: _from_version_3,
}
"""Schema version -> the migration to the next version."""


def create_or_migrate(conn: sqlite3.Connection, version: int | None) -> None:
    """Create the tables of a new store (``version`` None), or migrate one of ``version`` to :data:`SCHEMA_VERSION`.

    Runs inside the caller's transaction, so a migration is applied entirely or not at all.
    """
    if version is not None:
        for step in range(version, SCHEMA_VERSION):
            MIGRATIONS[step](conn)
    for statement in filter(str.strip, TABLES.split(";")):
        conn.execute(statement)
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))


def missing_unit_columns(conn: sqlite3.Connection) -> list[str]:
    """The columns of :data:`UNIT_COLUMNS` an older store's units table lacks (read as NULL)."""
    present = _unit_columns(conn)
    return [column for column in UNIT_COLUMNS if column not in present]
