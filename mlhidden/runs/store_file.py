"""How a results store's SQLite file is opened, and what its faults mean to the user.

Reading (``report``) opens the file read-only, so that a store on a read-only disk, an
immutable file or a full disk still gives its tables. A fault of the file system (full,
read-only, locked) is never mistaken for a broken store, and a store is only called "not a
results store" (with advice to move it away) when its first bytes prove it is no SQLite file.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import stat
from pathlib import Path
from urllib.parse import quote

from mlhidden.errors import UserError
from mlhidden.io import file_kind
from mlhidden.runs.store_schema import KEY_COLUMNS

SQLITE_HEADER = b"SQLite format 3\x00"
TIMEOUT_SECONDS = 60
_NEARLY_FULL_BYTES = 1 << 20
_CORE_TABLES = ("units", "datasets")  # in every store of the schema version; later tables are added on opening


def _check_header(path: Path) -> None:
    """Refuse (UserError) a store path that is not a regular file, or a file that is not an SQLite database.

    The file's type is checked before it is opened: opening a named pipe waits for a writer
    forever, and SQLite would put a device's journal beside the device. A symlink to a regular
    file is followed (SQLite keeps its side files beside the file it points to); a symlink to
    nothing is refused, since SQLite would create the store where it points. An empty file is
    what SQLite leaves when it creates a database, so it passes.
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        if path.is_symlink():
            raise UserError(
                f"the results store is a symlink to {os.readlink(path)}, which does not exist", path=path,
                hint="point it at an existing store, or remove the symlink",
            ) from None
        return
    except OSError as exc:
        raise UserError(
            f"cannot read the results store ({exc.strerror or exc})", path=path, hint="check its permissions"
        ) from None
    if stat.S_ISDIR(mode):
        raise UserError(
            "the results store is a folder, not a file", path=path, hint="move the folder away, or choose another --out"
        )
    if not stat.S_ISREG(mode):
        through = f"a symlink to {os.readlink(path)}, " if path.is_symlink() else ""
        raise UserError(
            f"the results store is {through}{file_kind(mode)}, not a regular file", path=path,
            hint="it holds no units: move it away, or choose another --out",
        )
    try:
        with open(path, "rb") as stream:
            head = stream.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return
    except OSError as exc:
        raise UserError(
            f"cannot read the results store ({exc.strerror or exc})", path=path, hint="check its permissions"
        ) from None
    if head and head != SQLITE_HEADER:
        raise UserError(
            "not an SQLite results store (it does not start with SQLite's header)", path=path,
            hint="move the file away or re-run with --fresh",
        )


def connect(path: Path, *, read_only: bool) -> sqlite3.Connection:
    """An autocommit connection to the store at ``path`` (checked with :func:`_check_header` first).

    Read-only, it opens with ``mode=ro``. SQLite refuses that while a rollback journal of a
    writer killed mid-transaction is hot (the store file then holds uncommitted pages): a brief
    read-write open rolls it back first, or the store is refused in one line. Where SQLite cannot
    even keep its shared-memory file beside the store (a read-only folder, a full disk), it opens
    with ``immutable=1``, which ignores every journal, so only once neither a hot journal nor a
    write-ahead log waiting to be merged is there: either is refused in one line.
    """
    _check_header(path)
    uri = f"file:{quote(str(path.resolve()))}"
    try:
        if not read_only:
            return sqlite3.connect(path, timeout=TIMEOUT_SECONDS, isolation_level=None, check_same_thread=False)
        try:
            return _opened(f"{uri}?mode=ro")
        except sqlite3.OperationalError:
            journal = _side_file(path, "-journal")
            if _is_hot(journal):
                _roll_back(path, journal)
                return _opened(f"{uri}?mode=ro")
            wal = _side_file(path, "-wal")
            if wal.exists() and wal.stat().st_size > 0:
                raise UserError(
                    f"the results store cannot be opened here, and {wal.name} holds writes not yet merged into it",
                    path=path,
                    hint="copy the run directory to a writable disk and run `mlhidden report` on the copy",
                ) from None
            return _opened(f"{uri}?immutable=1")
    except sqlite3.Error as exc:
        raise store_error(exc, path) from None


def _side_file(path: Path, suffix: str) -> Path:
    """The journal or write-ahead log of the store at ``path``: SQLite keeps it beside the file a symlink names."""
    store = path.resolve()
    return store.with_name(store.name + suffix)


def _is_hot(journal: Path) -> bool:
    """Whether ``journal`` may hold the committed pages of a transaction cut short (True where it cannot be read).

    SQLite's own test: an empty journal, or one starting with a zero byte (``journal_mode=persist``
    zeroes its header on commit), holds none.
    """
    try:
        with open(journal, "rb") as stream:
            return stream.read(1) not in (b"", b"\0")
    except FileNotFoundError:
        return False
    except OSError:
        return True


def _roll_back(path: Path, journal: Path) -> None:
    """Put the committed pages in ``journal`` back into the store, as SQLite does when it opens it for writing.

    Refused (UserError) where that cannot be done here (a read-only folder or disk): reading the
    store as it is would give the uncommitted values of the write that was cut short.
    """
    try:
        with contextlib.closing(sqlite3.connect(path, timeout=TIMEOUT_SECONDS, isolation_level=None)) as conn:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error as exc:
        raise UserError(
            f"a write to the results store was cut short, and its rollback journal {journal.name} cannot be "
            f"rolled back here ({exc}); reading the store without it would give values never committed",
            path=path,
            hint="copy the run directory (the journal with it) to a writable disk, and run the command on the copy",
        ) from None


def tidy_after_reading(path: Path) -> None:
    """Remove the empty write-ahead log and shared-memory file that a read-only connection leaves.

    SQLite removes them when the last connection closes, unless that one is read-only. A brief
    read-write connection closes last instead, and does so only if no other process has the
    store open; a store that cannot be opened for writing keeps them (they are harmless).
    """
    wal = _side_file(path, "-wal")
    try:
        if not wal.exists() or wal.stat().st_size:
            return
        conn = sqlite3.connect(path, timeout=0.1, isolation_level=None)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        finally:
            conn.close()
    except (OSError, sqlite3.Error):
        pass


def check_schema(conn: sqlite3.Connection, path: Path, versions: range, *, create: bool) -> int | None:
    """The schema version of a results store, one of ``versions``; None for a new, empty database.

    Anything else is refused (UserError), only reading it: a refused store is left byte for byte
    as it was, since the caller switches the journal mode to WAL and creates or migrates the
    tables only after this check. ``create`` allows a database without tables.
    """
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "meta" not in tables and "units" in tables and set(KEY_COLUMNS) <= _columns(conn, "units"):
        n_units = conn.execute("SELECT count(*) FROM units").fetchone()[0]
        raise UserError(
            f"the results store is damaged: its meta table is missing, and it holds {n_units} units",
            path=path, hint=f"`mlhidden store repair {path.parent}` rebuilds it from run.json, keeping every unit "
            "and a copy of the store as it is",
        )
    if "meta" not in tables:
        if tables or not create:
            raise UserError(
                "not an mlhidden results store", path=path, hint="re-run with --fresh or choose another --out"
            )
        return None
    row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    if row is None or str(row[0]) not in {str(v) for v in versions}:
        found = "no schema version (it predates versioning)" if row is None else f"schema version {row[0]}"
        raise UserError(
            f"results store has {found}; this mlhidden reads and writes schema versions {versions.start} "
            f"to {versions.stop - 1}",
            path=path,
            hint="read it with the mlhidden version that wrote it, or choose another --out",
        )
    lost = [table for table in _CORE_TABLES if table not in tables]
    if lost:
        raise UserError(
            f"the results store is damaged: its {' and '.join(lost)} "
            f"table{'s are' if len(lost) > 1 else ' is'} missing",
            path=path,
            hint="restore it from a backup, or choose another --out" if "units" in lost
            else f"`mlhidden store repair {path.parent}` rebuilds it from run.json, keeping every unit and a copy of "
            "the store as it is",
        )
    return int(row[0])


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def _opened(uri: str) -> sqlite3.Connection:
    """A connection to ``uri`` that has read the schema, so that a file SQLite cannot open fails here."""
    conn = sqlite3.connect(uri, uri=True, timeout=TIMEOUT_SECONDS, isolation_level=None, check_same_thread=False)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except BaseException:
        conn.close()
        raise
    return conn


def store_error(exc: Exception, path: Path) -> UserError:
    """The one line for an SQLite error on the store at ``path``, by what went wrong underneath.

    ``exc`` may be pandas' wrapper of an SQLite error. A store whose header is SQLite's but whose
    pages cannot be read is called damaged, and no advice is given to delete it.
    """
    cause = exc.__cause__ if not isinstance(exc, sqlite3.Error) and isinstance(exc.__cause__, sqlite3.Error) else exc
    kind, reason = _kind(cause), str(cause)
    if kind == "full" or (kind == "io" and _nearly_full(path)):
        return UserError(
            f"the disk is full ({reason})", path=path,
            hint="free some space, then re-run the same command: the units stored so far are kept",
        )
    if kind == "read-only":
        return UserError(
            f"the results store is read-only here ({reason})",
            path=path,
            hint="`mlhidden report` reads it as it is (with --out elsewhere); "
            "to add units, make it and its folder writable, or give another --out",
        )
    if kind == "locked":
        return UserError(
            f"the results store stayed locked by another process for {TIMEOUT_SECONDS} s ({reason})", path=path,
            hint="wait for that process to finish, then re-run the same command",
        )
    if kind == "io":
        return UserError(
            f"the disk failed to read or write the results store ({reason})",
            path=path,
            hint="check the disk, then re-run the same command",
        )
    return UserError(
        f"the results store is damaged ({reason})", path=path,
        hint="keep a copy of it (`sqlite3 store.sqlite .recover` may rescue its units), and choose another --out",
    )


_KINDS = (  # (kind, SQLite error name prefixes, message parts for Pythons before 3.11)
    ("full", ("SQLITE_FULL",), ("disk is full",)),
    ("read-only", ("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_AUTH"), ("readonly", "unable to open")),
    ("locked", ("SQLITE_BUSY", "SQLITE_LOCKED"), ("locked",)),
    ("io", ("SQLITE_IOERR",), ("disk i/o error",)),
)


def _kind(exc: Exception) -> str:
    """What an SQLite error says about the file system: full, read-only, locked, io, or else "damaged"."""
    name, text = getattr(exc, "sqlite_errorname", "") or "", str(exc).lower()
    for kind, prefixes, parts in _KINDS:
        if name.startswith(prefixes) or (not name and any(part in text for part in parts)):
            return kind
    return "damaged"


def _nearly_full(path: Path) -> bool:
    try:
        return shutil.disk_usage(path.parent).free < _NEARLY_FULL_BYTES
    except OSError:
        return False
