"""The one exception type for problems a user can fix.

The CLI prints a :class:`UserError` as a single line and exits with code 2;
everything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable

# Characters a terminal acts on (ESC, BEL, NUL..., bidirectional overrides), never printed raw from a file.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


class UserError(Exception):
    """A problem in the user's input (config, ARFF file, data path), with where and how to fix it.

    Parameters
    ----------
    message : str
        What is wrong, in one sentence.
    path : str or os.PathLike, optional
        The file the problem is in.
    line : int, optional
        The 1-based line number in ``path``.
    hint : str, optional
        What to do about it.
    """

    def __init__(
        self, message: str, *, path: str | os.PathLike[str] | None = None, line: int | None = None,
        hint: str | None = None,
    ) -> None:
        self.message = message
        self.path = None if path is None else str(path)
        self.line = line
        self.hint = hint
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = self.path if self.line is None else f"{self.path}:{self.line}"
            where += ": "
        text = f"{where}{self.message}"
        if self.hint:
            text += f" ({self.hint})"
        return " ".join(escape_controls(text).split())


def escape_controls(text: str) -> str:
    """``text`` with control characters written as escapes (``\\x1b``): messages quote file content."""
    return _CONTROL.sub(lambda match: ascii(match.group())[1:-1], text)


class InputWarning(UserWarning):
    """Something in the user's input that the tool resolved on its own, saying how; the CLI prints it as one
    ``warning:`` line."""


def unique_match(spec: str, names: Iterable[str], what: str) -> str | None:
    """The one of ``names`` that ``spec`` names: itself, else the only one equal ignoring case; None for none.

    Every name a user types (dataset, method, metric, control method, setting) is matched this way,
    so one case rule holds everywhere. Two names equal ignoring case (and neither written exactly)
    are a one-line ``UserError``.
    """
    names = [str(name) for name in names]
    if spec in names:
        return spec
    same = [name for name in names if name.lower() == str(spec).lower()]
    if len(same) > 1:
        matches = " and ".join(sorted(same))
        raise UserError(f"{what} '{spec}' matches {matches} when case is ignored", hint="write the name exactly")
    return same[0] if same else None


def did_you_mean(name: object, choices: Iterable[object], cutoff: float = 0.6) -> str:
    """``"did you mean 'X'? "`` for the choice closest to a misspelt ``name`` (case ignored), else ``""``.

    Every "unknown name" error starts its hint with it, before the list of valid names. A higher
    ``cutoff`` (difflib's similarity, 0 to 1) guesses only for names that are nearly right.
    """
    by_lower = {str(choice).lower(): str(choice) for choice in choices}
    close = difflib.get_close_matches(str(name).lower(), list(by_lower), n=1, cutoff=cutoff)
    return f"did you mean '{by_lower[close[0]]}'? " if close else ""
