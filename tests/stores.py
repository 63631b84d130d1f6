"""Reading a results store from a test the way a second process would, and leaving one as a killed writer does."""

from __future__ import annotations

import contextlib
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from mlhidden.runs.store import STORE_FILE


def stored_units(run_dir: Path) -> int:
    """Units in the store under ``run_dir`` (0 while it does not exist yet)."""
    try:
        with sqlite3.connect(run_dir / STORE_FILE, timeout=5) as conn:
            return conn.execute("SELECT COUNT(*) FROM units").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


_KILLED_WRITER = """
import os, signal, sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA cache_size=10")  # pages: the cache spills the uncommitted pages into the store file
conn.execute("BEGIN IMMEDIATE")
conn.execute(sys.argv[2])
conn.execute("CREATE TABLE filler (data BLOB)")
conn.executemany("INSERT INTO filler VALUES (zeroblob(4096))", [()] * 200)
os.kill(os.getpid(), signal.SIGKILL)
"""


def leave_hot_journal(run_dir: Path, statement: str) -> Path:
    """Switch the store under ``run_dir`` to a rollback journal, and kill -9 a writer in the middle of ``statement``.

    What another tool or an older mlhidden leaves: ``store.sqlite`` holds the uncommitted pages and
    ``store.sqlite-journal`` the committed ones, which SQLite puts back when it next opens the store
    for writing. Returns the journal.
    """
    store = run_dir / STORE_FILE
    with contextlib.closing(sqlite3.connect(store)) as conn:
        assert conn.execute("PRAGMA journal_mode=DELETE").fetchone() == ("delete",)
    killed = subprocess.run([sys.executable, "-c", _KILLED_WRITER, str(store), statement], timeout=60)
    assert killed.returncode == -signal.SIGKILL
    journal = run_dir / f"{STORE_FILE}-journal"
    assert journal.stat().st_size > 0
    return journal
