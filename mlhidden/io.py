"""File writing every layer shares: a file is replaced whole or not at all."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

_CHUNK = 1 << 20


def write_atomically(path: Path, write):
    """Call ``write(binary stream)`` on a temporary file beside ``path``, rename it into place, and
    return what ``write`` returned.

    If ``write`` raises, the temporary file is removed and ``path`` is untouched, so a reader
    never sees half a file and an interrupted write loses nothing that was there before.
    """
    path = Path(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            result = write(stream)
        os.replace(temporary, path)
        return result
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def sha256_of(path) -> str:
    """The sha256 of a file's bytes as stored, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
