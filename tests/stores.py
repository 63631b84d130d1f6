"""Reading a results store from a test the way a second process would."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from mlhidden.runs.store import STORE_FILE


def stored_units(run_dir: Path) -> int:
    """Units in the store under ``run_dir`` (0 while it does not exist yet)."""
    try:
        with sqlite3.connect(run_dir / STORE_FILE, timeout=5) as conn:
            return conn.execute("SELECT COUNT(*) FROM units").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
