"""One ARFF line split into tokens the way Weka's ArffLoader splits it.

Weka reads ARFF with ``java.io.StreamTokenizer`` set up so that: characters up to the space, and
the comma, separate tokens; ``%`` starts a comment to the end of the line; ``'`` and ``"`` quote
a token, inside which a backslash escapes the next character (``\\n``, ``\\t``, ``\\r``,
``\\b``, ``\\f``, ``\\a``, ``\\v``, octal ``\\NNN``, any other character stands for itself);
``{`` and ``}`` are tokens of their own; every other character is part of a word, a backslash
included. One thing is read beyond Weka: in an unquoted word, ``\\'`` and ``\\"`` stand for the
quote itself (Mulan's delicious.arff declares ``@attribute TAG_m\\'usica {0,1}``, which Weka's
tokenizer cuts at the quote; the name read here is ``TAG_m'usica``).
"""

from __future__ import annotations

import re
from typing import NamedTuple

# Runs of plain characters, each matched at once: a repeated alternation of single characters
# would keep a backtracking entry per character (a gigabyte for a 10 MB name).
_WORD = r"(?:[^\x00-\x20,'\"%{}\\]+|\\['\"]?)+"
_QUOTED = r"'[^'\\\n\r]*(?:\\[^\n\r][^'\\\n\r]*)*'|\"[^\"\\\n\r]*(?:\\[^\n\r][^\"\\\n\r]*)*\""
_TOKEN = re.compile(
    rf"[\x00-\x20,]*(?:(?P<word>{_WORD})|(?P<quoted>{_QUOTED})|(?P<brace>[{{}}])|(?P<comment>%.*)|(?P<open>['\"].*))?",
    re.DOTALL,
)
_ESCAPE = re.compile(r"\\([0-3][0-7]{0,2}|[4-7][0-7]?|.)", re.DOTALL)
_NAMED_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


class Token(NamedTuple):
    """A token's text as read (quotes removed, escapes resolved) and whether it was quoted.

    ``quoted`` matters for ``?``: unquoted it is a missing value, quoted it is the text "?".
    ``text`` is ``{`` or ``}`` for a brace, with ``brace`` set.
    """

    text: str
    quoted: bool = False
    brace: bool = False


class UnterminatedQuote(ValueError):
    """A quote opened on the line and not closed before its end."""


def tokens(line: str) -> list[Token]:
    """The tokens of ``line``, comments dropped; raises :class:`UnterminatedQuote`."""
    found = []
    position, end = 0, len(line)
    while position < end:
        match = _TOKEN.match(line, position)
        assert match is not None  # every part of the pattern after the separators is optional
        position = match.end()
        kind = match.lastgroup
        if kind == "word":
            word = match.group("word")
            found.append(Token(unescape_word(word)))
        elif kind == "quoted":
            found.append(Token(unescape(match.group("quoted")[1:-1]), quoted=True))
        elif kind == "brace":
            found.append(Token(match.group("brace"), brace=True))
        elif kind == "open":
            raise UnterminatedQuote(line)
        else:
            break  # a comment, or nothing but separators left
    return found


def unescape_word(text: str) -> str:
    """Resolve what escapes an unquoted word has: ``\\'`` and ``\\"`` (any other backslash stays)."""
    return text.replace("\\'", "'").replace('\\"', '"') if "\\" in text else text


def unescape(text: str) -> str:
    """Resolve the backslash escapes of a quoted token as Java's StreamTokenizer does."""
    return _ESCAPE.sub(_escaped, text) if "\\" in text else text


def _escaped(match: re.Match[str]) -> str:
    code = match.group(1)
    if code[0] in "01234567":
        return chr(int(code, 8))
    return str(_NAMED_ESCAPES.get(code, code))


def has_unclosed_quote(line: str) -> bool:
    """Whether a quote on ``line`` is left open (Weka would read the rest of the line as one token)."""
    if "'" not in line and '"' not in line:
        return False
    try:
        tokens(line)
    except UnterminatedQuote:
        return True
    return False
