"""A report written in Markdown, shown on the results page: the same text, as HTML, with its figures inside.

A study's report (REPORT.md) is the one place its sections are written; the page renders that
text rather than a second copy of it, so the page shows whatever the report shows. Only the
Markdown the reports use is understood: ``#`` headings, paragraphs, ``-`` lists (continued by
indented lines), pipe tables, images alone on a line, ``code``, ``**bold**``, ``*emphasis*``,
links, backslash escapes, the entities ``&lt;``, ``&gt;`` and ``&amp;`` (with the escapes, how
:func:`~mlhidden.escaping.markdown_escape` writes text from files: each is shown as its
character, escaped for HTML once), ``<a id>`` anchors and folds (a ``<details><summary>...</summary>`` line,
the blocks it folds, a ``</details>`` line). Images are read from the report's folder
and put into the page as data URIs, so that the page stays one file that loads nothing.
"""

from __future__ import annotations

import base64
import html
import mimetypes
import re
from collections.abc import Sequence
from pathlib import Path

_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])")
_ENTITY = re.compile(r"&(lt|gt|amp);")
_CODE = re.compile(r"(`[^`]*`)")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_IMAGE = re.compile(r"^!\[([^\]]*)\]\(([^)\s]+)\)$")
_ANCHOR = re.compile(r'^<a id="([^"]+)"></a>$')
_FOLD = re.compile(r"^<details><summary>(.*)</summary>$")
_FOLD_END = "</details>"
_HEADING = re.compile(r"^(#{1,6}) (.*)$")


def split_sections(text: str, level: int = 2) -> list[tuple[str, str]]:
    """``(title, body)`` for each heading of ``level`` in ``text`` (what precedes the first is left out)."""
    parts = re.split(rf"^{'#' * level} (.*)$", text, flags=re.MULTILINE)
    return [(parts[i].strip(), parts[i + 1]) for i in range(1, len(parts) - 1, 2)]


def _literal(text: str) -> str:
    """``text`` with its backslash escapes and entities put as ``\\x00<code point>\\x00``, which no
    Markdown rule below matches, so that each is shown as its character, escaped for HTML once."""
    text = _ESCAPED.sub(lambda m: f"\x00{ord(m.group(1))}\x00", text)
    return _ENTITY.sub(lambda m: f"\x00{ord(html.unescape(m.group()))}\x00", text)


def _characters(text: str) -> str:
    """The characters :func:`_literal` put aside, back in ``text`` (HTML) escaped for HTML."""
    return re.sub("\x00(\\d+)\x00", lambda m: html.escape(chr(int(m.group(1)))), text)


def inline(text: str, prefix: str = "") -> str:
    """One line's Markdown as HTML: escapes, code, links (to ``#``\\ ``prefix`` ids inside the page), bold, emphasis."""
    out = []
    for part in _CODE.split(text):
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            out.append(f"<code>{html.escape(part[1:-1])}</code>")
            continue
        escaped = html.escape(_literal(part), quote=True)
        escaped = _LINK.sub(lambda m: _link(m.group(1), m.group(2), prefix), escaped)
        escaped = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", escaped)
        escaped = re.sub(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])", r"<em>\1</em>", escaped)
        out.append(_characters(escaped))
    return "".join(out)


def _link(text: str, target: str, prefix: str) -> str:
    if target.startswith("#"):
        return f"<a href='#{prefix}{target[1:]}'>{text}</a>"
    return f"<a href='{target}'>{text}</a>" if target.startswith(("http://", "https://")) else text


def _cells(line: str) -> list[str]:
    row = line.strip()
    row = row[1:] if row.startswith("|") else row
    row = row[:-1] if row.endswith("|") and not row.endswith("\\|") else row
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", row)]


def _table(lines: list[str], prefix: str) -> str:
    head, rows = _cells(lines[0]), [_cells(line) for line in lines[2:]]
    numeric = [
        all(re.fullmatch(r"[-+*]*\d[\d.,]*\**", row[i]) for row in rows if i < len(row) and row[i])
        for i in range(len(head))
    ]
    cells = "".join(f"<th>{inline(cell, prefix)}</th>" for cell in head)
    body = "".join(
        "<tr>"
        + "".join(
            f"<td class='{'num' if i < len(numeric) and numeric[i] else 'text'}'>{inline(cell, prefix)}</td>"
            for i, cell in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return f"<div class='scroll'><table><thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table></div>"


def _image(alt: str, target: str, folder: Path) -> str:
    alt = _characters(html.escape(_literal(alt), quote=True))
    path = folder / target
    if not path.is_file():
        return f"<p class='note'>{alt}: {html.escape(target)} is not there.</p>"
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return (
        f"<figure><img alt='{alt}' src='data:{kind};base64,{data}'>"
        f"<figcaption class='note'>{alt}</figcaption></figure>"
    )


def markdown_html(text: str, folder: Path, prefix: str = "", top: int = 2, tables: Sequence[str] = ()) -> str:
    """``text`` (Markdown) as HTML; images are read from ``folder``; anchors and ``#`` links get ``prefix``.

    A heading of ``top`` ``#`` becomes ``<h3>`` (the page's sections are ``<h2>``), deeper ones follow.
    ``tables`` stand in for the text's first pipe tables, in order: the page's own versions of
    them, whose numbers carry every digit for the decimals selector where the text's are rounded
    ("" keeps the text's table, for one before a table that has a page version).
    """
    blocks: list[str] = []
    pages = iter(tables)
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if not stripped:
            i += 1
        elif heading := _HEADING.match(stripped):
            level = min(6, 3 + len(heading.group(1)) - top)
            blocks.append(f"<h{level}>{inline(heading.group(2), prefix)}</h{level}>")
            i += 1
        elif anchor := _ANCHOR.match(stripped):
            blocks.append(f"<a id='{html.escape(prefix + anchor.group(1), quote=True)}'></a>")
            i += 1
        elif image := _IMAGE.match(stripped):
            blocks.append(_image(image.group(1), image.group(2), folder))
            i += 1
        elif fold := _FOLD.match(stripped):
            blocks.append(f"<details><summary>{inline(fold.group(1), prefix)}</summary>")
            i += 1
        elif stripped == _FOLD_END:
            blocks.append(_FOLD_END)
            i += 1
        elif stripped.startswith("|"):
            end = i
            while end < len(lines) and lines[end].strip().startswith("|"):
                end += 1
            blocks.append(next(pages, None) or _table(lines[i:end], prefix))
            i = end
        elif line.startswith("- "):
            items: list[str] = []
            while i < len(lines) and (lines[i].startswith("- ") or (items and lines[i].startswith("  "))):
                if lines[i].startswith("- "):
                    items.append(lines[i][2:].strip())
                else:
                    items[-1] += " " + lines[i].strip()
                i += 1
            blocks.append("<ul>" + "".join(f"<li>{inline(item, prefix)}</li>" for item in items) + "</ul>")
        else:
            paragraph = [stripped]
            i += 1
            while i < len(lines) and lines[i].strip() and not _starts_block(lines[i]):
                paragraph.append(lines[i].strip())
                i += 1
            blocks.append(f"<p>{inline(' '.join(paragraph), prefix)}</p>")
    return "".join(blocks)


def _starts_block(line: str) -> bool:
    stripped = line.strip()
    return bool(
        _HEADING.match(stripped) or _ANCHOR.match(stripped) or _IMAGE.match(stripped) or _FOLD.match(stripped)
        or stripped == _FOLD_END or stripped.startswith("|") or line.startswith("- ")
    )
