"""joblib's dask backend made safe for losing workers, imported only when a run uses dask.

Importing ``distributed`` costs seconds, which every CLI call and test collection would pay if
:mod:`mlhidden.experiment.backends` imported it at the top.
"""

from __future__ import annotations

import threading
import time
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError
from typing import Any, TypeVar

from joblib._dask import DaskDistributedBackend

T = TypeVar("T")
WATCH_SECONDS = 0.5
"""How often a pass checks that its cluster still has a worker and a scheduler."""


class ClusterLost(Exception):
    """The dask cluster can run no unit: it has had no worker for the backend's timeout, or its
    scheduler is gone. Unlike a lost worker, waiting or resubmitting would not help: the runner
    reports the units left as not run, with this message as the reason."""


def _identity(value: T) -> T:
    return value


class ResilientDaskBackend(DaskDistributedBackend):
    """joblib's dask backend, made safe for losing workers.

    - joblib learns that a task ended through a callback, which its dask backend only calls for
      tasks that returned; a task the scheduler marks as failed (``KilledWorker``: its workers
      died too often) would leave ``Parallel`` waiting forever. Here that error goes through
      the callback too, so ``Parallel`` raises it and the runner can resubmit the lost units.
    - joblib runs a call whose backend offers a single worker in the calling process. With one
      worker thread left (the other one lost and restarting), the units would silently move
      from the cluster to the client, so at least two are always reported.
    - The ``shared`` arrays (the datasets) become tasks that return them, not scattered data:
      the scheduler keeps their input and recomputes them if every worker holding a copy is
      lost, where scattered data would be gone and the units needing it cancelled.
    - A cluster whose workers are all restarting at once is waited for ``wait_for_workers_timeout``
      seconds, not joblib's 10, which a busy machine's restarting workers can exceed.
    - A cluster left without any worker for that long, or without its scheduler, would have the
      scheduler hold the tasks forever (they wait for a worker) or joblib fail with a traceback:
      the pass ends with :class:`ClusterLost` instead, naming the cluster at ``address``.
    """

    def __init__(
        self, client: Any, shared: Sequence[Any] = (), wait_for_workers_timeout: float = 30, address: str | None = None
    ) -> None:
        super().__init__(client=client, wait_for_workers_timeout=wait_for_workers_timeout)
        self._address = address or client.scheduler.address
        self._shared = list(shared)
        self._watching: threading.Event | None = None
        try:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
                self.data_futures = {id(array): client.submit(_identity, array, pure=False) for array in self._shared}
        except (OSError, CancelledError, RuntimeError):
            raise self._lost() from None

    def _lost(self) -> ClusterLost:
        """The :class:`ClusterLost` that says what the cluster lacks now."""
        if self.client.status != "running":
            return ClusterLost(
                f"lost the dask scheduler at {self._address}: no answer for {self.wait_for_workers_timeout:g} s"
            )
        return ClusterLost(f"the dask cluster at {self._address} had no worker for {self.wait_for_workers_timeout:g} s")

    def effective_n_jobs(self, n_jobs: int | None) -> int:
        try:
            return max(int(super().effective_n_jobs(n_jobs)), 2)
        except (OSError, CancelledError):  # TimeoutError (no worker) is an OSError
            raise self._lost() from None

    def start_call(self) -> None:
        super().start_call()
        self._watching = threading.Event()
        threading.Thread(target=self._watch, args=(self._watching,), name="mlhidden-dask-watch", daemon=True).start()

    def stop_call(self) -> None:
        if self._watching is not None:
            self._watching.set()
        super().stop_call()

    def _has_workers(self) -> bool:
        if self.client.status != "running":
            return False
        try:
            return bool(self.client.nthreads())
        except (OSError, CancelledError, RuntimeError):
            return False

    def _watch(self, stopped: threading.Event) -> None:
        """Fail the pass's tasks once the cluster has had no worker (or no scheduler) for the timeout."""
        since = time.monotonic()
        while not stopped.wait(WATCH_SECONDS):
            if self._has_workers():
                since = time.monotonic()
            elif time.monotonic() - since >= self.wait_for_workers_timeout and not stopped.is_set():
                lost = self._lost()
                self.client.loop.add_callback(self._fail_pending, lost)
                return

    def _fail_pending(self, error: ClusterLost) -> None:
        """On the client's event loop (where joblib's results arrive): end every task not yet back with ``error``."""
        self.abort_everything()
        for future in list(self._results):
            self._results.pop(future).set_exception(error)
            callback = self._callbacks.pop(future, None)
            if callback is not None:
                callback(error)

    def submit(self, func: Callable[[], Any], callback: Callable[[Any], None] | None = None) -> Any:
        future = super().submit(func, callback)
        if callback is not None:

            def report_error(done: Any) -> None:
                if done.exception() is not None:
                    callback(done.exception())

            future.add_done_callback(report_error)
        return future
