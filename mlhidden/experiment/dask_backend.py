"""joblib's dask backend made safe for losing workers, imported only when a run uses dask.

Importing ``distributed`` costs seconds, which every CLI call and test collection would pay if
:mod:`mlhidden.experiment.backends` imported it at the top.
"""

from __future__ import annotations

import warnings

from joblib._dask import DaskDistributedBackend


def _identity(value):
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
    """

    def __init__(self, client, shared=(), wait_for_workers_timeout=30):
        super().__init__(client=client, wait_for_workers_timeout=wait_for_workers_timeout)
        self._shared = list(shared)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
            self.data_futures = {id(array): client.submit(_identity, array, pure=False) for array in self._shared}

    def effective_n_jobs(self, n_jobs):
        return max(super().effective_n_jobs(n_jobs), 2)

    def submit(self, func, callback=None):
        future = super().submit(func, callback)
        if callback is not None:

            def report_error(done):
                if done.exception() is not None:
                    callback(done.exception())

            future.add_done_callback(report_error)
        return future
