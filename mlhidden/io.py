"""File writing every layer shares: a file is replaced whole or not at all, and JSON is strict."""

from __future__ import annotations

import errno
import hashlib
import json
import math
import os
import secrets
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any, TypeVar

from mlhidden.errors import UserError

_CHUNK = 1 << 20
_UMASK = os.umask(0o022)
os.umask(_UMASK)
_NO_SPACE = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
_NOT_WRITABLE = {errno.EROFS, errno.EACCES, errno.EPERM}

T = TypeVar("T")
PathLike = str | os.PathLike[str]

STORE_FILE = "store.sqlite"
"""A run folder's results store; a folder holding one is a run folder."""
RUN_JSON = "run.json"
"""A run folder's provenance, written only by the run itself."""
STORE_COPY = STORE_FILE + ".before-repair"
"""The copy of a damaged store that ``mlhidden store repair`` keeps as it was."""
RUN_FOLDER_FILES = (STORE_FILE, *(STORE_FILE + side for side in ("-wal", "-shm", "-journal")), STORE_COPY, RUN_JSON)
"""The files of a run folder that nothing can rebuild: its store (with SQLite's side files and a
repair's copy) and run.json."""
_FILE_KINDS = (
    (stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"),
)


def file_kind(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, in words: "a regular file", "a folder", "a character device", ..."""
    for test, kind in _FILE_KINDS:
        if test(mode):
            return kind
    return "a regular file" if stat.S_ISREG(mode) else "a special file"


def resolved_path(path: PathLike) -> Path:
    """``path`` made absolute with every symbolic link followed; a loop of links on the way is a one-line
    :class:`UserError` (``Path.resolve`` raises a RuntimeError for one), so every user path resolves through here."""
    try:
        return Path(path).resolve()
    except (RuntimeError, OSError) as exc:
        if isinstance(exc, OSError) and exc.errno != errno.ELOOP:
            raise
        raise _symlink_loop(path) from None


def _symlink_loop(path: PathLike) -> UserError:
    hint = "give a path whose links end at a file or folder"
    return UserError("the path goes through a symlink loop", path=path, hint=hint)


def _goes_through_a_loop(path: PathLike) -> bool:
    try:
        os.stat(path)
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False


def _check_replaceable(path: PathLike, *, own_run_json: bool = False) -> None:
    """Refuse (UserError) a write to ``path`` that would destroy what is there, before anything is written.

    A rename replaces whatever the target is, so a device node, a pipe or a symlink to one
    would become a plain file: only a regular file (or a symlink to one) is written over. The
    files of a run folder that nothing rebuilds (:data:`RUN_FOLDER_FILES`) are never a command's output file;
    only the run itself writes its ``run.json`` (``own_run_json``).
    """
    path = Path(path)
    try:
        mode = os.stat(path).st_mode  # follows a symlink: what a reader of path gets
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        raise UserError(
            f"will not write over {file_kind(mode)}", path=path, hint="give the path of a regular file or a new one"
        )
    resolved = resolved_path(path)
    if resolved.name not in RUN_FOLDER_FILES or (own_run_json and resolved.name == RUN_JSON):
        return
    if os.path.lexists(resolved.parent / STORE_FILE):
        raise UserError(
            f"will not write over {resolved.name}, a file of the run folder {resolved.parent}",
            path=path, hint="give another path; nothing can rebuild this file",
        )


def _temporary_beside(path: Path, temporaries: list[Path]) -> Path:
    """A new empty file beside ``path``, named in ``temporaries`` before it exists.

    The caller removes every file ``temporaries`` names, so a signal at any point (even right
    after the file is made, before this returns) leaves no temporary file behind.
    """
    while True:
        temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        temporaries.append(temporary)
        try:
            os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            return temporary
        except OSError as exc:
            temporaries.pop()  # not made, and on a read-only disk even removing it would fail
            if not isinstance(exc, FileExistsError):
                raise


def _fill(temporary: Path, write: Callable[[IO[bytes]], T]) -> T:
    with open(temporary, "wb") as stream:
        return write(stream)


def _put_in_place(temporary: Path, path: Path) -> None:
    """Rename ``temporary`` over ``path``, with the permissions of the file it replaces, else those a plain
    ``open`` would give."""
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o666 & ~_UMASK
    os.chmod(temporary, mode)
    os.replace(temporary, path)


def write_atomically(path: PathLike, write: Callable[[IO[bytes]], T], *, own_run_json: bool = False) -> T:
    """Call ``write(binary stream)`` on a temporary file beside ``path``, rename it into place, and
    return what ``write`` returned.

    If ``write`` raises, the temporary file is removed and ``path`` is untouched, so a reader
    never sees half a file and an interrupted write loses nothing that was there before.
    Every writer goes through :func:`_check_replaceable` (``own_run_json``: the run writing its own run.json).
    """
    path = Path(path)
    _check_replaceable(path, own_run_json=own_run_json)
    temporaries: list[Path] = []
    try:
        temporary = _temporary_beside(path, temporaries)
        result = _fill(temporary, write)
        _put_in_place(temporary, path)
        return result
    except BaseException:
        for temporary in temporaries:
            temporary.unlink(missing_ok=True)
        raise


Writer = Callable[[IO[bytes]], object]


def write_files(writes: Sequence[tuple[PathLike, Writer]], *, own_run_json: bool = False) -> list[Path]:
    """Write each ``(path, write)`` as :func:`write_atomically` would, all of them or none: the files of one
    output (units and their predictions) never disagree, and a failure never leaves some written.

    Every destination is checked, and a temporary file made beside it (its folder made if need
    be), before any is filled; all are filled before any is renamed into place. A full disk, a
    read-only folder or any other failure of the file system is a :class:`UserError` line naming
    the file and saying what to do; the files there before are kept.
    """
    paths = [Path(path) for path, _ in writes]
    if not paths:
        return []
    for path in paths:
        _check_replaceable(path, own_run_json=own_run_json)
    kept = "the file there before is kept" if len(paths) == 1 else "no file was changed"
    temporaries: list[Path] = []  # one per path, in order
    placed: list[Path] = []
    failed = paths[0]  # the file the error line names
    try:
        for path in paths:
            failed = path
            path.parent.mkdir(parents=True, exist_ok=True)
            _temporary_beside(path, temporaries)
        for path, (_, write), temporary in zip(paths, writes, temporaries):
            failed = path
            _fill(temporary, write)
        for path, temporary in zip(paths, temporaries):
            failed = path
            _put_in_place(temporary, path)
            placed.append(path)
    except OSError as exc:
        if placed:
            kept = f"only {', '.join(map(str, placed))} was written"
        raise storage_error(exc, failed, kept=kept) from None
    finally:
        for temporary in temporaries:
            temporary.unlink(missing_ok=True)
    return paths


def write_file(path: PathLike, write: Writer, *, own_run_json: bool = False) -> Path:
    """``path`` written by ``write`` through :func:`write_files`: a file the user asked for."""
    return write_files([(path, write)], own_run_json=own_run_json)[0]


def write_text(path: PathLike, text: str, *, own_run_json: bool = False) -> Path:
    """``text`` as UTF-8 in ``path``, written whole or not at all (see :func:`write_files`)."""
    return write_file(path, text_writer(text), own_run_json=own_run_json)


def text_writer(text: str) -> Writer:
    """A writer for :func:`write_files` of ``text`` as UTF-8."""
    data = text.encode("utf-8")
    return lambda stream: stream.write(data)


def storage_error(exc: OSError, path: PathLike, *, kept: str = "the file there before is kept") -> UserError:
    """The one line for a file system that refused a write to ``path``: why, and what to do (``kept``: what of
    the output there before is left)."""
    if exc.errno == errno.ELOOP or (exc.errno == errno.EEXIST and _goes_through_a_loop(path)):
        return _symlink_loop(path)
    reason = exc.strerror or str(exc)
    if exc.errno in _NO_SPACE:
        hint = f"free some space, then re-run the same command; {kept}"
    elif exc.errno in _NOT_WRITABLE:
        hint = "give a writable folder with --out, or make this one writable"
    elif exc.errno == errno.ENAMETOOLONG:
        hint = "give a shorter path"
    else:
        hint = f"check the disk, then re-run the same command; {kept}"
    return UserError(f"cannot write the file ({reason})", path=path, hint=hint)


def strict_json(value: object, **options: Any) -> str:
    """``value`` as ``json.dumps(value, **options)`` gives it, but strict JSON: RFC 8259 has no NaN or
    infinity, and strict parsers refuse Python's ``NaN``/``Infinity``, so every non-finite float becomes null."""
    return json.dumps(_finite(value), allow_nan=False, **options)


def _finite(value: object) -> object:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def sha256_of(path: PathLike) -> str:
    """The sha256 of a file's bytes as stored, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
