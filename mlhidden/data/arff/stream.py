"""An ARFF file's text lines, read as a stream: decompressed, decoded and split one piece at a time.

Nothing holds the whole text, so reading takes memory for the parsed values only. A compressed
file may still expand without bound (a "decompression bomb": kilobytes that expand to gigabytes
of text), so its text is capped at :data:`DEFAULT_MAX_EXPANSION` times the compressed size (at
least :data:`EXPANSION_FLOOR` bytes); the real datasets expand 3 to 12 times. The environment
variable ``MLHIDDEN_MAX_EXPANSION`` sets another ratio, 0 for none.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import os
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from mlhidden.errors import UserError

EXPANSION_ENV = "MLHIDDEN_MAX_EXPANSION"
DEFAULT_MAX_EXPANSION = 100
EXPANSION_FLOOR = 32 << 20
_CHUNK = 1 << 20
_OPENERS: dict[str, Callable[..., Any]] = {".gz": gzip.open, ".bz2": bz2.open}


class _HashingReader:
    """The stored file as read by the decompressor, hashed and counted on the way (``Dataset.sha256``)."""

    def __init__(self, file: IO[bytes]) -> None:
        self._file = file
        self.sha256 = hashlib.sha256()

    def read(self, size: int = -1) -> bytes:
        data = self._file.read(size)
        self.sha256.update(data)
        return data

    def drain(self) -> str:
        while self.read(_CHUNK):
            pass
        return self.sha256.hexdigest()


class TextStream:
    """The lines of ``path`` (without their ``\\n``), decoded as UTF-8; ``sha256`` once they are all read."""

    def __init__(self, path: Path):
        self.path = path
        self.sha256 = ""
        opener = _OPENERS.get(path.suffix.lower())
        self._kind = path.suffix.lower().lstrip(".") if opener is not None else None
        try:
            self._file = open(path, "rb")  # noqa: SIM115 - closed when the lines are exhausted
        except OSError as error:
            raise UserError(f"cannot read the file: {error.strerror or error}", path=path) from None
        self._raw = _HashingReader(self._file)
        self._stream = opener(self._raw, "rb") if opener is not None else self._raw
        self._cap = _expansion_cap(path, os.fstat(self._file.fileno()).st_size) if opener is not None else None

    def __iter__(self) -> Iterator[str]:
        try:
            yield from self._lines()
            self.sha256 = self._raw.drain()
        finally:
            self._file.close()

    def _chunks(self) -> Iterator[bytes]:
        expanded = 0
        while True:
            try:
                chunk = self._stream.read(_CHUNK)
            except (OSError, EOFError, ValueError, zlib.error) as error:
                raise UserError(
                    f"not a valid {self._kind} file (truncated or corrupt: {error})",
                    path=self.path,
                    hint="copy or download it again",
                ) from None
            if not chunk:
                return
            expanded += len(chunk)
            if self._cap is not None and expanded > self._cap[0]:
                raise UserError(
                    f"expands to more than {self._cap[0] >> 20} MiB of text, over {self._cap[1]} times its compressed "
                    "size; refused as a likely decompression bomb",
                    path=self.path,
                    hint=f"if the file is genuine, set {EXPANSION_ENV} to a larger ratio, or to 0 for no limit",
                )
            yield chunk

    def _lines(self) -> Iterator[str]:
        number, pending = 0, []
        for chunk in self._chunks():
            if b"\n" not in chunk:  # inside a long line: joined once it ends
                pending.append(chunk)
                continue
            pieces = chunk.split(b"\n")
            pieces[0] = b"".join(pending + pieces[:1])
            pending = [pieces.pop()]
            for piece in pieces:
                number += 1
                yield self._decode(piece, number)
        yield self._decode(b"".join(pending), number + 1)

    def _decode(self, piece: bytes, number: int) -> str:
        try:
            return piece.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError:
            raise UserError(
                "not UTF-8 text (binary or wrongly encoded file)", path=self.path, line=number,
                hint="save the file as UTF-8 text",
            ) from None


def _expansion_cap(path: Path, stored_size: int) -> tuple[int, int] | None:
    """The most text bytes ``path`` may expand to, and the ratio it comes from; None for no cap."""
    setting = os.environ.get(EXPANSION_ENV, "").strip()
    try:
        ratio = int(setting) if setting else DEFAULT_MAX_EXPANSION
    except ValueError:
        raise UserError(f"{EXPANSION_ENV} must be a whole number (0: no limit), got {setting!r}") from None
    if ratio <= 0:
        return None
    return max(EXPANSION_FLOOR, ratio * stored_size), ratio
