"""``mlhidden store repair``: mend a damaged results store without losing a good unit.

The store is first copied as it is to ``store.sqlite.before-repair`` (whole, or not at all where the
disk fills); then, in one transaction:

- a lost meta table (or datasets table) is rebuilt, its schema brought up to date, and the run's
  config, datasets and dataset order taken from ``run.json``; without a readable ``run.json``,
  re-running the run's command records them again and skips the stored units;
- a unit holding a status other than ok or failed, or a non-number in a number column, is
  marked failed, with the damage as its error and the non-numbers emptied: the tables count it
  failed, and ``mlhidden run`` computes it again.

What this cannot mend (a lost units table, pages SQLite cannot read) is still refused in one
line when the repaired store is opened.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mlhidden.errors import UserError
from mlhidden.io import RUN_JSON, STORE_COPY, STORE_FILE, PathLike, storage_error
from mlhidden.runs.provenance import field_readable, read_run_json
from mlhidden.runs.run_results import expected_keys
from mlhidden.runs.status import FAILED, OK
from mlhidden.runs.store import ResultStore
from mlhidden.runs.store_damage import DamagedUnit, damaged_units
from mlhidden.runs.store_file import connect, store_error
from mlhidden.runs.store_schema import OLDEST_READABLE_VERSION, SCHEMA_VERSION, create_or_migrate


def repair_store(run_dir: PathLike) -> list[str]:
    """Mend the store of ``run_dir`` (see the module); one line per thing done, none for a sound store."""
    run_dir = Path(run_dir)
    path = run_dir / STORE_FILE
    if not os.path.lexists(path):
        raise UserError("no results store here", path=path, hint="give the run directory that `mlhidden run` wrote")
    conn = connect(path, read_only=False)
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "units" not in tables:
            raise UserError(
                "the results store has no units table, so there is nothing to repair", path=path,
                hint="restore it from a backup, or choose another --out",
            )
        if "meta" in tables:
            _refuse_unknown_version(conn, path)
        run_json = read_run_json(run_dir) if {"meta", "datasets"} - tables else None
        if run_json is not None:
            _refuse_mistyped(run_json, run_dir / RUN_JSON)
        damaged = damaged_units(conn)
        if {"meta", "datasets"} <= tables and not damaged:
            return []
        _keep_a_copy(conn, path.with_name(STORE_COPY))
        conn.execute("BEGIN IMMEDIATE")
        lines = _rebuild_meta(conn, tables, run_json) + _mend_units(conn, damaged)
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        raise store_error(exc, path) from None
    finally:
        conn.close()
    with ResultStore(run_dir, create=False):  # what is left is refused in its own line
        pass
    return [*lines, f"kept a copy of the store as it was: {STORE_COPY}"]


def _refuse_unknown_version(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse (UserError) a store of a schema version this mlhidden does not know: it would mend it wrongly."""
    row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    if row is None or str(row[0]) not in {str(v) for v in range(OLDEST_READABLE_VERSION, SCHEMA_VERSION + 1)}:
        raise UserError(
            f"the results store has {'no schema version' if row is None else f'schema version {row[0]}'}, "
            "which this mlhidden cannot repair", path=path, hint="read it with the mlhidden version that wrote it",
        )


def _refuse_mistyped(run_json: Mapping[str, Any], path: Path) -> None:
    """Refuse (UserError) a ``run.json`` whose fields that repair copies into the store have the wrong JSON type.

    Checked before anything is written: copied as they are, they would make every later command
    that reads the store fail. ``config`` is read the way the tables read it.
    """

    def refuse(what: str) -> UserError:
        hint = "correct it, or move it away to repair without it: re-running the run's command then records the config"
        return UserError(f"its {what}", path=path, hint=hint)

    for key in ("datasets", "unavailable"):
        names = run_json.get(key)
        if not isinstance(names, dict):
            found = _json_type(names) if key in run_json else "missing"
            raise refuse(f"'{key}' is {found}, not an object of dataset names to text")
        for name, text in names.items():
            if not isinstance(text, str):
                raise refuse(f"'{key}' holds {json.dumps(text)} for '{name}', not text")
    if not field_readable(run_json, "started_at"):
        raise refuse(f"'started_at' is {_json_type(run_json.get('started_at'))}, not text")
    try:
        expected_keys(run_json["config"], run_json["datasets"])
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise refuse(f"'config' is not a run's config this mlhidden reads ({type(exc).__name__}: {exc})") from None


def _json_type(value: object) -> str:
    """What ``value``, read from JSON, is, in JSON's words."""
    kinds = ((type(None), "null"), (bool, "true or false"), ((int, float), "a number"), (str, "text"), (list, "a list"))
    return next((kind for types, kind in kinds if isinstance(value, types)), "an object")


def _keep_a_copy(conn: sqlite3.Connection, backup: Path) -> None:
    """Copy the store to ``backup`` whole or not at all: through a temporary file renamed when complete.

    A copy cut short (a full disk) would be in the way of the re-run the error asks for, and
    would look like the store as it was.
    """
    if os.path.lexists(backup):
        raise UserError(
            "the copy an earlier repair kept is in the way", path=backup,
            hint="check the repaired store, then move the copy away and repair again",
        )
    partial = backup.with_name(f".{backup.name}.tmp")
    leftovers = (partial, partial.with_name(partial.name + "-journal"))
    try:
        _remove(leftovers)  # of a repair killed while copying
        with contextlib.closing(sqlite3.connect(partial)) as copy:
            conn.backup(copy)
        os.replace(partial, backup)
    except BaseException as exc:
        _remove(leftovers)
        if isinstance(exc, OSError):
            raise storage_error(exc, backup) from None
        raise


def _remove(paths: tuple[Path, ...]) -> None:
    for path in paths:
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)


def _rebuild_meta(conn: sqlite3.Connection, tables: set[str], run_json: Mapping[str, Any] | None) -> list[str]:
    """The lost meta or datasets table, rebuilt from the run's ``run_json`` where there is one."""
    lost = sorted({"meta", "datasets"} - tables)
    if not lost:
        return []
    create_or_migrate(conn, OLDEST_READABLE_VERSION)  # every migration adds only what is missing
    tables_lost = f"{lost[0]} table" if len(lost) == 1 else "datasets and meta tables"
    if run_json is None:
        return [
            f"rebuilt the {tables_lost}; run.json is missing or unreadable, so re-run the run's "
            "command to record its config (its stored units are skipped)"
        ]
    unavailable = dict(run_json["unavailable"])
    if "meta" in lost:
        meta = {
            "config": run_json["config"], "unavailable": unavailable, "started_at": run_json["started_at"],
            "dataset_order": [*run_json["datasets"], *unavailable],
        }
        rows = [(key, json.dumps(value, sort_keys=True)) for key, value in meta.items()]
        conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", rows)
    conn.executemany(
        "INSERT OR IGNORE INTO datasets (name, sha256, status) VALUES (?, ?, ?)",
        [*((name, sha256, OK) for name, sha256 in run_json["datasets"].items()),
         *((name, None, reason) for name, reason in unavailable.items())],
    )
    return [f"rebuilt the {tables_lost} from run.json"]


def _mend_units(conn: sqlite3.Connection, damaged: list[DamagedUnit]) -> list[str]:
    for unit in damaged:
        emptied = "".join(f", {column}=NULL" for column in unit.bad_cells)
        conn.execute(
            f"UPDATE units SET status=?, error=?{emptied} WHERE rowid=?",
            (FAILED, f"damaged in the store ({unit.damage}); marked failed by mlhidden store repair", unit.rowid),
        )
    if not damaged:
        return []
    return [
        f"marked {len(damaged)} damaged unit(s) failed (first: {damaged[0].where}: {damaged[0].damage}); "
        "`mlhidden run` with the run's command computes them again"
    ]
