"""How parsed ARFF values become ``X`` and ``Y``: one-hot or 0/1 nominal columns, checked labels and values."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from mlhidden.data.arff.lines import Attribute, Layout
from mlhidden.errors import UserError

_BINARY_NAMES = {"0": 0.0, "1": 1.0}


@dataclass(frozen=True)
class Column:
    """How one attribute becomes output columns.

    ``kind`` is "numeric" (value as is), "binary" (a nominal whose declared names are 0/1, mapped
    by name through ``values``) or "onehot" (one column per declared value).
    """

    kind: str
    width: int
    values: tuple[float, ...] | tuple[str, ...] = ()


_NUMERIC = Column("numeric", 1)


def column_for(path: Path, layout: Layout, index: int, attribute: Attribute, is_label: bool) -> Column:
    """Decide how attribute ``index`` is encoded; labels must be numeric or nominal with names 0/1."""
    name, kind = attribute
    if not isinstance(kind, list):
        return _NUMERIC
    column = _nominal_column(tuple(kind), is_label)
    if column is None:
        raise UserError(
            f"label attribute '{name}' is nominal {{{','.join(kind)}}}; "
            "labels must be binary: nominal {0,1} or numeric 0/1",
            path=path,
            line=layout.attribute_lines[index],
        )
    return column


@functools.lru_cache(maxsize=256)
def _nominal_column(kind: tuple[str, ...], is_label: bool) -> Column | None:
    """How a nominal attribute declaring the names ``kind`` is encoded, None for a label not binary; found once for
    each distinct declaration (a header of thousands of ``{0,1}`` attributes has one)."""
    binary = set(kind) <= set(_BINARY_NAMES)
    if is_label and not binary:
        return None
    if binary and (is_label or len(kind) == 2):
        return Column("binary", 1, tuple(_BINARY_NAMES[v] for v in kind))
    return Column("onehot", len(kind), kind)


def encoded_names(attributes: Sequence[Attribute], columns: Sequence[Column], selected: Iterable[int]) -> Iterator[str]:
    for i in selected:
        name = attributes[i][0]
        if columns[i].kind == "onehot":
            yield from (f"{name}={value}" for value in columns[i].values)
        else:
            yield name


def encode(stored: sp.csr_matrix, columns: Sequence[Column], selected: Sequence[int]) -> sp.csr_matrix:
    """Encode the attributes ``selected`` (in that order) of sparse data, stored as read (every attribute, explicit
    zeros kept: :meth:`~mlhidden.data.arff.rows.Rows.stored`), into a float64 CSR matrix.

    Entries absent from sparse data stand for the declared index 0 (Weka's convention), which for
    a nominal can be a non-zero output, e.g. a binary declared {1,0}; those are filled in.
    """
    chosen = [columns[i] for i in selected]
    if all(column.kind == "numeric" or column.values == (0.0, 1.0) for column in chosen):
        picked = _picked(stored, selected)
        if not np.isnan(picked.data).any():  # each value is its output, in its attribute's column
            picked.eliminate_zeros()
            return picked
    n_rows = stored.shape[0]
    every_row = np.repeat(np.arange(n_rows), np.diff(stored.indptr))
    slot = np.full(len(columns), -1, dtype=np.int64)
    slot[selected] = np.arange(len(selected))
    slots = slot[stored.indices]
    keep = slots >= 0
    rows, slots, values = every_row[keep], slots[keep], stored.data[keep]
    widths = np.array([column.width for column in chosen], dtype=np.int64)
    offsets = np.cumsum(widths) - widths
    binary = np.array([column.kind == "binary" for column in chosen])[slots]
    onehot = np.array([column.kind == "onehot" for column in chosen])[slots]
    missing = np.isnan(values)
    codes = np.zeros(len(values), dtype=np.int64)
    codes[(binary | onehot) & ~missing] = values[(binary | onehot) & ~missing]

    names_as_values = np.full((len(chosen), 2), np.nan)
    for position, column in enumerate(chosen):
        if column.kind == "binary":
            names_as_values[position, : len(column.values)] = column.values
    named = binary & ~missing
    values = values.copy()
    values[named] = names_as_values[slots[named], codes[named]]

    single = ~onehot | ~missing
    out_rows = [rows[single]]
    out_cols = [offsets[slots[single]] + np.where(onehot, codes, 0)[single]]
    out_values = [np.where(onehot, 1.0, values)[single]]

    unknown = ~single
    repeats = widths[slots[unknown]]
    within = np.arange(repeats.sum()) - np.repeat(np.cumsum(repeats) - repeats, repeats)
    out_rows.append(np.repeat(rows[unknown], repeats))
    out_cols.append(np.repeat(offsets[slots[unknown]], repeats) + within)
    out_values.append(np.full(repeats.sum(), np.nan))

    for position, column in enumerate(chosen):
        implicit = _implicit_output(column)
        if implicit is not None:
            unset = np.setdiff1d(np.arange(n_rows), rows[slots == position])
            out_rows.append(unset)
            out_cols.append(np.full(len(unset), offsets[position]))
            out_values.append(np.full(len(unset), implicit))

    return _csr(
        np.concatenate(out_values), np.concatenate(out_rows), np.concatenate(out_cols), (n_rows, int(widths.sum()))
    )


def _picked(stored: sp.csr_matrix, selected: Sequence[int]) -> sp.csr_matrix:
    """The columns ``selected`` of ``stored``, a copy, each row's sorted. A run of them (MEKA's labels, first or last,
    and the features beside them) is a slice, which scipy cuts row by row in C."""
    first = selected[0] if len(selected) else 0
    if list(selected) == list(range(first, first + len(selected))):
        return stored[:, first:first + len(selected)]
    picked = stored[:, list(selected)]
    picked.sort_indices()
    return picked


def _csr(values: np.ndarray, rows: np.ndarray, columns: np.ndarray, shape: tuple[int, int]) -> sp.csr_matrix:
    """Distinct (row, column) entries as a float64 CSR matrix, zeros dropped and each row's columns sorted."""
    matrix = sp.csr_matrix((values, (rows, columns)), shape=shape, dtype=np.float64)
    matrix.eliminate_zeros()
    matrix.sort_indices()
    return matrix


def encode_dense(blocks: Sequence[np.ndarray], columns: Sequence[Column], selected: Sequence[int]) -> np.ndarray:
    """Encode the attributes ``selected`` (in that order) of dense data, blocks of (rows, attributes) values, into
    one float64 array, filled block by block (no copy of all the values at once).

    What :func:`encode` gives densified, to the bit: a zero is +0.0 and a missing nominal NaN in all its columns.
    """
    chosen = [columns[i] for i in selected]
    widths = [column.width for column in chosen]
    out = np.zeros((sum(len(block) for block in blocks), sum(widths)))
    start = 0
    for block in blocks:
        rows = slice(start, start + len(block))
        offset = 0
        for attribute, column in zip(selected, chosen, strict=True):
            values = block[:, attribute]
            if column.kind == "numeric":
                out[rows, offset] = values + 0.0  # -0.0 becomes 0.0, as a sparse matrix drops it
            elif column.kind == "binary":
                named = np.append(np.asarray(column.values, dtype=np.float64), np.nan)
                out[rows, offset] = named[np.where(np.isnan(values), len(column.values), values).astype(np.intp)]
            else:
                part = out[rows, offset:offset + column.width]
                missing = np.isnan(values)
                part[~missing, values[~missing].astype(np.intp)] = 1.0
                part[missing] = np.nan
            offset += column.width
        start += len(block)
    return out


def _implicit_output(column: Column) -> float | None:
    """The non-zero value an omitted sparse entry of this column stands for (None when it is 0)."""
    if column.kind == "onehot":
        return 1.0
    if column.kind == "binary" and column.values[0] != 0.0:
        return float(column.values[0])
    return None


def check_binary(path: Path, layout: Layout, Y: np.ndarray | sp.csr_matrix, label_names: Sequence[str]) -> None:
    """Every label value must be 0 or 1: report the first one that is not (in row order), with its line. A sparse
    file's labels are checked as they are stored, without a dense float copy (Delicious': 983 columns)."""
    stored = Y if isinstance(Y, sp.csr_matrix) else None
    values = stored.data if stored is not None else np.asarray(Y)
    bad = np.flatnonzero(~((values == 0) | (values == 1)))
    if not len(bad):
        return
    if stored is not None:
        row, label = int(np.searchsorted(stored.indptr, bad[0], side="right")) - 1, int(stored.indices[bad[0]])
    else:
        row, label = divmod(int(bad[0]), Y.shape[1])
    value = Y[row, label]
    shown = "missing (?)" if np.isnan(value) else f"{value:g}"
    raise UserError(
        f"label '{label_names[label]}' has value {shown} in data row {row + 1}; labels must be 0 or 1",
        path=path,
        line=layout.row_lines[row],
    )


def check_finite(path: Path, layout: Layout, X: np.ndarray | sp.spmatrix, feature_names: Sequence[str]) -> None:
    """Features may be missing (NaN, imputed later) but not infinite, e.g. an overflowing ``1e999``."""
    if not np.isinf(X.data if sp.issparse(X) else X).any():
        return
    coordinates = sp.coo_matrix(X) if sp.issparse(X) else None
    infinite = np.isinf(coordinates.data if coordinates is not None else X)
    if coordinates is not None:
        row, column = coordinates.row[infinite][0], coordinates.col[infinite][0]
    else:
        row, column = np.argwhere(infinite)[0]
    raise UserError(
        f"feature '{feature_names[column]}' is infinite in data row {row + 1}; values must be finite or ? (missing)",
        path=path,
        line=layout.row_lines[row],
    )
