"""How a command ends: a user's mistake as one line on stderr, a signal as an interrupted run.

Kept apart from the commands so that every command group shares one way of ending.
"""

from __future__ import annotations

import signal
import warnings

import click

from mlhidden.errors import InputWarning, UserError, escape_controls


class OneLineErrors(click.Group):
    """Turns a ``UserError`` into one line on stderr and exit code 2 — never a traceback — and a
    warning about the user's input into one ``warning:`` line."""

    def invoke(self, ctx):
        with warnings.catch_warnings():
            default_show = warnings.showwarning

            def show(message, category, *args, **kwargs):
                if issubclass(category, InputWarning):
                    click.echo(f"warning: {escape_controls(str(message))}", err=True)
                else:
                    default_show(message, category, *args, **kwargs)

            warnings.showwarning = show
            try:
                return super().invoke(ctx)
            except UserError as exc:
                click.echo(f"error: {exc}", err=True)
                ctx.exit(2)



class StopSignals:
    """While active, SIGTERM stops a run the way Ctrl-C does: both raise ``KeyboardInterrupt``.

    The runner answers that by keeping every stored unit and returning, so a job scheduler's
    SIGTERM loses no finished work either. ``signum`` is the signal that arrived (exit code 128 + it).
    """

    def __init__(self):
        self.signum = signal.SIGINT
        self._previous = {}

    def _stop(self, signum, frame):
        self.signum = signum
        raise KeyboardInterrupt

    def __enter__(self):
        self._previous = {s: signal.signal(s, self._stop) for s in (signal.SIGINT, signal.SIGTERM)}
        return self

    def __exit__(self, *exc_info):
        for s, handler in self._previous.items():
            signal.signal(s, handler)
