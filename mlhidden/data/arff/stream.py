"""An ARFF file's text lines, read as a stream: decompressed, decoded and split one piece at a time.

Nothing holds the whole text, so reading takes memory for the parsed values only. Three limits
keep a hostile file from taking more, each refused in one line as soon as it is crossed, each
set by an environment variable (0 for none):

- ``MLHIDDEN_MAX_EXPANSION`` (default 100): a compressed file may expand at most this many times
  the compressed bytes read so far, once past :data:`EXPANSION_FLOOR`. A "decompression bomb"
  (kilobytes that expand to gigabytes of text) is refused within the first 32 MiB of its text,
  however large it is; the real datasets expand 3 to 12 times.
- ``MLHIDDEN_MAX_TEXT_MIB`` (default 1024): the most text a compressed file may expand to in all,
  far more than any dataset the project reads has; parsing that much may take several times as
  much memory, so a genuine larger file is a deliberate choice.
- ``MLHIDDEN_MAX_LINE_MIB`` (default 4): the longest line of any file. The real datasets' lines
  have at most a few KiB; a row of millions of values would take gigabytes to parse.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import os
import zlib
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from mlhidden.errors import UserError

EXPANSION_ENV = "MLHIDDEN_MAX_EXPANSION"
DEFAULT_MAX_EXPANSION = 100
EXPANSION_FLOOR = 32 << 20
TEXT_ENV = "MLHIDDEN_MAX_TEXT_MIB"
DEFAULT_MAX_TEXT_MIB = 1024
LINE_ENV = "MLHIDDEN_MAX_LINE_MIB"
DEFAULT_MAX_LINE_MIB = 4
_CHUNK = 1 << 20
_OPENERS: dict[str, Callable[..., Any]] = {".gz": gzip.open, ".bz2": bz2.open}


class _HashingReader:
    """The stored file as read by the decompressor, hashed (unless ``hashed`` is false) and counted on the way
    (``Dataset.identity``)."""

    def __init__(self, file: IO[bytes], hashed: bool = True) -> None:
        self._file = file
        self.sha256 = hashlib.sha256() if hashed else None
        self.count = 0

    def read(self, size: int = -1) -> bytes:
        data = self._file.read(size)
        if self.sha256 is not None:
            self.sha256.update(data)
        self.count += len(data)
        return data

    def drain(self) -> str:
        if self.sha256 is None:
            return ""
        while self.read(_CHUNK):
            pass
        return self.sha256.hexdigest()


class TextStream:
    """The text of ``path``, decoded as UTF-8: the header line by line (:meth:`header`), then the rest in
    :class:`Block` s of whole lines (:meth:`blocks`); ``sha256`` once they are all read (empty when not
    ``hashed``: for a caller that has hashed the file already)."""

    def __init__(self, path: Path, hashed: bool = True):
        self.path = path
        self.sha256 = ""
        opener = _OPENERS.get(path.suffix.lower())
        self._kind = path.suffix.lower().lstrip(".") if opener is not None else None
        try:
            self._file = open(path, "rb")  # noqa: SIM115 - closed when the blocks are exhausted, or on exit
        except OSError as error:
            raise UserError(f"cannot read the file: {error.strerror or error}", path=path) from None
        self._raw = _HashingReader(self._file, hashed)
        self._stream = opener(self._raw, "rb") if opener is not None else self._raw
        self._ratio = _limit(EXPANSION_ENV, DEFAULT_MAX_EXPANSION, "a ratio") if opener is not None else 0
        self._max_text = _limit(TEXT_ENV, DEFAULT_MAX_TEXT_MIB, "MiB") << 20 if opener is not None else 0
        self.max_line = _limit(LINE_ENV, DEFAULT_MAX_LINE_MIB, "MiB") << 20
        self._source = self._blocks()
        self._rest: Block | None = None

    def __enter__(self) -> TextStream:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._source.close()
        self._file.close()

    def header(self, is_last: Callable[[str], bool]) -> list[str]:
        """The lines up to the first for which ``is_last`` holds (included), or all of them."""
        lines = []
        for block in self._source:
            for count, text in enumerate(block.lines(), start=1):
                lines.append(text)
                if is_last(text):
                    self._rest = block.after(count)
                    return lines
        return lines

    def blocks(self) -> Iterator[Block]:
        """The lines after :meth:`header`'s, in blocks of about a MiB."""
        if self._rest is not None:
            yield self._rest
        yield from self._source

    def _blocks(self) -> Generator[Block, None, None]:
        try:
            number, pending, pending_size = 1, [], 0
            for chunk in self._chunks():
                end = chunk.rfind(b"\n")
                if end < 0:  # inside a long line: joined once it ends
                    pending.append(chunk)
                    pending_size += len(chunk)
                    self.check_length(pending_size, number)
                    continue
                data = b"".join([*pending, chunk[:end]])
                yield Block(self, number, data)
                number += data.count(b"\n") + 1
                pending, pending_size = [chunk[end + 1:]], len(chunk) - end - 1
            yield Block(self, number, b"".join(pending))
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
            allowed = max(EXPANSION_FLOOR, self._ratio * self._raw.count)
            if self._ratio and expanded > allowed:
                raise UserError(
                    f"expands to more than {allowed >> 20} MiB of text from its first {self._raw.count >> 10} KiB, "
                    f"over {self._ratio} times; refused as a likely decompression bomb",
                    path=self.path,
                    hint=f"if the file is genuine, set {EXPANSION_ENV} to a larger ratio, or to 0 for no limit",
                )
            if self._max_text and expanded > self._max_text:
                raise UserError(
                    f"expands to more than {self._max_text >> 20} MiB of text; refused",
                    path=self.path,
                    hint=f"if the file is genuine, set {TEXT_ENV} to a larger size in MiB, or to 0 for no limit",
                )
            yield chunk

    def check_length(self, size: int, number: int) -> None:
        if self.max_line and size > self.max_line:
            raise UserError(
                f"a line longer than {self.max_line >> 20} MiB; refused", path=self.path, line=number,
                hint=f"if the file is genuine, set {LINE_ENV} to a larger size in MiB, or to 0 for no limit",
            )

    def decode(self, piece: bytes, number: int) -> str:
        try:
            return piece.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError:
            raise UserError(
                "not UTF-8 text (binary or wrongly encoded file)", path=self.path, line=number,
                hint="save the file as UTF-8 text",
            ) from None


def _limit(variable: str, default: int, unit: str) -> int:
    """The whole number the environment ``variable`` sets (0 for no limit), else ``default``."""
    setting = os.environ.get(variable, "").strip()
    try:
        value = int(setting) if setting else default
    except ValueError:
        raise UserError(f"{variable} must be a whole number ({unit}; 0: no limit), got {setting!r}") from None
    return max(value, 0)


@dataclass(frozen=True)
class Block:
    """Whole lines of the text, joined by ``\\n``, the first of them line ``first``; a line's length and its
    UTF-8 are checked when :meth:`lines` hands it out, so a problem is reported in the order of the lines."""

    stream: TextStream
    first: int
    data: bytes

    def lines(self) -> Iterator[str]:
        for number, piece in enumerate(self.data.split(b"\n"), start=self.first):
            self.stream.check_length(len(piece), number)
            yield self.stream.decode(piece, number)

    def after(self, count: int) -> Block | None:
        """The lines after the first ``count``; None when there are none."""
        pieces = self.data.split(b"\n", count)
        return Block(self.stream, self.first + count, pieces[count]) if len(pieces) > count else None
