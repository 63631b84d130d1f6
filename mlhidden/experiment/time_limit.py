"""A time limit on one unit (``mlhidden run --timeout SECONDS``), enforced inside the process running it.

When the limit passes, :class:`UnitTimeout` is raised in the thread computing the unit, the way
Ctrl-C raises ``KeyboardInterrupt``: the unit ends as a failure with that reason, and its worker
(a loky process, a dask worker thread, or this process with ``--n-jobs 1``) is free for the next
unit instead of computing on forever. It works in any thread, where an alarm signal only reaches
the main thread. The exception arrives between two Python bytecodes, so a long call into compiled
code (one BLAS or liblinear call) finishes first; it is raised again every second until the unit
ends, in case the method's own code catches it.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Iterator
from contextlib import contextmanager

REPEAT_SECONDS = 1.0


class UnitTimeout(Exception):
    """A unit ran past its time limit."""


def _set_async_exception(thread_id: int, exception: type[BaseException] | None) -> None:
    """Make ``exception`` (a class, or None to drop a pending one) raise in the thread ``thread_id``."""
    pending = None if exception is None else ctypes.py_object(exception)
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), pending)


@contextmanager
def unit_time_limit(seconds: float | None) -> Iterator[None]:
    """Raise :class:`UnitTimeout` in the calling thread once ``seconds`` have passed inside the block (None: no limit).

    Leaving the block stops the timer and drops an exception it set that has not been raised
    yet, so nothing reaches the code that runs after it.
    """
    if seconds is None:
        yield
        return
    thread_id = threading.get_ident()
    lock = threading.Lock()
    finished = threading.Event()
    message = f"the unit ran past --timeout {seconds:g} s and was stopped"

    class Timeout(UnitTimeout):  # raised by class, without arguments, so it carries its message itself
        def __init__(self) -> None:
            super().__init__(message)

    Timeout.__name__ = Timeout.__qualname__ = UnitTimeout.__name__

    def interrupt() -> None:
        while True:
            with lock:
                if finished.is_set():
                    return
                _set_async_exception(thread_id, Timeout)
            finished.wait(REPEAT_SECONDS)

    timer = threading.Timer(seconds, interrupt)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        while True:
            try:
                with lock:
                    finished.set()
                _set_async_exception(thread_id, None)
                break
            except UnitTimeout:  # set just before the block ended: dropped, as the block has ended
                continue
        timer.cancel()
