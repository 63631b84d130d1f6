"""Read and write multi-label data in MEKA's ARFF form; read Mulan's ARFF + XML form too.

MEKA marks the labels in the relation name: ``@relation 'Name: -C N'`` means the first N
attributes are labels, ``-C -N`` the last N. Parsing is liac-arff's; this module adds the MEKA
conventions, the binary-label checks, the feature encoding and error messages that name the file
and line.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import re
import zlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import arff
import numpy as np
import scipy.sparse as sp

from mlhidden.data.dataset import Dataset
from mlhidden.data.mulan import label_index_from_xml
from mlhidden.errors import UserError

READER_VERSION = 2
"""Bumped whenever the arrays ``read_arff`` returns for the same file bytes change (keys the cache)."""

LABELS_HINT = "add -C N to @relation or pass --labels N"

_DECOMPRESSORS = {".gz": gzip.decompress, ".bz2": bz2.decompress}
_CLASS_OPTION = re.compile(r"(?:^|\s)-C\s+(\S+)")
_LINE_SUFFIX = re.compile(r",?\s*(?:at|in)\s+line\s+-?\d+\s*\.?:?")
_BINARY_NAMES = {"0": 0.0, "1": 1.0}
_DECLARATION = re.compile(r"@attribute\s+(\".*\"|'.*'|\S+)\s+(\S+)", re.IGNORECASE)
_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
_SPARSE_INDEX = re.compile(r"(?:^\s*\{|,)\s*(\d+)\s")
# liac-arff reports some malformed input as built-in exceptions instead of ArffException.
_PARSE_ERRORS = (arff.ArffException, ValueError, TypeError, IndexError, KeyError, OverflowError)


@dataclass(frozen=True)
class _Layout:
    """Where things are in the file's lines (1-based line numbers), found without parsing values."""

    relation_line: int | None
    attribute_lines: tuple
    data_line: int | None
    row_lines: tuple

    @property
    def n_rows(self) -> int:
        return len(self.row_lines)


@dataclass(frozen=True)
class _Column:
    """How one attribute becomes output columns.

    ``kind`` is "numeric" (value as is), "binary" (a nominal whose declared names are 0/1, mapped
    by name through ``values``) or "onehot" (one column per declared value).
    """

    kind: str
    width: int
    values: tuple = ()


class _CountingLines:
    """The file's lines as an iterable that remembers how many were handed out (the error line)."""

    def __init__(self, lines):
        self._lines = lines
        self.line = 0

    def __iter__(self):
        for number, text in enumerate(self._lines, start=1):
            self.line = number
            yield text


def read_arff(path, labels=None, labels_xml=None) -> Dataset:
    """Read a MEKA or Mulan ARFF file (``.arff``, ``.arff.gz`` or ``.arff.bz2``) into a :class:`Dataset`.

    Parameters
    ----------
    path : str or os.PathLike
        The file. Compression is chosen by the suffix.
    labels : int, optional
        The number of labels, overriding the relation's ``-C`` option: N > 0 means the first N
        attributes, N < 0 the last |N|. Needed for files whose relation has no ``-C``.
    labels_xml : str or os.PathLike, optional
        A Mulan label file naming the label attributes (:mod:`mlhidden.data.mulan`). It wins over
        the relation's ``-C`` (with a :class:`~mlhidden.data.mulan.LabelsXmlWarning` where they
        disagree); giving ``labels`` too is an error.

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
    try:
        stored = path.read_bytes()
    except OSError as error:
        raise UserError(f"cannot read the file: {error.strerror or error}", path=path) from None
    lines = _text_lines(path, stored)
    layout = _scan_layout(lines)
    if layout.data_line is None:
        raise UserError(
            "no @data section found; this is not an ARFF file", path=path,
            hint="an ARFF file declares @relation and @attribute lines, then @data and one row per line",
        )
    sparse = _is_sparse(lines, layout)
    relation, attributes, raw = _decode(path, lines, layout, sparse)
    if labels_xml is not None:
        if labels is not None:
            raise UserError("give the labels either as a count or as a Mulan XML file, not both", path=path)
        name = _relation_name(path, relation)
        label_index = label_index_from_xml(path, labels_xml, [a[0] for a in attributes], _relation_count(relation))
    else:
        name, n_labels = _meka_relation(path, relation, layout, labels)
        if not 0 < abs(n_labels) < len(attributes):
            raise UserError(
                f"label count {n_labels} does not fit {len(attributes)} attributes: -C N needs 0 < |N| < the number "
                f"of attributes (labels are the first N for N > 0, the last |N| for N < 0)",
                path=path,
                line=None if labels is not None else layout.relation_line,
            )
        label_index = list(range(n_labels)) if n_labels > 0 else list(range(len(attributes) + n_labels, len(attributes)))
    if layout.n_rows == 0:
        raise UserError("the @data section has no rows", path=path, line=layout.data_line)
    is_label = np.zeros(len(attributes), dtype=bool)
    is_label[label_index] = True
    columns = [_column_for(path, layout, i, attribute, is_label[i]) for i, attribute in enumerate(attributes)]
    feature_index = np.flatnonzero(~is_label).tolist()

    Y = _encode(raw, columns, label_index, layout.n_rows, sparse).toarray()
    label_names = tuple(attributes[i][0] for i in label_index)
    _check_binary(path, layout, Y, label_names)
    X = _encode(raw, columns, feature_index, layout.n_rows, sparse)
    X = X if sparse else X.toarray()
    feature_names = tuple(_encoded_names(attributes, columns, feature_index))
    _check_finite(path, layout, X, feature_names)
    duplicates = [name for name, count in Counter(feature_names).items() if count > 1]
    if duplicates:
        raise UserError(f"one-hot encoding gives duplicate feature names: {', '.join(duplicates[:5])}", path=path)
    return Dataset(
        name=name,
        X=X,
        Y=Y.astype(np.int8),
        feature_names=feature_names,
        label_names=label_names,
        source=str(path),
        sha256=hashlib.sha256(stored).hexdigest(),
    )


def write_arff(dataset: Dataset, path) -> None:
    """Write ``dataset`` as a MEKA ARFF file: labels first as nominal {0,1}, features numeric.

    Sparse ``X`` is written as sparse rows (omitted entries are 0, and so are omitted labels),
    dense ``X`` as dense rows; NaN is written as ``?``. ``read_arff`` gives the arrays back.

    Parameters
    ----------
    dataset : Dataset
        The data to write; its ``name`` becomes the relation name.
    path : str or os.PathLike
        The file to write (uncompressed UTF-8).
    """
    header = [f"@relation {arff.encode_string(f'{dataset.name}: -C {dataset.n_labels}')}", ""]
    header += [f"@attribute {arff.encode_string(str(name))} {{0,1}}" for name in dataset.label_names]
    header += [f"@attribute {arff.encode_string(str(name))} numeric" for name in dataset.feature_names]
    header += ["", "@data"]
    Y = np.asarray(dataset.Y)
    if sp.issparse(dataset.X):
        X = sp.csr_matrix(dataset.X)
        rows = []
        for i in range(X.shape[0]):
            start, stop = X.indptr[i], X.indptr[i + 1]
            entries = [f"{j} 1" for j in np.flatnonzero(Y[i])]
            columns, values = X.indices[start:stop], X.data[start:stop]
            entries += [f"{dataset.n_labels + j} {_format_value(v)}" for j, v in zip(columns, values, strict=True)]
            rows.append("{" + ",".join(entries) + "}")
    else:
        X = np.asarray(dataset.X, dtype=np.float64)
        rows = [",".join([str(int(y)) for y in Y[i]] + [_format_value(v) for v in X[i]]) for i in range(X.shape[0])]
    Path(path).write_text("\n".join(header + rows) + "\n", encoding="utf-8")


def _format_value(value) -> str:
    return "?" if np.isnan(value) else repr(float(value))


def _text_lines(path: Path, stored: bytes) -> list[str]:
    """Decompress by suffix and decode UTF-8, reporting corrupt or non-text content as UserError."""
    decompress = _DECOMPRESSORS.get(path.suffix.lower())
    content = stored
    if decompress is not None:
        try:
            content = decompress(stored)
        except (OSError, EOFError, ValueError, zlib.error) as error:
            kind = path.suffix.lower().lstrip(".")
            raise UserError(
                f"not a valid {kind} file (truncated or corrupt: {error})", path=path, hint="copy or download it again"
            ) from None
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = content[: error.start].count(b"\n") + 1
        raise UserError(
            "not UTF-8 text (binary or wrongly encoded file)", path=path, line=line, hint="save the file as UTF-8 text"
        ) from None
    if not text.strip():
        raise UserError("the file is empty", path=path)
    return text.split("\n")


def _scan_layout(lines) -> _Layout:
    """Find the declaration and data-row lines the way liac-arff reads them (for error lines)."""
    relation_line = None
    attribute_lines = []
    for number, text in enumerate(lines, start=1):
        keyword = text.strip(" \r\n").upper()
        if keyword.startswith("@RELATION") and relation_line is None:
            relation_line = number
        elif keyword.startswith("@ATTRIBUTE"):
            attribute_lines.append(number)
        elif keyword.startswith("@DATA"):
            rows = tuple(
                n
                for n, row in enumerate(lines[number:], start=number + 1)
                if row.strip() and not row.strip().startswith("%")
            )
            return _Layout(relation_line, tuple(attribute_lines), number, rows)
    return _Layout(relation_line, tuple(attribute_lines), None, ())


def _is_sparse(lines, layout: _Layout) -> bool:
    return bool(layout.row_lines) and lines[layout.row_lines[0] - 1].strip().startswith("{")


def _decode(path: Path, lines, layout: _Layout, sparse: bool):
    """Parse with liac-arff; return the relation, the attributes and the values as COO triplets.

    The triplets are (rows, attribute indices, values) with nominal values as their declared
    index and NaN for missing; for sparse files omitted entries are absent (meaning index/value 0).
    """
    counted = _CountingLines(lines)
    try:
        parsed = arff.load(counted, encode_nominal=True, return_type=arff.COO if sparse else arff.DENSE)
    except _PARSE_ERRORS as error:
        raise _parse_error(path, lines, layout, error, counted.line) from None
    attributes = parsed["attributes"]
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
    try:
        if sparse:
            values, rows, attribute_index = parsed["data"]
            triplets = (
                np.asarray(rows, dtype=np.int64),
                np.asarray(attribute_index, dtype=np.int64),
                np.array(values, dtype=np.float64),
            )
        else:
            values = np.array(parsed["data"], dtype=np.float64).reshape(-1, len(attributes))
            n_rows, n_attributes = values.shape
            triplets = (
                np.repeat(np.arange(n_rows), n_attributes),
                np.tile(np.arange(n_attributes), n_rows),
                values.ravel(),
            )
    except (ValueError, TypeError) as error:
        raise UserError(f"malformed ARFF: unreadable data values ({error})", path=path) from None
    for line in layout.row_lines if sparse else ():
        problem = _sparse_index_problem(lines[line - 1], len(attributes))
        if problem is not None:
            raise UserError(problem[0], path=path, line=line, hint=problem[1])
    return parsed["relation"], attributes, triplets


def _parse_error(path: Path, lines, layout: _Layout, error: Exception, line: int) -> UserError:
    """Turn a liac-arff failure into a UserError that says what is wrong in the user's terms."""
    text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    if _has_unclosed_quote(text):
        return UserError(
            f"unterminated quote in {text[:60]!r}", path=path, line=line, hint="close it, or escape a quote in a value as \\'"
        )
    declared = _DECLARATION.match(text)
    if isinstance(error, arff.BadAttributeType):
        kind = declared.group(2).lower() if declared else "?"
        what = f"attribute {declared.group(1)} has type '{kind}'" if declared else "unreadable attribute type"
        return UserError(
            f"{what}, which is not supported (use numeric or nominal {{...}} attributes)", path=path, line=line
        )
    if isinstance(error, arff.BadAttributeName) and declared:
        earlier = {n: _DECLARATION.match(lines[n - 1].strip()) for n in layout.attribute_lines if n < line}
        first = next((n for n, match in earlier.items() if match and match.group(1) == declared.group(1)), "?")
        return UserError(
            f"duplicate attribute name {declared.group(1)} (first declared on line {first})",
            path=path,
            line=line,
            hint="rename one of them",
        )
    if layout.data_line is not None and line > layout.data_line:
        explained = _explain_row(lines, layout, text)
        if explained is not None:
            return UserError(explained[0], path=path, line=line, hint=explained[1])
    return UserError(f"malformed ARFF: {_describe(error, line)}", path=path, line=line)


def _describe(error: Exception, line: int) -> str:
    """liac-arff's message without its "at line N" (the UserError shows the line)."""
    try:
        text = str(error)
    except (TypeError, ValueError):  # liac-arff formats the offending row into a %-template
        text = str(getattr(error, "message", "")).replace("%d", str(line))
    return _LINE_SUFFIX.sub("", text).strip() or type(error).__name__


def _has_unclosed_quote(text: str) -> bool:
    """Whether a quote is left open once every complete quoted string is removed."""
    return bool(re.search(r"['\"]", _QUOTED.sub("", text)))


def _explain_row(lines, layout: _Layout, row: str) -> tuple[str, str] | None:
    """Which value of a data row liac-arff refused, and why, as ``(message, hint)``; None if unclear.

    liac-arff only says that some value is wrong; splitting the row with its own tokenizer (so the
    values are those it saw) and checking each against its declaration recovers which one.
    """
    try:
        attributes = arff.loads("\n".join(lines[: layout.data_line]))["attributes"]
        values = arff._parse_values(row)
    except _PARSE_ERRORS:
        return None
    if isinstance(values, dict):
        problem = _sparse_index_problem(row, len(attributes))
        if problem is not None:
            return problem
        entries = sorted(values.items())
    elif len(values) != len(attributes):
        return (
            f"malformed data row: {len(values)} values, but {len(attributes)} attributes are declared",
            "give one value per attribute, ? for a missing one",
        )
    else:
        entries = enumerate(values)
    for i, value in entries:
        name, kind = attributes[i]
        if value is None:
            continue
        if isinstance(kind, list) and value not in kind:
            declared = ",".join(map(str, kind))
            return (
                f"value '{value}' of attribute '{name}' is not one of its declared values {{{declared}}}",
                "correct the value or add it to the @attribute declaration",
            )
        if not isinstance(kind, list) and not _is_number(value):
            return f"value '{value}' of numeric attribute '{name}' is not a number", "use a number, or ? for missing"
    return None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _sparse_index_problem(row: str, n_attributes: int) -> tuple[str, str] | None:
    """What is wrong with the attribute indices of one sparse row, as ``(message, hint)``, or None.

    Weka refuses a row whose indices do not increase; liac-arff would silently sort them and keep
    only the last value of a repeated index, so the indices are checked on the text.
    """
    if "'" in row or '"' in row:
        row = _QUOTED.sub("''", row)
    indices = [int(index) for index in _SPARSE_INDEX.findall(row)]
    for previous, index in zip([-1, *indices], indices):
        if index >= n_attributes:
            return (
                f"sparse entry for attribute index {index}, but the indices run 0..{n_attributes - 1}",
                "sparse indices count the attributes from 0",
            )
        if index <= previous:
            what = "appears twice" if index == previous else f"comes after index {previous}"
            return f"attribute index {index} {what} in a sparse row", "list each index once, in increasing order"
    return None


def _relation_name(path: Path, relation: str) -> str:
    """The dataset name: the relation before its colon, else the file name."""
    return relation.partition(":")[0].strip() or path.name.split(".")[0]


def _relation_count(relation: str) -> int | None:
    """The relation's ``-C`` label count, or None when it has no integer one."""
    option = _CLASS_OPTION.search(relation.partition(":")[2])
    try:
        return None if option is None else int(option.group(1))
    except ValueError:
        return None


def _meka_relation(path: Path, relation: str, layout: _Layout, labels) -> tuple[str, int]:
    """The dataset name (before the colon) and the label count (``labels`` or the ``-C`` option)."""
    name = _relation_name(path, relation)
    if labels is not None:
        return name, int(labels)
    options = relation.partition(":")[2]
    option = _CLASS_OPTION.search(options)
    if option is None:
        raise UserError(
            f"the @relation '{relation}' does not say how many attributes are labels",
            path=path,
            line=layout.relation_line,
            hint=LABELS_HINT,
        )
    try:
        return name, int(option.group(1))
    except ValueError:
        raise UserError(
            f"-C must be followed by an integer label count, got '{option.group(1)}'",
            path=path,
            line=layout.relation_line,
            hint=LABELS_HINT,
        ) from None


def _column_for(path: Path, layout: _Layout, index: int, attribute, is_label: bool) -> _Column:
    """Decide how attribute ``index`` is encoded; labels must be numeric or nominal with names 0/1."""
    name, kind = attribute
    if not isinstance(kind, list):
        return _Column("numeric", 1)
    binary = len(set(kind)) == len(kind) and set(kind) <= set(_BINARY_NAMES)
    if is_label and not binary:
        raise UserError(
            f"label attribute '{name}' is nominal {{{','.join(kind)}}}; "
            "labels must be binary: nominal {0,1} or numeric 0/1",
            path=path,
            line=layout.attribute_lines[index],
        )
    if binary and (is_label or len(kind) == 2):
        return _Column("binary", 1, tuple(_BINARY_NAMES[v] for v in kind))
    return _Column("onehot", len(kind), tuple(kind))


def _encoded_names(attributes, columns, selected):
    for i in selected:
        name = attributes[i][0]
        if columns[i].kind == "onehot":
            yield from (f"{name}={value}" for value in columns[i].values)
        else:
            yield name


def _encode(triplets, columns, selected, n_rows: int, sparse: bool) -> sp.csr_matrix:
    """Encode the attributes ``selected`` (in that order) into a float64 CSR matrix.

    Entries absent from sparse data stand for the declared index 0 (Weka's convention), which for
    a nominal can be a non-zero output, e.g. a binary declared {1,0}; those are filled in when
    ``sparse`` (dense data has every entry).
    """
    rows, attribute_index, values = triplets
    chosen = [columns[i] for i in selected]
    widths = np.array([column.width for column in chosen], dtype=np.int64)
    offsets = np.cumsum(widths) - widths
    slot = np.full(len(columns), -1, dtype=np.int64)
    slot[selected] = np.arange(len(selected))
    keep = slot[attribute_index] >= 0
    rows, slots, values = rows[keep], slot[attribute_index[keep]], values[keep]
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

    for position, column in enumerate(chosen if sparse else ()):
        implicit = _implicit_output(column)
        if implicit is not None:
            unset = np.setdiff1d(np.arange(n_rows), rows[slots == position])
            out_rows.append(unset)
            out_cols.append(np.full(len(unset), offsets[position]))
            out_values.append(np.full(len(unset), implicit))

    matrix = sp.csr_matrix(
        (np.concatenate(out_values), (np.concatenate(out_rows), np.concatenate(out_cols))),
        shape=(n_rows, int(widths.sum())),
        dtype=np.float64,
    )
    matrix.eliminate_zeros()
    matrix.sort_indices()
    return matrix


def _implicit_output(column: _Column) -> float | None:
    """The non-zero value an omitted sparse entry of this column stands for (None when it is 0)."""
    if column.kind == "onehot":
        return 1.0
    if column.kind == "binary" and column.values[0] != 0.0:
        return column.values[0]
    return None


def _check_binary(path: Path, layout: _Layout, Y: np.ndarray, label_names) -> None:
    """Every label value must be 0 or 1: report the first one that is not, with its line."""
    bad = ~((Y == 0) | (Y == 1))
    if not bad.any():
        return
    row, label = np.argwhere(bad)[0]
    value = Y[row, label]
    shown = "missing (?)" if np.isnan(value) else f"{value:g}"
    raise UserError(
        f"label '{label_names[label]}' has value {shown} in data row {row + 1}; labels must be 0 or 1",
        path=path,
        line=layout.row_lines[row],
    )


def _check_finite(path: Path, layout: _Layout, X, feature_names) -> None:
    """Features may be missing (NaN, imputed later) but not infinite, e.g. an overflowing ``1e999``."""
    coordinates = sp.coo_matrix(X) if sp.issparse(X) else None
    infinite = np.isinf(coordinates.data if coordinates is not None else X)
    if not infinite.any():
        return
    if coordinates is not None:
        row, column = coordinates.row[infinite][0], coordinates.col[infinite][0]
    else:
        row, column = np.argwhere(infinite)[0]
    raise UserError(
        f"feature '{feature_names[column]}' is infinite in data row {row + 1}; values must be finite or ? (missing)",
        path=path,
        line=layout.row_lines[row],
    )
