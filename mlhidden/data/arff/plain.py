"""Blocks of plain dense data rows parsed at C speed by pandas' CSV parser (faster than numpy's conversion of
text to numbers); None where a row needs :mod:`.rows`' line-by-line care.

A block is plain when its bytes hold only what :mod:`.rows`' fast path reads the same way: printable ASCII
numbers and nominal names separated by spaces, tabs, commas or carriage returns, one row a line, every line a
row. Anything else (quotes, comments, escapes, ``?``, braces, ``@``, blank lines, control characters, the
letters of ``nan``/``inf``/``NaN``/``Infinity``, which Python's float reads and Java's does not, a value that
is not a number or a declared name, a row of the wrong width, an overlong line) makes the whole block fall
back, so every refusal comes from the one careful path, worded and placed as before.

Numbers are read by pandas as Python's ``float`` reads them, to the bit: pandas from 3.1 has one correctly
rounded converter, and before it ``round_trip`` is the one that is.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from mlhidden.data.arff.lines import Attribute

_SEPARATORS = b",\r"
_REFUSED = b"'\"%\\?@{}nNiI_" + bytes(range(0x20)).replace(b"\t", b"").replace(b"\n", b"").replace(b"\r", b"")
_REFUSED += bytes(range(0x7F, 0x100))
_BLANK = np.frombuffer(b" \t\r\n", dtype=np.uint8)
_TO_SPACE = bytes.maketrans(_SEPARATORS, b" " * len(_SEPARATORS))
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
