"""liac-arff's failures in the user's terms: which line, which value, what to do about it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import arff

from mlhidden.data.arff.lines import unquoted, unterminated_quote
from mlhidden.data.arff.tokens import has_unclosed_quote
from mlhidden.errors import UserError

_LINE_SUFFIX = re.compile(r",?\s*(?:at|in)\s+line\s+-?\d+\s*\.?:?")
_DECLARATION = re.compile(r"@attribute\s+(\".*\"|'.*'|\S+)\s+(\S+)", re.IGNORECASE)
_SPARSE_INDEX = re.compile(r"(?:^\s*\{|,)\s*(\d+)\s")
# liac-arff reports some malformed input as built-in exceptions instead of ArffException.
PARSE_ERRORS = (arff.ArffException, ValueError, TypeError, IndexError, KeyError, OverflowError)


def parse_error(path: Path, lines: Sequence[str], error: Exception, line: int) -> UserError:
    """Turn a liac-arff failure into a UserError that says what is wrong in the user's terms."""
    text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    if has_unclosed_quote(text):
        return unterminated_quote(path, line, text)
    declared = _DECLARATION.match(text)
    if isinstance(error, arff.BadAttributeType):
        kind = declared.group(2).lower() if declared else "?"
        what = f"attribute {declared.group(1)} has type '{kind}'" if declared else "unreadable attribute type"
        return UserError(
            f"{what}, which is not supported (use numeric or nominal {{...}} attributes)", path=path, line=line
        )
    return UserError(f"malformed ARFF: {_describe(error, line)}", path=path, line=line)


def _describe(error: Exception, line: int) -> str:
    """liac-arff's message without its "at line N" (the UserError shows the line)."""
    try:
        text = str(error)
    except (TypeError, ValueError):  # liac-arff formats the offending row into a %-template
        text = str(getattr(error, "message", "")).replace("%d", str(line))
    return _LINE_SUFFIX.sub("", text).strip() or type(error).__name__


def sparse_index_problem(row: str, n_attributes: int) -> tuple[str, str] | None:
    """What is wrong with the attribute indices of one sparse row, as ``(message, hint)``, or None.

    Weka refuses a row whose indices do not increase; liac-arff would silently sort them and keep
    only the last value of a repeated index, so the indices are checked on the text.
    """
    row = unquoted(row)
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
