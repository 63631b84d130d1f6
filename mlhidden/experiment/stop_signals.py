"""The signals that stop a run cleanly, as Ctrl-C does, and a way to hold them off for a moment.

Ctrl-C (SIGINT), a job scheduler's or ``kill``'s SIGTERM, and the SIGHUP of a closed terminal or
SSH session all mean "stop": the command keeps what is stored and says how to resume
(:class:`mlhidden.cli.endings.StopSignals`).
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextmanager
def stop_signals_deferred() -> Iterator[None]:
    """A stop signal arriving inside the block takes effect right after it (a unit stored and
    counted, so the store and the run's "N of M units are stored" line agree)."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, set(STOP_SIGNALS))
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
