"""The one escaping rule per output: text from a file (a label, a dataset's name, a claims file's
words) reaches LaTeX, Markdown and the terminal only through these, and HTML only through
:func:`html.escape` in the page. Each keeps the text letter for letter and on one line, so that
no file can add markup, load a remote image, forge a line or drive a terminal.
"""

from __future__ import annotations

import re

from mlhidden.errors import escape_controls

PLUS_MINUS = "±"

LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    "†": r"\dag{}",
    "‡": r"\ddag{}",
    PLUS_MINUS: r"$\pm$",
}
MARKDOWN_SPECIALS = {char: "\\" + char for char in "\\|*_`"} | {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_LINE_BREAK = re.compile(r"\r\n?|\n")


def _one_line(text: object) -> str:
    """``text`` with its line breaks as spaces and its control characters as escapes (``\\x1b``)."""
    return escape_controls(_LINE_BREAK.sub(" ", str(text)))


def latex_escape(text: object) -> str:
    """``text`` with LaTeX's special characters made literal (and † as ``\\dag``), on one line.

    ``<``, ``>`` and ``|`` are named, as the default OT1 encoding prints them as ¡, ¿ and —; control
    characters are written as escapes (``\\x1b``), which pdflatex would refuse; a leading ``[`` gets an
    empty group before it, so that a table row opening with it is not read as the previous row's
    ``\\\\[length]``.
    """
    escaped = "".join(LATEX_SPECIALS.get(char, char) for char in _one_line(text))
    return "{}" + escaped if escaped.startswith("[") else escaped


def markdown_escape(text: object) -> str:
    """``text`` as Markdown that shows it letter for letter, on one line.

    Text from files (labels, dataset names, claims) reaches REPORT.md and the tables, which code hosts
    render: so the characters that would break a pipe table or start emphasis are backslash-escaped,
    ``<``, ``>`` and ``&`` become entities (no HTML tag, such as an ``<img>`` loading a remote image,
    and no entity of the text's own is read), ``](`` cannot start a link or image target, line breaks
    (which would end a table row or start a heading) are spaces, as Markdown shows them, and control
    characters are written as escapes (``\\x1b``).
    """
    return "".join(MARKDOWN_SPECIALS.get(char, char) for char in _one_line(text)).replace("](", "]\\(")



_LINE_BREAKS = {ord(char): ascii(char)[1:-1] for char in "\t\n\r\u2028\u2029"}


def terminal_escape(text: object) -> str:
    """``text`` as one line that is safe to print: the control characters a terminal acts on (ESC, BEL,
    bidirectional overrides: :func:`~mlhidden.errors.escape_controls`, an error line's rule) and line breaks
    shown as escapes (``\\x1b``, ``\\n``), so that text from a file can neither drive the terminal (colours,
    window title, clipboard) nor forge a line of the output."""
    return escape_controls(str(text)).translate(_LINE_BREAKS)
