"""Markdown prose wrapped to a readable width, tables, headings and code left as they are."""

from __future__ import annotations

import re
import textwrap

PROSE_WIDTH = 120
_LIST_ITEM = re.compile(r"^(\s*(?:[-*+]|\d+\.)\s+)")


def wrap_prose(markdown: str, width: int = PROSE_WIDTH) -> str:
    """``markdown`` with every paragraph and list item wrapped at ``width`` characters.

    Table rows, headings, HTML lines, images and fenced code are kept whole: a table row is one
    line in Markdown, and a long one is a table of numbers. Rendered Markdown is the same.

    >>> wrap_prose("- " + "word " * 30, width=40).splitlines()[1]
    '  word word word word word word word'
    """
    lines, fenced = [], False
    for line in markdown.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
        if fenced or line.startswith(("```", "|", "#", "<", "!", "    ")) or len(line) <= width:
            lines.append(line)
            continue
        marker = _LIST_ITEM.match(line)
        indent = " " * len(marker.group(1)) if marker else ""
        lines += textwrap.wrap(line, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)
    return "\n".join(lines)
