"""The @data rows of an ARFF file, parsed a block at a time into compact arrays: plain dense and
sparse blocks by :mod:`.plain` at C speed, the others one line at a time.

Values are split as Weka splits them (:mod:`.tokens`) and kept as machine numbers as they
are read, so memory follows the parsed matrix, not the text. Numbers are read as Java's
``Double.valueOf`` reads them, the way Weka does: ``?`` is missing and so is ``NaN`` (Weka's
missing value is NaN); ``Infinity`` and overflowing values such as ``1e999`` are read as
infinite (and refused later: a learner cannot use them); ``nan``, ``inf`` and other spellings
Weka refuses are not numbers here either.
"""

from __future__ import annotations

import functools
import re
from array import array
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from mlhidden.data.arff.diagnosis import sparse_index_problem
from mlhidden.data.arff.lines import Attribute, RowLines, check_row
from mlhidden.data.arff.plain import Kinds, attribute_kinds, dense_values, sparse_values
from mlhidden.data.arff.stream import Block
from mlhidden.data.arff.tokens import UnterminatedQuote, tokens
from mlhidden.errors import UserError

_SEPARATORS = re.compile(r"[\x00-\x20,]+")
_SPECIAL = re.compile(r"['\"%\\]")
# Rows with these take the careful path: quotes, comments, escapes, letters of nan/inf/NaN/Infinity or "_"
# (which Python's float reads and Java's does not), and characters str.split and Weka separate differently.
_SLOW = re.compile(r"['\"%\\nNiI_?]|[^\x20-\x7e\t]")
_JAVA_NUMBER = re.compile(r"[+-]?(?:NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFdD]?)")
_MISSING = float("nan")
# A value's parser: (attribute name, text) -> its float; raises _BadValue.
Converter = Callable[[str, str], float]


class Rows:
    """The parsed rows, block by block: dense values (rows × attributes), or for a sparse file each row's count of
    entries and the entries' attribute indices and values; and each row's line number."""

    def __init__(self) -> None:
        self.dense: list[np.ndarray] = []
        self.entries: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.lines = RowLines()
        self.sparse = False

    def stored(self, n_attributes: int) -> sp.csr_matrix:
        """A sparse file's entries, all blocks together, as a float64 CSR matrix of every attribute, each value as
        read: an explicit 0 is kept (a nominal's 0 is its first name, which may encode to 1). Each row's indices
        increase, as every path has checked (Weka refuses a row whose indices do not)."""
        empty = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32), np.zeros(0))
        counts, indices, values = (np.concatenate(part) for part in zip(*self.entries, empty, strict=True))
        index = np.int32 if max(len(self.lines), n_attributes, len(values)) <= np.iinfo(np.int32).max else np.int64
        pointers = np.zeros(len(self.lines) + 1, dtype=index)
        np.cumsum(counts, out=pointers[1:])
        shape = (len(self.lines), n_attributes)
        return sp.csr_matrix((values, indices.astype(index, copy=False), pointers), shape=shape)


class _Careful:
    """Rows read one line at a time, as Weka reads them: what :mod:`.plain` leaves."""

    def __init__(self, path: Path, attributes: Sequence[Attribute], data_line: int) -> None:
        self.path, self.data_line, self.attributes = path, data_line, attributes
        self.first_sparse = 0
        self.first_error: UserError | None = None

    @functools.cached_property
    def converters(self) -> list[Converter]:
        """Each attribute's careful parser (made when a block first needs them: a plain file never does)."""
        return [_nominal(kind) if isinstance(kind, list) else _number for _, kind in self.attributes]

    @functools.cached_property
    def fast(self) -> list[Callable[[str], float]]:
        """Each attribute's parser of a plain value (raises for any other)."""
        by_values: dict[tuple[str, ...], Callable[[str], float]] = {}
        return [
            by_values.setdefault(tuple(kind), {value: float(i) for i, value in enumerate(kind)}.__getitem__)
            if isinstance(kind, list) else float
            for _, kind in self.attributes
        ]

    @functools.cached_property
    def names(self) -> list[str]:
        return [name for name, _ in self.attributes]

    def read(self, block: Block, parsed: Rows) -> None:
        """Parse the rows of ``block`` into ``parsed``; a row's bad value is kept in ``first_error``."""
        counts, columns, values, lines = array("q"), array("q"), array("d"), array("q")
        for number, text in enumerate(block.lines(), start=block.first):
            row = text.strip(" \t\r\n")
            if not row or row.startswith("%"):
                continue
            if not len(parsed.lines) and not lines:
                parsed.sparse, self.first_sparse = row.startswith("{"), number
            check_row(self.path, number, row, self.data_line, self.first_sparse if parsed.sparse else None)
            try:
                indices, row_values = _fast_row(row, self.fast) if _SLOW.search(row) is None else (None, None)
            except (ValueError, KeyError, IndexError):
                indices = row_values = None
            if row_values is None:
                try:
                    indices, row_values = _careful_row(self.path, number, row, self.converters, self.names)
                except UserError as error:  # reported once later rows are checked: "@attribute after @data" is a cause
                    self.first_error = self.first_error or error
                    continue
            if parsed.sparse:
                counts.append(len(row_values))
                columns.extend(indices or ())
                values.extend(row_values)
            elif indices is not None:  # a sparse row in a dense file: omitted values are 0 (a nominal's first value)
                dense = [0.0] * len(self.converters)
                for index, value in zip(indices, row_values, strict=True):
                    dense[index] = value
                values.extend(dense)
            else:
                values.extend(row_values)
            lines.append(number)
        if parsed.sparse:
            entries = np.array(counts, dtype=np.int64), np.array(columns, dtype=np.int32), np.array(values)
            parsed.entries.append(entries)
        elif lines:
            parsed.dense.append(np.array(values).reshape(len(lines), len(self.converters)))
        parsed.lines.add(np.array(lines, dtype=np.int64))


def read_rows(path: Path, blocks: Iterable[Block], attributes: Sequence[Attribute], data_line: int) -> Rows:
    """Parse every data row, plain blocks at C speed; the first row decides whether the file is sparse.

    Raises :class:`UserError`.
    """
    careful = _Careful(path, attributes, data_line)
    parsed = Rows()
    kinds: Kinds | None = None
    for block in blocks:
        if parsed.sparse or (not len(parsed.lines) and block.data.lstrip(b" \t\r\n").startswith(b"{")):
            kinds = attribute_kinds(attributes) if kinds is None else kinds
            entries = sparse_values(block.data, attributes, block.stream.max_line, kinds)
            if entries is None:
                careful.read(block, parsed)
                continue
            if not len(parsed.lines):
                parsed.sparse, careful.first_sparse = True, block.first + int(entries[3][0])
            parsed.entries.append(entries[:3])
            parsed.lines.add(block.first + entries[3])
            continue
        plain = None if parsed.sparse else dense_values(block.data, attributes, block.stream.max_line)
        if plain is None:
            careful.read(block, parsed)
        else:
            parsed.dense.append(plain[0])
            parsed.lines.add(block.first + plain[1])
    if careful.first_error is not None:
        raise careful.first_error
    return parsed


def _fast_row(row: str, fast: Sequence[Callable[[str], float]]) -> tuple[list[int] | None, list[float]]:
    """A row of plain numbers and nominal names; raises ValueError/KeyError/IndexError for anything else."""
    if row.startswith("{"):
        parts = row[1:-1].replace(",", " ").split()
        if not parts:
            return [], []
        indices = [int(index) for index in parts[0::2]]
        if len(parts) % 2 or indices != sorted(set(indices)) or indices[-1] >= len(fast) or indices[0] < 0:
            raise ValueError(row)
        return indices, [fast[i](value) for i, value in zip(indices, parts[1::2])]
    parts = row.replace(",", " ").split()
    if len(parts) != len(fast):
        raise ValueError(row)
    return None, [convert(value) for convert, value in zip(fast, parts)]


def _careful_row(
    path: Path, number: int, row: str, converters: Sequence[Converter], names: Sequence[str]
) -> tuple[list[int] | None, list[float]]:
    """Any row, every value checked: the slow path, which also names what is wrong."""
    values = _split(path, number, row)
    try:
        if row.startswith("{"):
            return _sparse_row(path, number, row, values, converters, names)
        return None, _dense_row(path, number, values, converters, names)
    except _BadValue as bad:
        raise bad.error(path, number) from None


def _split(path: Path, number: int, row: str) -> list[tuple[str, bool]]:
    """The row's values as (text, quoted) pairs; braces dropped (a sparse row is checked before)."""
    if _SPECIAL.search(row) is None:
        return [(value, False) for value in _SEPARATORS.split(row.strip("{}")) if value]
    try:
        return [(token.text, token.quoted) for token in tokens(row) if not token.brace]
    except UnterminatedQuote:  # check_row has refused these already
        raise UserError("unterminated quote", path=path, line=number) from None


def _dense_row(
    path: Path, number: int, values: Sequence[tuple[str, bool]], converters: Sequence[Converter], names: Sequence[str]
) -> list[float]:
    if len(values) != len(converters):
        raise UserError(
            f"malformed data row: {len(values)} values, but {len(converters)} attributes are declared",
            path=path, line=number, hint="give one value per attribute, ? for a missing one",
        )
    return [_value(converters[i], names[i], text, quoted) for i, (text, quoted) in enumerate(values)]


def _sparse_row(
    path: Path, number: int, row: str, values: Sequence[tuple[str, bool]], converters: Sequence[Converter],
    names: Sequence[str],
) -> tuple[list[int], list[float]]:
    if len(values) % 2:
        raise UserError(
            "malformed sparse row: an index without a value", path=path, line=number,
            hint="a sparse row is {index value, index value, ...}",
        )
    problem = sparse_index_problem(row, len(converters))
    if problem is not None:
        raise UserError(problem[0], path=path, line=number, hint=problem[1])
    indices, parsed = [], []
    for position in range(0, len(values), 2):
        index_text, value_text = values[position][0], values[position + 1]
        if not index_text.isdigit() or int(index_text) >= len(converters):
            raise UserError(
                f"sparse entry for attribute index {index_text}, but the indices run 0..{len(converters) - 1}",
                path=path, line=number, hint="sparse indices count the attributes from 0",
            )
        index = int(index_text)
        indices.append(index)
        parsed.append(_value(converters[index], names[index], *value_text))
    return indices, parsed


class _BadValue(Exception):
    def __init__(self, message: str, hint: str):
        super().__init__(message)
        self.hint = hint

    def error(self, path: Path, number: int) -> UserError:
        return UserError(str(self), path=path, line=number, hint=self.hint)


def _value(converter: Converter, name: str, text: str, quoted: bool) -> float:
    if text == "?" and not quoted:
        return _MISSING
    return converter(name, text)


def _number(name: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is not None and value - value == 0 and "_" not in text:  # finite: Python and Java agree
        return value
    if _JAVA_NUMBER.fullmatch(text) is None:
        raise _BadValue(
            f"value '{text}' of numeric attribute '{name}' is not a number", "use a number, or ? for missing"
        )
    if "NaN" in text:
        return _MISSING
    return float(text.rstrip("fFdD").replace("Infinity", "inf"))


def _nominal(declared: list[str]) -> Converter:
    index = {value: float(i) for i, value in enumerate(declared)}
    shown = ",".join(map(str, declared))

    def convert(name: str, text: str) -> float:
        try:
            return index[text]
        except KeyError:
            raise _BadValue(
                f"value '{text}' of attribute '{name}' is not one of its declared values {{{shown}}}",
                "correct the value or add it to the @attribute declaration",
            ) from None

    return convert
