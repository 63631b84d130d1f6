"""How a command ends: a user's mistake as one line on stderr, a signal as an interrupted run,
running out of memory as one line too.

Kept apart from the commands so that every command group shares one way of ending.
"""

from __future__ import annotations

import ctypes
import errno
import signal
import sys
import threading
import time
import warnings
from contextlib import contextmanager
from typing import NoReturn

import click

from mlhidden.errors import InputWarning, UserError, escape_controls
from mlhidden.experiment.stop_signals import STOP_SIGNALS

RESEND_DELAY_SECONDS = 0.01
EXHAUSTION_HINT = "what is stored is kept; free memory or raise the limit (ulimit -v), then re-run the same command"


class ResourcesExhausted(MemoryError):
    """This process ran out of memory or threads somewhere other than the main thread.

    Raised asynchronously, so with no arguments: the message is the class's.
    """

    def __str__(self):
        return super().__str__() or "a thread died for lack of memory or threads"


def _exhaustion(exc: BaseException | None) -> str | None:
    """What ran out, if ``exc`` means the process lacks memory or threads (not a bug), else None.

    Under a memory limit the failure shows as a ``MemoryError``, a thread that cannot start
    (``RuntimeError``, or ``EAGAIN``), or a shared library that cannot be mapped while a module
    is imported (``ImportError``). An exception raised while one of those was handled counts as
    it: the clean-up of what failed to start fails in turn (joblib joins loky's executor thread
    that could not start: "cannot join thread before it is started").
    """
    while exc is not None:
        what = _exhaustion_itself(exc)
        if what is not None:
            return what
        exc = exc.__context__
    return None


def _exhaustion_itself(exc: BaseException) -> str | None:
    text = str(exc)
    if isinstance(exc, MemoryError):
        return text or "memory"
    if isinstance(exc, RuntimeError) and "can't start new thread" in text:
        return "a thread could not start"
    if isinstance(exc, OSError) and exc.errno in (errno.ENOMEM, errno.EAGAIN) and "thread" in text:
        return "a thread could not start"
    if isinstance(exc, ImportError) and ("failed to map segment" in text or "Cannot allocate memory" in text):
        return f"a library could not be loaded: {text.split(':')[0]}"
    return None


@contextmanager
def exhaustion_in_threads_stops_the_main_thread():
    """While active, a thread that dies of :func:`_exhaustion` raises :class:`ResourcesExhausted` in
    the main thread, which would otherwise wait forever for it (joblib's executor thread, say).

    The exception arrives between two bytecodes of whatever the main thread runs. Where that is a
    garbage-collector callback or a ``__del__``, Python swallows it as unraisable; it is then sent
    again a moment later, from a thread of its own, so that it lands once the main thread is back
    in its own code.
    """
    main = threading.main_thread().ident
    previous = threading.excepthook
    previous_unraisable = sys.unraisablehook
    active = threading.Event()

    def raise_in_main():
        if main is not None and active.is_set():
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(main), ctypes.py_object(ResourcesExhausted))

    def raise_in_main_after_the_collector():
        time.sleep(RESEND_DELAY_SECONDS)
        raise_in_main()

    def hook(args):
        if args.exc_value is None or _exhaustion(args.exc_value) is None or main is None:
            previous(args)
            return
        raise_in_main()

    def send_again(args):
        if isinstance(args.exc_value, ResourcesExhausted):
            threading.Thread(target=raise_in_main_after_the_collector, daemon=True).start()
            return
        previous_unraisable(args)

    threading.excepthook = hook
    sys.unraisablehook = send_again
    active.set()
    try:
        yield
    finally:
        active.clear()
        threading.excepthook = previous
        sys.unraisablehook = previous_unraisable


class OneLineErrors(click.Group):
    """Turns a ``UserError`` into one line on stderr and exit code 2 — never a traceback — and a
    warning about the user's input into one ``warning:`` line. Running out of memory or threads
    (:func:`_exhaustion`), in any thread, is one ``error: out of memory`` line and exit code 1."""

    def invoke(self, ctx):
        with warnings.catch_warnings(), exhaustion_in_threads_stops_the_main_thread():
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
            except (MemoryError, RuntimeError, OSError, ImportError) as exc:
                what = _exhaustion(exc)
                if what is None:
                    raise
                click.echo(f"error: out of memory ({what}): {EXHAUSTION_HINT}", err=True)
                ctx.exit(1)



class StopSignals:
    """While active, SIGTERM and SIGHUP stop a run the way Ctrl-C does: the first raises ``KeyboardInterrupt``.

    The runner answers that by keeping every stored unit and returning, so a job scheduler's
    SIGTERM or a dropped SSH session loses no finished work either. ``signum`` is the signal that
    arrived (exit code 128 + it). Only the first signal interrupts: the command is then already
    stopping, and a second Ctrl-C raised inside its clean-up (writing the end into run.json, the
    workers' shutdown at exit) would break it with tracebacks. Later ones are ignored until the
    process exits, so once stopped the handlers are left in place.
    """

    def __init__(self):
        self.signum = signal.SIGINT
        self.stopping = False
        self._previous = {}

    def _stop(self, signum, frame):
        if self.stopping:
            return
        self.stopping, self.signum = True, signum
        raise KeyboardInterrupt

    def __enter__(self):
        self._previous = {s: signal.signal(s, self._stop) for s in STOP_SIGNALS}
        return self

    def __exit__(self, *exc_info):
        if self.stopping:
            return
        for s, handler in self._previous.items():
            signal.signal(s, handler)

    def exit_interrupted(self, stored: str) -> NoReturn:
        """Say what is ``stored`` and how to resume, in one line, and exit with 128 + the signal."""
        click.echo(f"interrupted: {stored}; re-run the same command to resume.", err=True)
        sys.exit(128 + self.signum)
