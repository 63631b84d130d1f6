"""File writing every layer shares: a file is replaced whole or not at all."""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import tempfile
from collections.abc import Callable, Mapping
from operator import methodcaller
from pathlib import Path
from typing import IO, TypeVar

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
    resolved = path.resolve()
    if resolved.name not in RUN_FOLDER_FILES or (own_run_json and resolved.name == RUN_JSON):
        return
    if os.path.lexists(resolved.parent / STORE_FILE):
        raise UserError(
            f"will not write over {resolved.name}, a file of the run folder {resolved.parent}",
            path=path, hint="give another path; nothing can rebuild this file",
        )


def write_atomically(path: PathLike, write: Callable[[IO[bytes]], T], *, own_run_json: bool = False) -> T:
    """Call ``write(binary stream)`` on a temporary file beside ``path``, rename it into place, and
    return what ``write`` returned.

    If ``write`` raises, the temporary file is removed and ``path`` is untouched, so a reader
    never sees half a file and an interrupted write loses nothing that was there before. The
    file gets the permissions of the file it replaces, else those a plain ``open`` would give.
    Every writer goes through :func:`_check_replaceable` (``own_run_json``: the run writing its own run.json).
    """
    path = Path(path)
    _check_replaceable(path, own_run_json=own_run_json)
    temporary, result = _written_beside(path, write)
    try:
        os.replace(temporary, path)
        return result
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _written_beside(path: Path, write: Callable[[IO[bytes]], T]) -> tuple[Path, T]:
    """A temporary file beside ``path`` that ``write`` filled, with ``path``'s permissions (else a plain
    ``open``'s), and what ``write`` returned; nothing is left behind if anything fails."""
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    temporary = Path(name)
    try:
        with os.fdopen(handle, "wb") as stream:
            result = write(stream)
        try:
            mode = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o666 & ~_UMASK
        os.chmod(temporary, mode)
        return temporary, result
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_file(path: PathLike, write: Callable[[IO[bytes]], object], *, own_run_json: bool = False) -> Path:
    """:func:`write_atomically` into ``path`` (its folder made if need be) for a file the user asked for.

    A full disk, a read-only folder or any other failure of the file system is a
    :class:`UserError` line saying what to do; the file that was there before is kept.
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, write, own_run_json=own_run_json)
    except OSError as exc:
        raise storage_error(exc, path) from None
    return path


def write_text(path: PathLike, text: str, *, own_run_json: bool = False) -> Path:
    """``text`` as UTF-8 in ``path``, written whole or not at all (see :func:`write_file`)."""
    data = text.encode("utf-8")
    return write_file(path, lambda stream: stream.write(data), own_run_json=own_run_json)


def write_texts(files: Mapping[Path, str]) -> list[Path]:
    """Several files of one output (path -> text, as UTF-8) written all or none; returns their paths.

    Every destination is checked (:func:`_check_replaceable`) before any folder or file is made,
    then each file is written whole beside its destination, and only when all are written are they
    renamed into place: a reader never finds one file of the output new and another old or missing
    because the last write failed. A failure is :func:`storage_error`'s line, and every file that
    was there before is kept.
    """
    for path in files:
        _check_replaceable(path)
    written: list[Path] = []
    path = next(iter(files), Path())
    try:
        for path, text in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            written.append(_written_beside(path, methodcaller("write", text.encode("utf-8")))[0])
        for temporary, path in zip(written, files):
            os.replace(temporary, path)
    except OSError as exc:
        raise storage_error(exc, path) from None
    finally:
        for temporary in written:
            temporary.unlink(missing_ok=True)
    return list(files)


def storage_error(exc: OSError, path: PathLike) -> UserError:
    """The one line for a file system that refused a write to ``path``: why, and what to do."""
    reason = exc.strerror or str(exc)
    if exc.errno in _NO_SPACE:
        hint = "free some space, then re-run the same command; the file there before is kept"
    elif exc.errno in _NOT_WRITABLE:
        hint = "give a writable folder with --out, or make this one writable"
    elif exc.errno == errno.ENAMETOOLONG:
        hint = "give a shorter path"
    else:
        hint = "check the disk, then re-run the same command; the file there before is kept"
    return UserError(f"cannot write the file ({reason})", path=path, hint=hint)


def sha256_of(path: PathLike) -> str:
    """The sha256 of a file's bytes as stored, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
