"""File writing every layer shares: a file is replaced whole or not at all."""

from __future__ import annotations

import errno
import hashlib
import os
import tempfile
from collections.abc import Callable
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


def write_atomically(path: PathLike, write: Callable[[IO[bytes]], T]) -> T:
    """Call ``write(binary stream)`` on a temporary file beside ``path``, rename it into place, and
    return what ``write`` returned.

    If ``write`` raises, the temporary file is removed and ``path`` is untouched, so a reader
    never sees half a file and an interrupted write loses nothing that was there before. The
    file gets the permissions of the file it replaces, else those a plain ``open`` would give.
    """
    path = Path(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            result = write(stream)
        try:
            mode = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o666 & ~_UMASK
        os.chmod(temporary, mode)
        os.replace(temporary, path)
        return result
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_file(path: PathLike, write: Callable[[IO[bytes]], object]) -> Path:
    """:func:`write_atomically` into ``path`` (its folder made if need be) for a file the user asked for.

    A full disk, a read-only folder or any other failure of the file system is a
    :class:`UserError` line saying what to do; the file that was there before is kept.
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, write)
    except OSError as exc:
        raise storage_error(exc, path) from None
    return path


def write_text(path: PathLike, text: str) -> Path:
    """``text`` as UTF-8 in ``path``, written whole or not at all (see :func:`write_file`)."""
    data = text.encode("utf-8")
    return write_file(path, lambda stream: stream.write(data))


def storage_error(exc: OSError, path: PathLike) -> UserError:
    """The one line for a file system that refused a write to ``path``: why, and what to do."""
    reason = exc.strerror or str(exc)
    if exc.errno in _NO_SPACE:
        hint = "free some space, then re-run the same command; the file there before is kept"
    elif exc.errno in _NOT_WRITABLE:
        hint = "give a writable folder with --out, or make this one writable"
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
