"""The results store: one SQLite file per run directory, one row per finished unit.

Every finished unit is committed in its own transaction the moment it arrives, so an
interrupted run loses at most the units that were still computing; re-running the same config
skips what is stored (resume). The key holds the dataset checksum and the method's canonical
parameter hash, so results from another data version or parameter setting never mix.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd

from mlhidden.errors import UserError
from mlhidden.experiment.metrics import SCORES
from mlhidden.experiment.splits import split_seed

SCHEMA_VERSION = 1
STORE_FILE = "store.sqlite"
METRIC_COLUMNS = (*SCORES, "train_seconds", "test_seconds")
KEY_COLUMNS = ("dataset", "dataset_sha256", "method", "params_hash", "split", "seed")

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS units (
    dataset TEXT NOT NULL, dataset_sha256 TEXT NOT NULL, method TEXT NOT NULL,
    params_hash TEXT NOT NULL, split INTEGER NOT NULL, seed INTEGER NOT NULL,
    label TEXT NOT NULL, params_json TEXT NOT NULL, status TEXT NOT NULL, error TEXT NOT NULL,
    {", ".join(f"{c} REAL" for c in METRIC_COLUMNS)},
    n_warnings INTEGER NOT NULL DEFAULT 0, finished_at TEXT NOT NULL,
    PRIMARY KEY ({", ".join(KEY_COLUMNS)})
);
CREATE TABLE IF NOT EXISTS datasets (
    name TEXT PRIMARY KEY, sha256 TEXT, source TEXT, n_samples INTEGER, n_labels INTEGER,
    n_features INTEGER, label_cardinality REAL, status TEXT NOT NULL
);
"""


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class ResultStore:
    """Read and write one run directory's ``store.sqlite``."""

    def __init__(self, run_dir, *, create: bool = True):
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / STORE_FILE
        if not self.path.exists() and not create:
            raise UserError("no results store here", path=self.path, hint="give the run directory that `mlhidden run` wrote")
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._check_schema(create)

    def _check_schema(self, create: bool):
        tables = {r[0] for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "meta" in tables:
            row = self._conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            version = int(row[0]) if row else None
            if version != SCHEMA_VERSION:
                raise UserError(
                    f"results store has schema version {version}, this mlhidden writes {SCHEMA_VERSION}",
                    path=self.path, hint="use the mlhidden version that wrote it, or re-run with --fresh",
                )
        elif tables or not create:
            raise UserError("not an mlhidden results store", path=self.path, hint="re-run with --fresh or choose another --out")
        with self._transaction():
            for statement in filter(str.strip, _SCHEMA.split(";")):
                self._conn.execute(statement)
            self._conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))

    def _transaction(self):
        conn = self._conn

        class _Tx:
            def __enter__(self):
                conn.execute("BEGIN IMMEDIATE")

            def __exit__(self, exc_type, *_):
                conn.execute("ROLLBACK" if exc_type else "COMMIT")

        return _Tx()

    def close(self):
        self._conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def set_meta(self, key: str, value) -> None:
        with self._transaction():
            self._conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value, sort_keys=True)))

    def get_meta(self, key: str, default=None):
        row = self._conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    def record_dataset(self, name, *, sha256=None, source=None, n_samples=None, n_labels=None, n_features=None, label_cardinality=None, status="ok"):
        with self._transaction():
            self._conn.execute(
                "INSERT OR REPLACE INTO datasets VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (name, sha256, source, n_samples, n_labels, n_features, label_cardinality, status),
            )

    def datasets(self) -> pd.DataFrame:
        return pd.read_sql_query("SELECT * FROM datasets", self._conn)

    def write_unit(self, result: dict) -> None:
        """Store one finished unit (replacing an earlier failed attempt with the same key)."""
        row = {**result, "finished_at": now()}
        columns = [*KEY_COLUMNS, "label", "params_json", "status", "error", *METRIC_COLUMNS, "n_warnings", "finished_at"]
        values = [row.get(c) for c in columns]
        with self._transaction():
            self._conn.execute(
                f"INSERT OR REPLACE INTO units ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", values
            )

    def done_keys(self) -> set:
        """Keys of the units that finished successfully (failed ones are retried on resume)."""
        query = f"SELECT {', '.join(KEY_COLUMNS)} FROM units WHERE status='ok'"
        return {tuple(r) for r in self._conn.execute(query)}

    def units(self) -> pd.DataFrame:
        return pd.read_sql_query("SELECT * FROM units", self._conn)


def expected_keys(config_record: dict, dataset_checksums: dict) -> dict:
    """Store key -> method label for every unit a stored config asks for."""
    keys = {}
    for name, checksum in dataset_checksums.items():
        for i in range(config_record["splits"]):
            seed = split_seed(config_record["seed"], name, i)
            for method in config_record["methods"]:
                keys[(name, checksum, method["name"], method["params_hash"], i, seed)] = method["label"]
    return keys


@dataclass
class RunResults:
    """What a report needs, read from a store alone: units in table order, and what is missing."""

    units: pd.DataFrame
    datasets: list
    methods: list
    unavailable: dict
    config: dict
    missing: int


def load_results(run_dir) -> RunResults:
    """The units of the store's config (not of earlier configs in the same directory).

    ``units['method']`` holds the method's table label; ``missing`` counts units the config asks
    for that are not stored (an interrupted run).
    """
    with ResultStore(run_dir, create=False) as store:
        config = store.get_meta("config")
        if config is None:
            raise UserError("the results store holds no run yet", path=store.path, hint="run `mlhidden run` first")
        unavailable = store.get_meta("unavailable", {})
        order = store.get_meta("dataset_order", [])
        datasets = store.datasets()
        units = store.units()
    checksums = {r.name: r.sha256 for r in datasets.itertuples() if r.status == "ok"}
    wanted = expected_keys(config, checksums)
    keys = list(zip(*(units[c] for c in KEY_COLUMNS)))
    units = units[[k in wanted for k in keys]].copy()
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
    )


def unit_key(unit: dict) -> tuple:
    return tuple(unit[c] for c in KEY_COLUMNS)


def store_exists(run_dir) -> bool:
    return (Path(run_dir) / STORE_FILE).exists()


def remove_store(run_dir) -> None:
    """Delete a run directory's store (``--fresh``), WAL side files included."""
    for suffix in ("", "-wal", "-shm"):
        path = Path(run_dir) / (STORE_FILE + suffix)
        path.unlink(missing_ok=True)


