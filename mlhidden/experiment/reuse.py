"""Units another run directory already computed, copied instead of computed again.

A unit's store key holds the dataset checksum, the method name, the hash of its fully resolved
parameters (base learner and preprocessing included), the split and the seed. Two runs that
ask for a unit with the same key ask for the same computation, and the computation is
deterministic, so the finished unit of one serves the other bit for bit. The sensitivity study
uses this: a setting that changes only the logistic-regression base learner leaves MLP, the
forests and the trivial baselines as in the main run, and those units are copied from it.

The copy takes the unit's row (scores, times, warnings) with its predictions and the split's
test labels, in one transaction; failed units of a donor are never copied.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path

from mlhidden.errors import UserError
from mlhidden.io import STORE_FILE, PathLike, resolved_path
from mlhidden.runs.status import OK
from mlhidden.runs.store import ResultStore
from mlhidden.runs.store_schema import KEY_COLUMNS, SPLIT_COLUMNS, UnitKey

_KEYS = ", ".join(KEY_COLUMNS)
_ON_KEY = " AND ".join(f"d.{c} = w.{c}" for c in KEY_COLUMNS)


def reuse_units(store_path: PathLike, donors: Iterable[PathLike], keys: set[UnitKey]) -> dict[str, int]:
    """Copy into the store at ``store_path`` every unit of ``keys`` it has not finished and a
    donor run directory has; returns ``{donor directory: units copied}`` for the donors that gave any.

    Donors are tried in order, and a unit comes from the first that has it. A donor that is
    missing, is the store itself, is not a readable store of this schema, or predates the
    predictions tables is passed over; one whose path goes through a symlink loop is a UserError line.
    """
    store_file = resolved_path(store_path)
    with ResultStore(store_file.parent, create=False) as store:
        wanted = set(keys) - store.done_keys()
    copied: dict[str, int] = {}
    for donor in donors:
        donor_path = resolved_path(Path(donor) / STORE_FILE)
        if not wanted or not donor_path.is_file() or donor_path == store_file or not _readable(donor):
            continue
        taken = _copy(store_file, donor_path, wanted)
        if taken:
            copied[str(donor)] = len(taken)
            wanted -= taken
    return copied


def reusable_keys(donor: PathLike) -> set[UnitKey]:
    """The keys of the units :func:`reuse_units` can copy from the run directory ``donor``: its finished
    units where it is a readable store with predictions, else none (a compact copy alone gives none)."""
    if not (Path(donor) / STORE_FILE).is_file() or not _readable(donor):
        return set()
    with ResultStore(donor, create=False) as store:
        return store.done_keys()


def _readable(run_dir: PathLike) -> bool:
    try:
        with ResultStore(run_dir, create=False) as donor:
            return donor.has_predictions()
    except UserError:
        return False


def _copy(store_path: Path, donor_path: Path, keys: set[UnitKey]) -> set[UnitKey]:
    """Copy the donor's finished units among ``keys``; returns the keys copied."""
    conn = sqlite3.connect(store_path, timeout=60, isolation_level=None)
    try:
        conn.execute("ATTACH DATABASE ? AS donor", (str(donor_path),))
        columns = [row[1] for row in conn.execute("PRAGMA main.table_info(units)")]
        donor_columns = {row[1] for row in conn.execute("PRAGMA donor.table_info(units)")}
        shared = ", ".join(c for c in columns if c in donor_columns)
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(f"CREATE TEMP TABLE wanted ({_KEYS})")
        conn.executemany(f"INSERT INTO wanted VALUES ({', '.join('?' * len(KEY_COLUMNS))})", sorted(keys))
        conn.execute(
            f"CREATE TEMP TABLE found AS SELECT d.* FROM donor.units d JOIN wanted w ON {_ON_KEY} WHERE d.status = ?",
            (OK,),
        )
        taken = {tuple(row) for row in conn.execute(f"SELECT {_KEYS} FROM found")}
        conn.execute(f"INSERT OR REPLACE INTO main.units ({shared}) SELECT {shared} FROM found")
        on_found = " AND ".join(f"d.{c} = f.{c}" for c in KEY_COLUMNS)
        conn.execute(
            f"INSERT OR REPLACE INTO main.predictions SELECT d.* FROM donor.predictions d JOIN found f ON {on_found}"
        )
        on_split = " AND ".join(f"d.{c} = f.{c}" for c in SPLIT_COLUMNS)
        conn.execute(
            "INSERT OR IGNORE INTO main.test_labels SELECT DISTINCT d.* FROM donor.test_labels d "
            f"JOIN found f ON {on_split}"
        )
        conn.execute("COMMIT")
        return taken
    finally:
        conn.close()
