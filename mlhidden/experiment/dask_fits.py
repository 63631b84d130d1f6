"""Fits shared by the machines of a dask cluster: computed once per input digest cluster-wide.

On loky every worker reaches ``run_dir/shared_fits`` (:class:`~mlhidden.methods.shared_fits.SharedFits`);
the machines of a dask cluster share no folder, so each would refit every chain. Here the
cluster's scheduler is the coordinator and its workers' memory the store, with the folder's steps
unchanged (look, lock, look again, compute, keep):

- the lock is a ``distributed.Lock`` named after the fit: the scheduler grants it to one task at a
  time, and releases it when the holder's worker is gone (its lease is no longer refreshed);
- the fit computed stays in the memory of the worker that computed it (``scatter`` from inside a
  task keeps the data there), published on the scheduler under the fit's name; a task needing it
  fetches it from that worker, so a fit moves only to the workers that use it, and never through
  the client or the scheduler.

Why not a task submitted under the fit's key, which the scheduler would run once too: its inputs (the
training rows) would travel to the scheduler with every request, and the fit would run outside the
unit that needs it, which then could not count it as its own train time. A fit whose worker was lost
after it was published is missing, and computed again by the next unit that needs it, with the same
numbers. The names of one run's fits share a prefix, so the run unpublishes them all at its end
(:func:`forget_cluster_fits`), and the workers free their memory.

Imported only when a run uses dask (importing ``distributed`` costs seconds).
"""

from __future__ import annotations

import uuid
from concurrent.futures import CancelledError
from contextlib import AbstractContextManager
from typing import Any

from distributed import Client, Lock, get_client

from mlhidden.methods.shared_fits import SharedFits

PREFIX = "mlhidden-fit"
FETCH_SECONDS = 60.0
"""How long a published fit may take to arrive: scattered data whose worker died is never computed again, and
waiting for it without a limit hung the unit that asked (a fit is computed again instead)."""


class ClusterFits(SharedFits):
    """:class:`SharedFits` kept by a dask cluster, for the tasks of one run (``namespace``) on its workers."""

    def __init__(self, namespace: str | None = None) -> None:
        super().__init__(".")
        self.namespace = namespace or f"{PREFIX}-{uuid.uuid4().hex}"

    def _published(self, name: str) -> str:
        return f"{self.namespace}-{name}"

    def _load(self, name: str) -> Any:
        future = get_client().get_dataset(self._published(name), default=None)
        if future is None:
            return None
        try:
            return future.result(timeout=FETCH_SECONDS)
        except (CancelledError, OSError, KeyError, TimeoutError):  # the worker that held it was lost
            return None

    def _computing(self, name: str) -> AbstractContextManager[object]:
        lock: AbstractContextManager[object] = Lock(self._published(name))
        return lock

    def _save(self, name: str, computed: tuple[object, float]) -> None:
        client = get_client()
        published = self._published(name)
        futures = client.scatter({published: computed})
        client.publish_dataset(futures[published], name=published, override=True)


def forget_cluster_fits(client: Client, fits: ClusterFits) -> None:
    """Unpublish the fits of ``fits``' run, so that their workers free them."""
    names = [name for name in client.list_datasets() if str(name).startswith(f"{fits.namespace}-")]
    if names:
        client.unpublish_dataset(names)
