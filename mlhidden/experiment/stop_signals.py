"""The signals that stop a run cleanly, as Ctrl-C does, and a way to hold them off for a moment.

Ctrl-C (SIGINT), a job scheduler's or ``kill``'s SIGTERM, and the SIGHUP of a closed terminal or
SSH session all mean "stop": the command keeps what is stored and says how to resume
(:class:`mlhidden.cli.endings.StopSignals`).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextmanager
def stop_signals_deferred() -> Iterator[None]:
    """A stop signal arriving inside the block takes effect right after it (a unit stored and
    counted, so the store and the run's "N of M units are stored" line agree).

    Held at Python's level, not by a signal mask: the kernel hands a signal sent to the process
    to any thread that does not block it (a lease's heartbeat, say), and Python then runs the
    handler in the main thread all the same. Only the main thread runs signal handlers, so
    elsewhere there is nothing to hold.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []
    previous = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    held = [signum for signum, handler in previous.items() if handler is not None]
    for signum in held:
        signal.signal(signum, lambda signum, frame: arrived.append(signum))
    try:
        yield
    finally:
        for signum in held:
            signal.signal(signum, previous[signum])
        for signum in arrived:
            signal.raise_signal(signum)
