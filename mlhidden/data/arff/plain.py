"""Blocks of plain data rows parsed at C speed, dense ones by pandas' CSV parser (faster than numpy's conversion
of text to numbers), sparse ones by numpy on the whole block; None where a row needs :mod:`.rows`' line-by-line
care.

A dense block is plain when its bytes hold only what :mod:`.rows`' fast path reads the same way: printable ASCII
numbers and nominal names separated by spaces, tabs, commas or carriage returns, one row a line, every line a
row. Anything else (quotes, comments, escapes, ``?``, braces, ``@``, blank lines, control characters, the
letters of ``nan``/``inf``/``NaN``/``Infinity``, which Python's float reads and Java's does not, a value that
is not a number or a declared name, a row of the wrong width, an overlong line) makes the whole block fall
back, so every refusal comes from the one careful path, worded and placed as before.

A sparse block is plain when it holds only digits, ``.+-eE``, braces, spaces, tabs, commas and line ends, every
line blank or one ``{index value, ...}`` row, each index a run of at most 8 digits, increasing within its row and
below the number of attributes, each value a number (for a numeric attribute) or a declared name. Each distinct
value is read once, by Python's ``float`` or as its name's index: the careful path's reading, to the bit. pandas'
parser reads the same tokens one a line about 4 times as fast, with none of these checks
(``benchmarks/arff_read.py``): the next step if the data section is still too slow.

Numbers are read by pandas as Python's ``float`` reads them, to the bit: pandas from 3.1 has one correctly
rounded converter, and before it ``round_trip`` is the one that is.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from mlhidden.data.arff.lines import Attribute

_SEPARATORS = b",\r"
_REFUSED = b"'\"%\\?@{}nNiI_" + bytes(range(0x20)).replace(b"\t", b"").replace(b"\n", b"").replace(b"\r", b"")
_REFUSED += bytes(range(0x7F, 0x100))
_BLANK = np.frombuffer(b" \t\r\n", dtype=np.uint8)
_TO_SPACE = bytes.maketrans(_SEPARATORS, b" " * len(_SEPARATORS))
_SPARSE_REFUSED = bytes(sorted(set(range(0x100)) - set(b"0123456789.+-eE{} ,\t\r\n")))
_WORD = np.ones(0x100, dtype=bool)
_WORD[list(b" \t\r\n,{}")] = False
_WINDOW = 8
_ROUND_TRIP = {} if tuple(map(int, pd.__version__.split(".")[:2])) >= (3, 1) else {"float_precision": "round_trip"}


def dense_values(data: bytes, attributes: Sequence[Attribute], max_line: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The rows of ``data`` (whole lines) as a (rows, attributes) float64 array, nominal values as the index of
    their declared name, and each row's line within ``data`` (from 0: blank lines are skipped); None unless the
    block is plain (see the module's docstring)."""
    if not data or data.translate(None, _REFUSED) != data:
        return None
    codes = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(codes == ord("\n"))
    starts = np.concatenate(([0], ends + 1))
    ends = np.append(ends, len(data))
    if max_line and len(data) > max_line and (ends - starts).max() > max_line:
        return None
    filled = np.concatenate(([0], np.cumsum(np.isin(codes, _BLANK, invert=True))))
    lines = np.flatnonzero(filled[ends] > filled[starts])  # a comma is not blank: a row of commas is refused
    dtypes = {
        column: pd.CategoricalDtype(kind) if isinstance(kind, list) else np.float64
        for column, (_, kind) in enumerate(attributes)
    }
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            frame = pd.read_csv(
                io.BytesIO(data.translate(_TO_SPACE)), header=None, sep=r"\s+", engine="c", dtype=dtypes,
                na_filter=False, skip_blank_lines=True, **_ROUND_TRIP,
            )
    except (ValueError, pd.errors.ParserError, Warning):
        return None
    if frame.shape != (len(lines), len(attributes)):
        return None
    values = np.empty(frame.shape)
    for column, (_, kind) in enumerate(attributes):
        if isinstance(kind, list):
            codes = frame[column].cat.codes.to_numpy()
            if (codes < 0).any():
                return None
            values[:, column] = codes
        else:
            values[:, column] = frame[column].to_numpy(dtype=np.float64)
    return None if np.isnan(values).any() else (values, lines)




def sparse_values(
    data: bytes, attributes: Sequence[Attribute], max_line: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """The sparse rows of ``data`` (whole lines, each blank or a row) as COO triplets (each entry's row within the
    block, attribute index, value: a nominal's the index of its declared name) and each row's line within
    ``data`` (from 0); None unless every row is plain (see the module's docstring)."""
    if not data or data.translate(None, _SPARSE_REFUSED) != data:
        return None
    rows = _row_lines(data)
    codes = np.frombuffer(data, dtype=np.uint8)
    newlines = np.flatnonzero(codes == ord("\n"))
    if rows is None or (max_line and len(data) > max_line and _longest_line(newlines, len(data)) > max_line):
        return None
    word = _WORD[codes]
    bounds = np.flatnonzero(word[1:] != word[:-1]) + 1  # a row starts and ends with a brace: no word at either end
    starts, ends = bounds[0::2], bounds[1::2]
    if len(starts) % 2:
        return None
    index_lines = np.searchsorted(newlines, starts[0::2])
    if (index_lines != np.searchsorted(newlines, starts[1::2])).any():  # an index without a value
        return None
    entry_rows = np.searchsorted(rows, index_lines)
    padded = np.append(codes, np.zeros(_WINDOW, np.uint8))
    indices = _indices(padded, starts[0::2], ends[0::2], entry_rows, len(attributes))
    if indices is None:
        return None
    windows = np.lib.stride_tricks.sliding_window_view(padded, _WINDOW)
    values = _values(data, windows, starts[1::2], ends[1::2], indices, attributes)
    return None if values is None else (entry_rows, indices, values, rows)


def _longest_line(newlines: np.ndarray, size: int) -> int:
    return int(np.diff(np.concatenate(([-1], newlines, [size]))).max()) - 1


def _row_lines(data: bytes) -> np.ndarray | None:
    """The lines (from 0) that are not blank, each of which must be ``{...}`` with no other brace; None if not."""
    compact = np.frombuffer(data.translate(None, b" \t\r"), dtype=np.uint8)
    newlines = np.flatnonzero(compact == ord("\n"))
    starts, ends = np.concatenate(([0], newlines + 1)), np.append(newlines, len(compact))
    rows = np.flatnonzero(ends > starts)
    if not len(rows) or data.count(b"{") != len(rows) or data.count(b"}") != len(rows):
        return None
    if (compact[starts[rows]] != ord("{")).any() or (compact[ends[rows] - 1] != ord("}")).any():
        return None
    return rows


def _indices(
    padded: np.ndarray, starts: np.ndarray, ends: np.ndarray, rows: np.ndarray, width: int
) -> np.ndarray | None:
    """The index tokens as attribute indices: at most 8 digits, below ``width``, increasing within each row."""
    lengths = ends - starts
    longest = int(lengths.max(initial=0))
    if longest > _WINDOW:
        return None
    indices = np.zeros(len(starts), dtype=np.int64)
    for position in range(longest):
        digits = padded[starts + position] - np.uint8(ord("0"))
        within = lengths > position
        if (within & (digits > 9)).any():
            return None
        indices = np.where(within, indices * 10 + digits, indices)
    if len(indices) and (indices.max() >= width or (np.diff(indices)[rows[1:] == rows[:-1]] <= 0).any()):
        return None
    return indices


def _values(
    data: bytes, windows: np.ndarray, starts: np.ndarray, ends: np.ndarray, indices: np.ndarray,
    attributes: Sequence[Attribute],
) -> np.ndarray | None:
    """The value tokens read as their attribute reads them, a number as Python's float and a nominal as its
    declared name's index, each distinct token converted once (tokens of up to 8 bytes are told apart as one
    integer, longer ones are read one by one). None if one is neither."""
    kinds: dict[tuple[str, ...] | None, int] = {}
    kind_of = np.array(
        [kinds.setdefault(tuple(kind) if isinstance(kind, list) else None, len(kinds)) for _, kind in attributes],
        dtype=np.intp,
    )[indices]
    lengths = ends - starts
    short = lengths <= _WINDOW
    keys = windows[starts[short]].view(">u8").ravel() >> (8 * (_WINDOW - lengths[short])).astype(np.uint64)
    distinct = np.unique(keys)
    inverse = np.searchsorted(distinct, keys)
    used = sorted(set(np.unique(kind_of).tolist()))
    if len(used) * len(distinct) > 4 * len(starts) + 4096:  # many kinds of nominal: the careful path is no slower
        return None
    texts = [int(key).to_bytes(_WINDOW, "big").lstrip(b"\0") for key in distinct]
    converters = [_converter(declared) for declared in kinds]
    table = np.full((len(kinds), len(distinct)), np.nan)
    for kind in used:
        table[kind] = [converters[kind](text) for text in texts]
    values = np.empty(len(starts))
    values[short] = table[kind_of[short], inverse]
    for entry in np.flatnonzero(~short).tolist():
        values[entry] = converters[kind_of[entry]](data[starts[entry]:ends[entry]])
    return None if np.isnan(values).any() else values


def _converter(declared: tuple[str, ...] | None) -> Callable[[bytes], float]:
    """A token's value for an attribute that declares the nominal names ``declared`` (None: numeric); NaN where the
    attribute cannot read it."""
    if declared is not None:
        names = {name.encode(): float(i) for i, name in enumerate(declared)}
        return lambda text: names.get(text, np.nan)

    def number(text: bytes) -> float:
        try:
            return float(text)
        except ValueError:
            return np.nan

    return number
