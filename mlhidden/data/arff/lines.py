"""An ARFF file's header lines: their layout found and their structure checked; each data row checked.

liac-arff (which parses the header) accepts some broken files without complaint (an unterminated quote around an
attribute name, an unknown ``@`` keyword in the header) and reports others in its own terms, so the lines
are checked here first, each problem named with its line and the fix.
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mlhidden.data.arff.tokens import UnterminatedQuote, has_unclosed_quote, tokens
from mlhidden.errors import UserError

_QUOTED = re.compile(r"'[^'\\]*(?:\\.[^'\\]*)*'|\"[^\"\\]*(?:\\.[^\"\\]*)*\"|\\['\"]")
_KEYWORDS = ("@relation", "@attribute", "@data")
_WHITESPACE = "".join(map(chr, range(0x21)))  # what Weka's tokenizer takes for whitespace: tab, CR, ... and space
_KEYWORD_GAP = re.compile(r"^(@[A-Za-z]+)[\x00-\x20]+")
# An attribute as liac-arff gives it: its name and its type ('NUMERIC', ...) or its nominal values.
Attribute = tuple[str, str | list[str]]
_PLAIN = r"[A-Za-z0-9_.\-]+"
# The case is ignored in the keywords alone: a class under re.I folds each character's case, several times slower.
_PLAIN_ATTRIBUTE = re.compile(rf"@(?i:attribute) ({_PLAIN}) ((?i:numeric|real|integer)|\{{{_PLAIN}(?:,{_PLAIN})*\}})")
_SPARSE_ROW_HINT = "a sparse row is {index value, index value, ...}; a dense row has no braces"


class RowLines:
    """Each data row's line number, kept as runs of consecutive lines (a block of rows without blank or comment
    lines between them is one run): a few integers, not one per row."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._runs: list[int | np.ndarray] = []
        self._count = 0

    def add(self, lines: np.ndarray) -> None:
        """Append the lines (increasing) of the next rows."""
        if len(lines):
            consecutive = int(lines[-1]) - int(lines[0]) == len(lines) - 1
            self._starts.append(self._count)
            self._runs.append(int(lines[0]) if consecutive else lines)
            self._count += len(lines)

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, row: int) -> int:
        run = bisect.bisect_right(self._starts, row) - 1
        lines, offset = self._runs[run], row - self._starts[run]
        return lines + offset if isinstance(lines, int) else int(lines[offset])


@dataclass(frozen=True)
class Layout:
    """Where things are in the file's lines (1-based line numbers), found without parsing values."""

    relation_line: int | None
    attribute_lines: tuple[int, ...]
    data_line: int | None
    row_lines: RowLines = field(default_factory=RowLines)

    @property
    def n_rows(self) -> int:
        return len(self.row_lines)


def declaration(text: str) -> str:
    """A header line without surrounding whitespace and with one space after its ``@`` keyword.

    Weka takes a tab (any character up to the space) for whitespace; liac-arff, which parses the
    header, splits the keyword from the rest at a space only.
    """
    text = text.strip(_WHITESPACE)
    gap = _KEYWORD_GAP.match(text)
    return text if gap is None else f"{gap.group(1)} {text[gap.end():]}"


def plain_attribute(text: str) -> Attribute | None:
    """The attribute an ``@attribute`` line in :func:`declaration` form declares, where its name and its nominal
    names are plain (letters, digits, ``_.-``: one word for Weka's tokenizer and for liac-arff alike) and one space
    parts them from a numeric type or a ``{...}`` with nothing between its names; None for any other line.

    It is what liac-arff gives for such a line (the type in capitals, the names as written), found without
    either tokenizer: most of a header of many attributes is such lines."""
    match = _PLAIN_ATTRIBUTE.fullmatch(text)
    if match is None:
        return None
    name, kind = match.groups()
    return (name, kind[1:-1].split(",")) if kind.startswith("{") else (name, kind.upper())


def is_data_line(text: str) -> bool:
    """Whether ``text`` is the header's ``@data`` line: its :func:`declaration` starts with ``@DATA`` (in any case),
    told without rewriting every line of a long header."""
    return text.lstrip(_WHITESPACE)[:5].upper() == "@DATA"


def scan_layout(declared: Iterable[str]) -> Layout:
    """Find the declaration lines of the header, its lines already in their :func:`declaration` form, the way
    liac-arff reads them (for error lines)."""
    relation_line = None
    attribute_lines = []
    for number, text in enumerate(declared, start=1):
        keyword = text.upper()
        if keyword.startswith("@RELATION") and relation_line is None:
            relation_line = number
        elif keyword.startswith("@ATTRIBUTE"):
            attribute_lines.append(number)
        elif keyword.startswith("@DATA"):
            return Layout(relation_line, tuple(attribute_lines), number)
    return Layout(relation_line, tuple(attribute_lines), None)


def unquoted(text: str) -> str:
    """``text`` with every complete quoted string (or escaped quote) replaced by ``''`` (braces inside quotes are
    values)."""
    return _QUOTED.sub("''", text) if "'" in text or '"' in text else text


def check_structure(
    path: Path, declared: Sequence[str], layout: Layout
) -> tuple[tuple[str, ...], list[Attribute | None]]:
    """Refuse what liac-arff would misread or report obscurely, at its line; return the attribute names, and each
    attribute line's :func:`plain_attribute` (found here for its name, and kept for the header's parse).
    ``declared`` holds the header's lines in their :func:`declaration` form.

    The header: @relation first and once, only known ``@`` keywords, quotes closed, each
    attribute with a name (given once) and a type, nominal values in one ``{...}``. Data rows are
    checked one at a time by :func:`check_row`. Raises :class:`UserError`.
    """
    relation_line: int | None = None
    first_attribute: dict[str, int] = {}
    plains: list[Attribute | None] = []
    for number, text in enumerate(declared[: layout.data_line], start=1):
        if not text.startswith("@"):
            continue
        plain = plain_attribute(text) if relation_line is not None else None
        keyword = "@attribute" if plain is not None else text.split(None, 1)[0].lower()
        if plain is None and keyword not in _KEYWORDS:
            close = difflib.get_close_matches(keyword, _KEYWORDS, n=1)
            guess = f"did you mean {close[0]}? " if close else ""
            raise UserError(
                f"unknown declaration {keyword}",
                path=path,
                line=number,
                hint=f"{guess}an ARFF header has @relation, @attribute and @data",
            )
        if plain is None and has_unclosed_quote(text):  # a plain line holds no quote
            raise unterminated_quote(path, number, text)
        if keyword == "@relation":
            if relation_line is not None:
                raise UserError(
                    f"a second @relation (the first is on line {relation_line})",
                    path=path,
                    line=number,
                    hint="keep one",
                )
            relation_line = number
        elif keyword == "@attribute":
            if relation_line is None:
                raise UserError(
                    "@attribute before @relation",
                    path=path,
                    line=number,
                    hint="an ARFF file starts with @relation NAME",
                )
            plains.append(plain)
            name = plain[0] if plain else _check_attribute(path, number, text)
            if name in first_attribute:
                raise UserError(
                    f"duplicate attribute name {name} (first declared on line {first_attribute[name]})",
                    path=path,
                    line=number,
                    hint="rename one of them",
                )
            first_attribute[name] = number
    return tuple(first_attribute), plains


def _check_attribute(path: Path, number: int, text: str) -> str:
    """The name of the attribute declared by ``text`` as Weka reads it (:mod:`.arff_tokens`), once its type is
    checked."""
    declaration = text.split(None, 1)[1].strip() if len(text.split(None, 1)) > 1 else ""
    quoted = _QUOTED.match(declaration)
    if quoted and declaration[0] in "'\"":
        name, kind = quoted.group(), declaration[quoted.end():].strip()
    else:
        name, kind = (re.split(r"\s+", declaration, maxsplit=1) + [""])[:2]
    try:
        read = tokens(name)
        name = read[0].text if read else ""
    except UnterminatedQuote:  # a quoted value cut by the split above: there is no name
        name = ""
    if not name or not kind:
        raise UserError(
            f"@attribute {name or '?'} has no {'type' if name else 'name'}",
            path=path,
            line=number,
            hint="declare @attribute NAME numeric, or @attribute NAME {v1,v2,...} for a nominal",
        )
    if not _one_pair_of_braces(unquoted(kind)):
        raise UserError(
            f"unbalanced braces in {text[:60]!r}", path=path, line=number, hint="list nominal values as {v1,v2,...}"
        )
    return name


def check_row(path: Path, number: int, row: str, data_line: int, first_sparse: int | None) -> None:
    """Refuse a data row (stripped) with an open quote, stray braces, or dense when the first row (line
    ``first_sparse``) is sparse.

    liac-arff's rule, kept: a file is sparse or dense as its first row is; dense rows may hold sparse
    ones, not the reverse.
    """
    _check_row(path, number, row, data_line)
    if first_sparse is not None and not row.startswith("{"):
        raise UserError(
            f"a dense row in a sparse file (the first row, line {first_sparse}, is sparse)",
            path=path,
            line=number,
            hint="write it as {index value, ...} like the others",
        )


def _check_row(path: Path, number: int, row: str, data_line: int) -> None:
    if row.startswith("@"):
        raise UserError(
            f"{row.split()[0]} after @data (line {data_line})",
            path=path,
            line=number,
            hint="declare everything before @data",
        )
    quotes = "'" in row or '"' in row
    if quotes and has_unclosed_quote(row):
        raise unterminated_quote(path, number, row)
    if ("{" in row or "}" in row) and not _one_pair_of_braces(unquoted(row) if quotes else row):
        raise UserError(f"unbalanced braces in {row[:60]!r}", path=path, line=number, hint=_SPARSE_ROW_HINT)


def _one_pair_of_braces(text: str) -> bool:
    """Whether ``text`` (quoted strings removed) has no braces, or one pair around all of it."""
    if "{" not in text and "}" not in text:
        return True
    return text.startswith("{") and text.endswith("}") and text.count("{") == text.count("}") == 1


def unterminated_quote(path: Path, number: int, text: str) -> UserError:
    return UserError(
        f"unterminated quote in {text[:60]!r}",
        path=path,
        line=number,
        hint="close it, or escape a quote in a value as \\'",
    )
