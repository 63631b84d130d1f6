"""The one exception type for problems a user can fix.

The CLI prints a :class:`UserError` as a single line and exits with code 2;
everything else is a bug and keeps its traceback.
"""

from __future__ import annotations


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

    def __init__(self, message, *, path=None, line=None, hint=None):
        self.message = message
        self.path = None if path is None else str(path)
        self.line = line
        self.hint = hint
        super().__init__(str(self))

    def __str__(self):
        where = ""
        if self.path is not None:
            where = self.path if self.line is None else f"{self.path}:{self.line}"
            where += ": "
        text = f"{where}{self.message}"
        if self.hint:
            text += f" ({self.hint})"
        return " ".join(text.split())


class InputWarning(UserWarning):
    """Something in the user's input that the tool resolved on its own, saying how; the CLI prints it as one ``warning:`` line."""
