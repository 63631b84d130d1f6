"""Blocks of plain data rows parsed at C speed by pandas' CSV parser, dense ones as a table, sparse ones as their
tokens one a line; None where a row needs :mod:`.rows`' line-by-line care.

A dense block is plain when its bytes hold only what :mod:`.rows`' fast path reads the same way: printable ASCII
numbers and nominal names separated by spaces, tabs, commas or carriage returns, one row a line, every line a
row. Anything else (quotes, comments, escapes, ``?``, braces, ``@``, blank lines, control characters, the
letters of ``nan``/``inf``/``NaN``/``Infinity``, which Python's float reads and Java's does not, a value that
is not a number or a declared name, a row of the wrong width, an overlong line) makes the whole block fall
back, so every refusal comes from the one careful path, worded and placed as before.

A sparse block is plain when it holds only digits, ``.+-eE``, braces, spaces, tabs, commas and line ends, every
line blank or one ``{index value, ...}`` row, each index digits only, increasing within its row and below the
number of attributes, each value a number (for a numeric attribute) or a declared name. pandas reads the tokens
as text (factorized: each distinct token once, with a code for each place it stands), and each distinct token
is read once, by Python's ``int``, by ``float`` or as its name's index: the careful path's reading, to the bit.
Most of a sparse section's tokens repeat (the same indices, the same values), so few are read at all. A block
of digits alone, as the real files' are, is read faster still, as integers by numpy's C parser: a token without
a leading zero and of at most 15 digits is the text of its integer, so its value (Python's ``float`` of it, or a
declared name's index) follows from the integer; the digits counted prove that every token is such a token. So is
a block whose every dot ends a numeric value in ``.0`` (``1.0``, as :func:`~mlhidden.data.arff.write.write_arff`
writes a number), each ``.0`` read as a mark after its value. A
dense block of digits alone (counts, 0/1 features) is read the same way, each of its lines counted to hold one token
for each attribute.

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
_NOT_DIGITS = b"{} ,\t\r\n"
_TO_SPACES = bytes.maketrans(b"},\t\r\n", b"     ")
_POWERS_OF_TEN = 10 ** np.arange(1, 16, dtype=np.int64)
_LARGEST_NAME = 1 << 16
_COUNTING = tuple(map(str, range(16)))
_DIGIT = np.zeros(256, dtype=bool)
_DIGIT[list(b"0123456789")] = True
_ROW_MARK = ";"
_TO_TOKEN_LINES = bytes.maketrans(b"{},\t\r \n", b"\n\n\n\n\n\n" + _ROW_MARK.encode())
Kinds = tuple[list[tuple[str, ...] | None], np.ndarray]
"""The distinct kinds of a file's attributes and each attribute's kind (:func:`attribute_kinds`)."""
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
    digits = data.translate(None, _NOT_DIGITS)
    if digits.isdigit():
        integers = _integer_table(data, len(digits), codes, starts[lines], ends[lines], len(attributes))
        if integers is not None:
            values = _named_columns(integers, attributes)
            return None if values is None else (values, lines)
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
    data: bytes, attributes: Sequence[Attribute], max_line: int, kinds: Kinds | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """The sparse rows of ``data`` (whole lines, each blank or a row) as each row's count of entries, the entries'
    attribute indices (int32: no header declares 2**31 attributes) and values (a nominal's the index of its declared
    name), and each row's line within ``data`` (from 0); None unless every row is plain (see the module's docstring).
    ``kinds`` is :func:`attribute_kinds` of ``attributes``, which a reader of many blocks finds once."""
    digits = data.translate(None, _NOT_DIGITS)
    only_digits = digits.isdigit()  # digits alone between the marks: nothing the refused bytes hold
    if not data or not only_digits and data.translate(None, _SPARSE_REFUSED) != data:
        return None
    rows = _row_lines(data)
    if rows is None or (max_line and len(data) > max_line and _longest_line(data) > max_line):
        return None
    kinds = attribute_kinds(attributes) if kinds is None else kinds
    if only_digits:
        numbers = _integers(data, len(digits))
        entries = None if numbers is None else _integer_entries(numbers, rows, len(attributes), kinds)
    else:
        entries = _whole_decimals(data, digits, rows, len(attributes), kinds)
    if entries is not None:
        return entries
    if len(rows) <= data.count(b"\n"):  # blank lines: dropped, so that one mark leads each row
        data = b"\n".join(line for line in data.split(b"\n") if line.strip(b" \t\r"))
    tokens = _tokens(data)
    if tokens is None:
        return None
    codes, texts = tokens
    paired = _pairs(codes, codes == texts.index(_ROW_MARK), rows)
    if paired is None:
        return None
    counts, index_codes, value_codes = paired
    table = np.array([int(text) if text.isdigit() and len(text) < 19 else -1 for text in texts] or [-1], dtype=np.int64)
    indices = _checked_indices(table[index_codes], counts, len(attributes))
    if indices is None:
        return None
    values = _values(texts, value_codes, indices, kinds)
    return None if values is None else (counts, indices.astype(np.int32), values, rows)


def _pairs(
    tokens: np.ndarray, is_mark: np.ndarray, rows: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The tokens (each row's led by a mark) as each row's count of entries, and each entry's index token and value
    token; None where a row has an index without a value (in rows of pairs every index stands at an even place)."""
    marks = np.flatnonzero(is_mark)
    counts = np.diff(np.append(marks, len(tokens))) - 1
    if len(marks) != len(rows) or (counts % 2).any():
        return None
    pairs = tokens[~is_mark]
    return counts // 2, pairs[0::2], pairs[1::2]


def _integers(data: bytes, digits: int) -> np.ndarray | None:
    """A block of ``digits`` digits, braces and separators as its tokens' integers, each row's led by -1; None
    unless every token is the text of its integer (no leading zero, at most 15 digits), which the digits counted
    prove: a token's digits are at least its integer's, and as many only when it is that text."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            numbers = np.fromstring(data.replace(b"{", b" -1 ").translate(_TO_SPACES), dtype=np.int64, sep=" ")
        except (ValueError, Warning):
            return None
    tokens = numbers[numbers >= 0]
    largest = int(tokens.max()) if len(tokens) else 0
    if largest >= _POWERS_OF_TEN[-1]:
        return None
    powers = _POWERS_OF_TEN[:len(str(largest)) - 1]
    canonical = len(tokens) + sum(int(np.count_nonzero(tokens >= power)) for power in powers)
    return numbers if canonical == digits else None


def _whole_decimals(
    data: bytes, digits: bytes, rows: np.ndarray, width: int, attribute_kinds: Kinds
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`sparse_values` of a block of digits whose every ``.`` ends a numeric value in ``.0`` (``{3 1.0,17
    2.0}``, as :func:`~mlhidden.data.arff.write.write_arff` writes one): each ``.0`` becomes a token -2 after its
    value, the block is read by :func:`_integers` and :func:`_integer_entries`, and each value so marked is Python's
    ``float`` of its integer, which is that of its text. None where a ``.`` stands anywhere else, or a value so
    spelled is a nominal's or an index (read as text, they are refused or named as written)."""
    whole = digits.replace(b".", b"")
    if not whole.isdigit() or len(whole) == len(digits):
        return None
    marked = data.replace(b".0,", b" -2,").replace(b".0}", b" -2}")
    decimals = len(marked) - len(data)
    if decimals != len(digits) - len(whole):
        return None
    numbers = _integers(marked, len(whole) - decimals)
    if numbers is None:
        return None
    is_decimal = numbers == -2
    after = np.flatnonzero(is_decimal) - 1
    if (numbers[after] < 0).any():
        return None
    tokens = numbers[~is_decimal]
    entries = _integer_entries(tokens, rows, width, attribute_kinds)
    if entries is None:
        return None
    decimal = np.zeros(len(tokens), dtype=bool)
    decimal[after - np.arange(len(after))] = True
    decimal = decimal[tokens >= 0]
    kinds, kind_of = attribute_kinds
    if decimal[0::2].any() or any(kinds[kind] is not None for kind in np.unique(kind_of[entries[1][decimal[1::2]]])):
        return None
    return entries


def _integer_table(
    data: bytes, digits: int, codes: np.ndarray, starts: np.ndarray, ends: np.ndarray, width: int
) -> np.ndarray | None:
    """A dense block of ``digits`` digits and separators, its rows the lines from ``starts`` to ``ends``, as a
    (rows, ``width``) table of its tokens' integers; None unless each row has ``width`` tokens, each the text of
    its integer (:func:`_integers`)."""
    is_digit = _DIGIT[codes]
    first = is_digit.copy()
    first[1:] &= ~is_digit[:-1]
    tokens = np.concatenate(([0], np.cumsum(first, dtype=np.int64)))
    if ((tokens[ends] - tokens[starts]) != width).any():
        return None
    numbers = _integers(data, digits)
    return None if numbers is None else numbers.reshape(len(starts), width)


def _named_columns(integers: np.ndarray, attributes: Sequence[Attribute]) -> np.ndarray | None:
    """A table of integers as :func:`dense_values` gives it: a numeric column's each Python's ``float`` of its text,
    a nominal's the index of the declared name that is its text; None if one names none."""
    values = integers.astype(np.float64)
    for column, (_, kind) in enumerate(attributes):
        if isinstance(kind, list):
            named = _named(integers[:, column], kind)
            if named is None:
                return None
            values[:, column] = named
    return None if np.isnan(values).any() else values


def _named(integers: np.ndarray, declared: Sequence[str]) -> np.ndarray | None:
    """Each integer as the index of the declared name that is its text, NaN where none is; None where a name is an
    integer too large for a table of them."""
    names = {int(name): i for i, name in enumerate(declared) if name.isascii() and name.isdigit()
             and str(int(name)) == name}
    if max(names, default=0) >= _LARGEST_NAME:
        return None
    table = np.full(max(names, default=0) + 2, np.nan)  # the last: any integer that names no value
    table[list(names)] = list(names.values())
    named: np.ndarray = table[np.minimum(integers, len(table) - 1)]
    return named


def _integer_entries(
    numbers: np.ndarray, rows: np.ndarray, width: int, attribute_kinds: Kinds
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`sparse_values` of a block read by :func:`_integers`: each value Python's ``float`` of its text, or
    the index of the declared name that is its text."""
    paired = _pairs(numbers, numbers < 0, rows)
    if paired is None:
        return None
    counts, indices, integers = paired
    if _checked_indices(indices, counts, width) is None:
        return None
    kinds, kind_of = attribute_kinds[0], attribute_kinds[1][indices]
    used = np.flatnonzero(np.bincount(kind_of, minlength=len(kinds))).tolist()
    values = integers.astype(np.float64)
    for kind in used:
        declared = kinds[kind]
        if declared is not None:
            at = slice(None) if len(used) == 1 else np.flatnonzero(kind_of == kind)
            if declared == _COUNTING[:len(declared)]:  # names 0, 1, ...: each integer is its name's index
                if integers[at].max() >= len(declared):
                    return None
                continue
            named = _named(integers[at], declared)
            if named is None:
                return None
            values[at] = named
    return None if np.isnan(values).any() else (counts, indices.astype(np.int32), values, rows)


def _longest_line(data: bytes) -> int:
    newlines = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == ord("\n"))
    return int(np.diff(np.concatenate(([-1], newlines, [len(data)]))).max()) - 1


def _tokens(data: bytes) -> tuple[np.ndarray, list[str]] | None:
    """Every token of ``data`` in order, each row's led by the mark ``;``, read one a line by pandas' C parser as
    text: codes into the distinct tokens' texts (``pandas.factorize``, by hash; pandas' categories sort and infer
    them, much slower where most values differ, as Reuters-K500's)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            column = pd.read_csv(
                io.BytesIO(_ROW_MARK.encode() + data.translate(_TO_TOKEN_LINES)), header=None, names=["token"],
                dtype=str, engine="c", na_filter=False, skip_blank_lines=True,
            )["token"].to_numpy()
    except (ValueError, pd.errors.ParserError, Warning):
        return None
    codes, distinct = pd.factorize(column)
    texts = distinct.tolist()
    return (codes, texts) if all(isinstance(text, str) for text in texts) else None


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


def _checked_indices(indices: np.ndarray, counts: np.ndarray, width: int) -> np.ndarray | None:
    """The attribute indices if each is digits only (not -1), below ``width`` and increasing within its row (``counts``:
    each row's entries)."""
    if not len(indices):
        return indices
    if indices.min() < 0 or indices.max() >= width:
        return None
    rising = indices[1:] > indices[:-1]
    starts = np.cumsum(counts)[:-1]
    rising[starts[(starts > 0) & (starts < len(indices))] - 1] = True  # a row's first index follows another row's
    return indices if rising.all() else None


def attribute_kinds(attributes: Sequence[Attribute]) -> Kinds:
    """The distinct kinds of attribute (a nominal's declared names, None for numeric) and each attribute's kind."""
    kinds: dict[tuple[str, ...] | None, int] = {}
    kind_of = np.array(
        [kinds.setdefault(tuple(kind) if isinstance(kind, list) else None, len(kinds)) for _, kind in attributes],
        dtype=np.intp,
    )
    return list(kinds), kind_of


def _values(texts: list[str], codes: np.ndarray, indices: np.ndarray, attribute_kinds: Kinds) -> np.ndarray | None:
    """The value tokens read as their attribute reads them, a number as Python's float and a nominal as its
    declared name's index, each distinct token converted once for each kind of attribute that reads it. None if
    one is neither."""
    kinds, kind_of = attribute_kinds[0], attribute_kinds[1][indices]
    used = np.flatnonzero(np.bincount(kind_of, minlength=len(kinds))).tolist()
    if len(used) * len(texts) > 4 * len(codes) + 4096:  # many kinds of nominal: the careful path is no slower
        return None
    converters = [_converter(declared) for declared in kinds]
    table = np.full((len(kinds), max(len(texts), 1)), np.nan)
    for kind in used:
        table[kind, :len(texts)] = [converters[kind](text) for text in texts]
    values = table[used[0]][codes] if len(used) == 1 else table[kind_of, codes]
    return None if np.isnan(values).any() else values


def _converter(declared: tuple[str, ...] | None) -> Callable[[str], float]:
    """A token's value for an attribute that declares the nominal names ``declared`` (None: numeric); NaN where the
    attribute cannot read it."""
    if declared is not None:
        names = {name: float(i) for i, name in enumerate(declared)}
        return lambda text: names.get(text, np.nan)

    def number(text: str) -> float:
        try:
            return float(text)
        except ValueError:
            return np.nan

    return number
