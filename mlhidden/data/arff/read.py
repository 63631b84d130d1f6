"""Read multi-label data in MEKA's ARFF form, and Mulan's ARFF + XML form; write MEKA's.

MEKA marks the labels in the relation name: ``@relation 'Name: -C N'`` means the first N
attributes are labels, ``-C -N`` the last N. The file is read as a stream of blocks of lines
(:mod:`.stream`); the header is parsed by liac-arff, the data rows as Weka reads them, a block of
plain dense or sparse rows at once at C speed (:mod:`.plain`), any other one line at a time (:mod:`.rows`,
:mod:`.tokens`). The jobs around it live in their own
modules: the header's structure (:mod:`.lines`), liac-arff's failures in the user's terms
(:mod:`.diagnosis`), MEKA's label convention (:mod:`.meka`), values to ``X`` and ``Y``
(:mod:`.encode`) and writing (:mod:`.write`).
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import cast

import arff
import numpy as np
import scipy.sparse as sp

from mlhidden.data.arff.diagnosis import PARSE_ERRORS, parse_error
from mlhidden.data.arff.encode import (
    Column,
    check_binary,
    check_finite,
    column_for,
    encode,
    encode_dense,
    encoded_names,
)
from mlhidden.data.arff.lines import (
    Attribute,
    Layout,
    check_structure,
    declaration,
    is_data_line,
    scan_layout,
)
from mlhidden.data.arff.meka import label_index as meka_label_index
from mlhidden.data.arff.meka import meka_labels, relation_count, relation_name
from mlhidden.data.arff.mulan import label_index_from_xml
from mlhidden.data.arff.rows import read_rows
from mlhidden.data.arff.stream import TextStream
from mlhidden.data.arff.write import write_arff
from mlhidden.data.dataset import Dataset
from mlhidden.errors import UserError

__all__ = ["READER_VERSION", "read_arff", "write_arff"]

READER_VERSION = 6
"""Bumped whenever what ``read_arff`` returns for the same file bytes changes, arrays or a refusal (keys the cache)."""


class _CountingLines:
    """The file's lines as an iterable that remembers how many were handed out (the error line)."""

    def __init__(self, lines: Iterable[str]) -> None:
        self._lines = lines
        self.line = 0

    def __iter__(self) -> Iterator[str]:
        for number, text in enumerate(self._lines, start=1):
            self.line = number
            yield text


def read_arff(
    path: str | os.PathLike[str], labels: int | None = None, labels_xml: str | os.PathLike[str] | None = None,
    *, hashed: bool = True,
) -> Dataset:
    """Read a MEKA or Mulan ARFF file (``.arff``, ``.arff.gz`` or ``.arff.bz2``) into a :class:`Dataset`.

    Parameters
    ----------
    path : str or os.PathLike
        The file. Compression is chosen by the suffix.
    labels : int, optional
        The number of labels, overriding the relation's ``-C`` option: N > 0 means the first N
        attributes, N < 0 the last |N|. Needed for files whose relation has no ``-C``.
    labels_xml : str or os.PathLike, optional
        A Mulan label file naming the label attributes (:mod:`mlhidden.data.arff.mulan`). It wins over
        the relation's ``-C`` (with a :class:`~mlhidden.data.arff.mulan.LabelsXmlWarning` where they
        disagree); giving ``labels`` too is an error.
    hashed : bool, default=True
        False leaves the file's bytes unhashed (``sha256`` None), for a caller that has hashed them already.

    Returns
    -------
    Dataset
        ``X`` is a float64 CSR matrix when the data rows are sparse (``{index value, ...}``), a
        dense array otherwise; missing values are NaN. Nominal features are one-hot encoded
        (``attr=value`` columns) except those declaring exactly the values 0 and 1, which stay one
        0/1 column. ``sha256`` is the checksum of the file's bytes as stored (compressed or not).

    Raises
    ------
    UserError
        For any problem with the file, naming the file and, where known, the line.
    """
    path = Path(path)
    if labels is not None and (isinstance(labels, bool) or not isinstance(labels, (int, np.integer))):
        raise UserError(f"the number of labels must be an integer, got {labels!r}", path=path)
    with TextStream(path, hashed) as stream:
        layout, relation, attributes = _read_header(path, stream)
        rows = read_rows(path, stream.blocks(), attributes, layout.data_line or 0)
    layout = dataclasses.replace(layout, row_lines=rows.lines)
    if labels_xml is not None:
        if labels is not None:
            raise UserError("give the labels either as a count or as a Mulan XML file, not both", path=path)
        name = relation_name(path, relation)
        label_index = label_index_from_xml(path, labels_xml, [a[0] for a in attributes], relation_count(relation))
    else:
        name, n_labels = meka_labels(path, relation, layout.relation_line, labels)
        label_index = meka_label_index(
            path, n_labels, len(attributes), None if labels is not None else layout.relation_line
        )
    if layout.n_rows == 0:
        raise UserError("the @data section has no rows", path=path, line=layout.data_line)
    is_label = np.zeros(len(attributes), dtype=bool)
    is_label[label_index] = True
    columns = [column_for(path, layout, i, attribute, is_label[i]) for i, attribute in enumerate(attributes)]
    feature_index = np.flatnonzero(~is_label).tolist()

    raw = rows.stored(len(attributes)) if rows.sparse else rows.dense
    del rows
    encoded = _encoded(raw, columns, label_index)
    label_names = tuple(attributes[i][0] for i in label_index)
    check_binary(path, layout, encoded, label_names)
    Y = encoded.astype(np.int8) if isinstance(encoded, np.ndarray) else encoded.astype(np.int8).toarray()
    X = _encoded(raw, columns, feature_index)
    del raw
    feature_names = tuple(encoded_names(attributes, columns, feature_index))
    check_finite(path, layout, X, feature_names)
    duplicates = [name for name, count in Counter(feature_names).items() if count > 1]
    if duplicates:
        raise UserError(f"one-hot encoding gives duplicate feature names: {', '.join(duplicates[:5])}", path=path)
    return Dataset(
        name=name,
        X=X,
        Y=Y,
        feature_names=feature_names,
        label_names=label_names,
        source=str(path),
        identity=stream.sha256 or None,
    )


def _encoded(
    raw: sp.csr_matrix | list[np.ndarray], columns: list[Column], selected: list[int]
) -> np.ndarray | sp.csr_matrix:
    """The attributes ``selected`` of sparse data (:meth:`~mlhidden.data.arff.rows.Rows.stored`) as a CSR matrix, or
    of dense blocks as an array."""
    return encode_dense(raw, columns, selected) if isinstance(raw, list) else encode(raw, columns, selected)


def _read_header(path: Path, stream: TextStream) -> tuple[Layout, str, list[Attribute]]:
    """The header's layout, relation and attributes (named as Weka reads them), checked; the stream left at its
    first data line."""
    header = stream.header(is_data_line)
    declared = [declaration(line) for line in header]
    layout = scan_layout(declared)
    if layout.data_line is None:
        if not "".join(header).strip():
            raise UserError("the file is empty", path=path)
        raise UserError(
            "no @data section found; this is not an ARFF file", path=path,
            hint="an ARFF file declares @relation and @attribute lines, then @data and one row per line",
        )
    names, plains = check_structure(path, declared, layout)
    relation, attributes = _decode_header(path, header, declared, layout, plains)
    attributes = [(name, kind) for name, (_, kind) in zip(names, attributes, strict=True)]
    return layout, relation, attributes


def _plain_tail(
    declared: list[str], layout: Layout, plains: list[Attribute | None]
) -> tuple[list[str], list[Attribute]] | None:
    """Where every line between the first attribute's and ``@data`` is blank, a comment or a
    :func:`~mlhidden.data.arff.lines.plain_attribute` (``plains``: each attribute line's, or None): the lines
    liac-arff has left to read (those up to the first attribute, each where it was, then ``@data``) and the
    attributes after the first; None otherwise."""
    if not layout.attribute_lines or layout.data_line is None:
        return None
    first, data = layout.attribute_lines[0], layout.data_line - 1
    tail = plains[1:]
    if any(plain is None for plain in tail):
        return None
    if sum(1 for text in declared[first:data] if text and not text.startswith("%")) != len(tail):
        return None
    return [*declared[:first], declared[data]], cast(list[Attribute], tail)


def _decode_header(
    path: Path, header: list[str], declared: list[str], layout: Layout, plains: list[Attribute | None]
) -> tuple[str, list[Attribute]]:
    """Parse the header (its lines as read, and in their :func:`declaration` form) with liac-arff; return the relation
    and the attributes (name, type or values)."""
    lines, plain = _plain_tail(declared, layout, plains) or (declared, [])
    counted = _CountingLines(lines)
    try:
        parsed = arff.load(counted, encode_nominal=True)
    except PARSE_ERRORS as error:
        raise parse_error(path, header, error, counted.line) from None
    attributes = parsed["attributes"] + plain
    for i, (name, kind) in enumerate(attributes):
        if kind == "STRING":
            raise UserError(
                f"attribute '{name}' is a string attribute, which is not supported (use numeric or nominal attributes)",
                path=path,
                line=layout.attribute_lines[i],
            )
        if isinstance(kind, list) and None in kind:
            raise UserError(
                f"nominal attribute '{name}' declares an empty or '?' value", path=path, line=layout.attribute_lines[i]
            )
        repeated = [] if not isinstance(kind, list) or len(set(kind)) == len(kind) else [
            value for value, count in Counter(kind).items() if count > 1
        ]
        if repeated:
            raise UserError(
                f"nominal attribute '{name}' declares the value '{repeated[0]}' twice",
                path=path,
                line=layout.attribute_lines[i],
                hint="list each value once",
            )
    return parsed["relation"], attributes
