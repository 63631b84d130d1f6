"""Leases on units, so that several ``mlhidden run`` processes on one run directory share the work.

Before a unit is computed, the process takes a lease on it in the store (one row in ``leases``, in
the same SQLite file as the results). A unit already stored, or leased by another live process, is
not computed again: the process skips it and, once its own units are done, waits for the other
process to store it. A lease lapses when its owner stops renewing it (``LEASE_SECONDS``; a
thread renews every lease of a live process) or, on the same machine, as soon as the owner
process no longer exists, so a run killed with ``kill -9`` holds nothing back on resume; such
lapsed leases are cleared when a process opens or closes its leases.

A process also leases the run itself, for its config (:meth:`UnitLeases.hold_run`): while it lives,
a process running another config into the same directory is refused, as that would replace the
directory's run (its config, tables and run.json) under it.

A unit's row is written only by the current holder of its lease (:meth:`ResultStore.write_unit`
compares the owner in the writing transaction): a process stopped past its lease (SIGSTOP, a
suspended laptop) whose unit another process took over discards its own result when it resumes.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mlhidden.errors import UserError
from mlhidden.io import PathLike
from mlhidden.runs.store_file import store_error
from mlhidden.runs.store_schema import KEY_COLUMNS, LEASES_BEFORE_VERSION_4, WHERE_KEY, UnitKey

LEASE_SECONDS = 120.0
RENEW_SECONDS = 20.0
RUN_SPLIT = -1
"""The split of a lease on a run (its owner in ``dataset``, its config hash in ``params_hash``), not on a unit."""


class UnitLeases:
    """This process's leases on the units of the store at ``store_path``; a context manager.

    While open, a daemon thread renews the leases every ``RENEW_SECONDS``; closing releases them.
    """

    def __init__(self, store_path: PathLike, lease_seconds: float | None = None) -> None:
        self.store_path = Path(store_path)
        self.lease_seconds = LEASE_SECONDS if lease_seconds is None else lease_seconds
        self.host, self.pid = socket.gethostname(), os.getpid()
        self.owner = f"{self.host}:{self.pid}:{uuid.uuid4().hex[:8]}"
        self._conn = _connect(self.store_path)
        self._lock = threading.Lock()  # joblib may draw the next task (and lease it) from its own thread
        self._stop = threading.Event()
        self._renewer = threading.Thread(target=self._renew_until_stopped, name="mlhidden-leases", daemon=True)

    def __enter__(self) -> UnitLeases:
        with self._lock, self._faults():
            self._clear_lapsed()
        try:
            self._renewer.start()
        except RuntimeError:  # no thread left (a memory limit): the run ends before it leases a unit
            self._conn.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._renewer.join()
        with self._lock:
            try:
                self._conn.execute("DELETE FROM leases WHERE owner=?", (self.owner,))
                self._clear_lapsed()
            except sqlite3.Error:  # a full disk or a lost store: what is left lapses, and the next run clears it
                pass
            finally:
                self._conn.close()

    def _clear_lapsed(self) -> None:
        """Delete the leases of owners that no longer compute (killed, or stopped past their lease)."""
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            owners = conn.execute(
                "SELECT owner, host, pid, MAX(renewed_at) FROM leases GROUP BY owner, host, pid"
            ).fetchall()
            for owner, host, pid, renewed_at in owners:
                if owner != self.owner and not self._alive(host, pid, renewed_at):
                    conn.execute("DELETE FROM leases WHERE owner=?", (owner,))
            conn.execute("COMMIT")
        finally:
            if conn.in_transaction:
                conn.execute("ROLLBACK")

    def hold_run(self, config_hash: str) -> None:
        """Lease the store's run for the config ``config_hash``, until closed; refuse (UserError) while a live
        process holds it for another config. Processes running the same config share it."""
        with self._lock, self._faults():
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                rows = conn.execute(
                    "SELECT params_hash, owner, host, pid, renewed_at FROM leases WHERE split=? AND params_hash!=?",
                    (RUN_SPLIT, config_hash),
                ).fetchall()
                other = next((row for row in rows if row[1] != self.owner and self._alive(*row[2:])), None)
                if other is None:
                    conn.execute(
                        f"INSERT OR REPLACE INTO leases ({', '.join(KEY_COLUMNS)}, owner, host, pid, renewed_at) "
                        f"VALUES (?, '', '', ?, {RUN_SPLIT}, {RUN_SPLIT}, ?, ?, ?, ?)",
                        (self.owner, config_hash, self.owner, self.host, self.pid, time.time()),
                    )
                conn.execute("COMMIT")
            finally:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
        if other is not None:
            raise UserError(
                f"another run (config {other[0]}, process {other[3]} on {other[2]}) is running into this directory; "
                f"this config ({config_hash}) differs, and would replace that run's config and tables under it",
                path=self.store_path.parent,
                hint="give this config its own --out, or wait for that run to end",
            )

    def take(self, key: UnitKey) -> str:
        """Lease the unit with store key ``key``: "taken", "stored" (done already) or "held" (by another live
        process)."""
        with self._lock, self._faults():
            return self._take(key)

    @contextmanager
    def _faults(self) -> Iterator[None]:
        """SQLite's errors (a full disk) as the store's one-line errors."""
        try:
            yield
        except sqlite3.Error as exc:
            raise store_error(exc, self.store_path) from None

    def _take(self, key: UnitKey) -> str:
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conn.execute(f"SELECT 1 FROM units WHERE {WHERE_KEY} AND status='ok'", key).fetchone():
                outcome = "stored"
            else:
                row = conn.execute(f"SELECT owner, host, pid, renewed_at FROM leases WHERE {WHERE_KEY}", key).fetchone()
                if row is not None and row[0] != self.owner and self._alive(*row[1:]):
                    outcome = "held"
                else:
                    conn.execute(
                        f"INSERT OR REPLACE INTO leases ({', '.join(KEY_COLUMNS)}, owner, host, pid, renewed_at) "
                        f"VALUES ({', '.join('?' * (len(KEY_COLUMNS) + 4))})",
                        (*key, self.owner, self.host, self.pid, time.time()),
                    )
                    outcome = "taken"
            conn.execute("COMMIT")
        except BaseException:  # SIGTERM's exception may land after COMMIT returned: nothing left to roll back
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return outcome

    def _alive(self, host: str, pid: int, renewed_at: float) -> bool:
        return _alive(host, pid, renewed_at, self.lease_seconds, self.host)

    def _renew_until_stopped(self) -> None:
        conn = _connect(self.store_path)
        try:
            while not self._stop.wait(RENEW_SECONDS):
                try:
                    conn.execute("UPDATE leases SET renewed_at=? WHERE owner=?", (time.time(), self.owner))
                except sqlite3.OperationalError:  # a full disk or a long lock: the next renewal may pass
                    pass
        finally:
            conn.close()


def live_leaseholder(store_path: PathLike) -> tuple[str, int] | None:
    """The host and process id of a live process with leases in the store at ``store_path``, or None; also None
    where the store has no readable leases (a damaged store holds nothing back). A store not yet migrated to
    schema version 4 keeps them under their old table name, read too, so that a run of the mlhidden before
    it is seen as running."""
    try:
        conn = _connect(Path(store_path))
        try:
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            table = "leases" if "leases" in tables or LEASES_BEFORE_VERSION_4 not in tables else LEASES_BEFORE_VERSION_4
            rows = conn.execute(f"SELECT host, pid, renewed_at FROM {table}").fetchall()
        finally:
            conn.close()
    except sqlite3.Error:
        return None
    return next(((host, pid) for host, pid, renewed_at in rows if _alive(host, pid, renewed_at)), None)


def _alive(
    host: str, pid: int, renewed_at: float, lease_seconds: float = LEASE_SECONDS, this_host: str | None = None
) -> bool:
    """Whether a lease's owner may still be computing: renewed within the lease, and on this host a running process."""
    if time.time() - renewed_at > lease_seconds:
        return False
    return host != (this_host or socket.gethostname()) or _process_exists(pid)


def _connect(path: Path) -> sqlite3.Connection:
    """An autocommit connection; its users serialise access themselves."""
    return sqlite3.connect(path, timeout=60, isolation_level=None, check_same_thread=False)


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True
