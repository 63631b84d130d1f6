"""Where a run's units compute: joblib's loky processes on this machine, or a dask.distributed cluster.

Both go through joblib's ``Parallel``, so the runner's code and the numbers are the same on
either; only the place the units compute changes. The dask backend connects to a cluster that
is already running (``dask scheduler`` plus ``dask worker`` processes with mlhidden installed),
so a config moves from a laptop to a cluster without a change.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
import warnings
from collections.abc import Sequence
from concurrent.futures import CancelledError
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import TYPE_CHECKING, Any

import joblib

from mlhidden.errors import InputWarning, UserError
from mlhidden.methods.shared_fits import SharedFits
from mlhidden.runs.blas_threads import blas_description

if TYPE_CHECKING:
    from distributed import Client

    from mlhidden.experiment.dask_fits import ClusterFits

BACKENDS = ("loky", "dask")
DASK_EXTRA_HINT = "install the extra: pip install 'mlhidden[dask]'"
DASK_TIMEOUT_ENV = "MLHIDDEN_DASK_TIMEOUT"
DEFAULT_DASK_TIMEOUT = 30.0


_ECHO_LOGGERS = ("distributed.client", "tornado.application")


def _not_an_echo_of_a_lost_scheduler(logged: logging.LogRecord) -> bool:
    """A log filter: what the dask client logs on losing its scheduler (its failure to reconnect,
    the traceback of each result whose connection closed), which the run reports in its one line
    about the units not run (:class:`~mlhidden.experiment.dask_backend.ClusterLost`)."""
    closed = logged.exc_info is not None and isinstance(logged.exc_info[1], OSError)
    return not (closed or logged.getMessage().startswith("Failed to reconnect to scheduler"))


def _dask_timeout() -> float:
    """The dask backend's timeout in seconds: ``$MLHIDDEN_DASK_TIMEOUT``, else ``DEFAULT_DASK_TIMEOUT``."""
    text = os.environ.get(DASK_TIMEOUT_ENV, "").strip()
    if not text:
        return DEFAULT_DASK_TIMEOUT
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not seconds > 0:
        raise UserError(
            f"{DASK_TIMEOUT_ENV}={text!r} is not a number of seconds", hint="give a positive number, such as 30"
        )
    return seconds






PARENT_POLL_SECONDS = 1.0
"""How often a loky worker checks that the process that started it is still alive."""


def _start_worker(parent: int) -> None:
    """Run in each loky worker as it starts; ``parent`` is the process that asked for the workers.

    Ctrl-C reaches the whole process group, and so does the hang-up of a closed terminal: only the
    parent acts on them (it stops the run, keeping what is stored, and ends the workers), so a
    worker ignores them rather than dying with a traceback from wherever the signal found it. A
    parent killed outright (``kill -9``, the OOM killer) ends nothing, so each worker watches its
    parent and exits once it is gone: a worker left behind would hold its memory and keep loky's
    resource tracker (and its shared-memory files) alive. The parent's pid comes from the parent
    itself, since one killed while this worker was still starting (importing its modules) has
    already left it to another parent. Where no thread can start (a memory limit), the worker
    computes unwatched: loky would end a worker whose initializer raises, and the run would lose
    every worker, with a traceback each.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGHUP"):  # not on Windows
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    watch = threading.Thread(target=_exit_when_orphaned, args=(parent,), name="mlhidden-parent-watch", daemon=True)
    try:
        watch.start()
    except RuntimeError:
        pass


def _exit_when_orphaned(parent: int) -> None:
    """Exit this process once its parent is no longer ``parent`` (it died and the process was reparented)."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(1)


class ExecutionBackend:
    """The joblib backend a run's units go to: ``loky`` here, or ``dask`` on an existing cluster.

    Entering the context connects to the dask scheduler once per run; :meth:`parallel_config`
    then points joblib's ``Parallel`` at the backend for one pass over the units.

    Parameters
    ----------
    name : {"loky", "dask"}, default="loky"
        ``loky``: worker processes on this machine. ``dask``: the workers of the cluster whose
        scheduler is at ``scheduler``, through joblib's dask backend.
    scheduler : str, optional
        The address of a running dask scheduler, such as ``tcp://10.0.0.5:8786``; required by
        ``dask``, and meaningless (so refused) with ``loky``.
    timeout : float, optional
        Seconds to wait for the scheduler to answer (and to come back when its connection is
        lost), and for a worker when the cluster has none (all of them lost and restarting):
        past it the units left are not run (:class:`~mlhidden.experiment.dask_backend.ClusterLost`).
        Default: :func:`_dask_timeout`.

    Attributes
    ----------
    lost_worker_errors : tuple of exception types
        What joblib raises when a worker dies under a unit (killed, out of memory, its machine
        gone), as opposed to a bug: the runner resubmits the units that did not come back.
    cluster_lost_errors : tuple of exception types
        What a pass raises when the dask cluster can run no unit at all (none with ``loky``): the
        runner reports the units left as not run.
    """

    def __init__(self, name: str = "loky", scheduler: str | None = None, timeout: float | None = None) -> None:
        if name not in BACKENDS:
            raise UserError(f"unknown backend '{name}'", hint=f"use one of {', '.join(BACKENDS)}")
        if name == "dask" and not scheduler:
            raise UserError(
                "the dask backend needs the address of a running scheduler",
                hint="pass --scheduler tcp://HOST:8786 (start one with `dask scheduler` and `dask worker`)",
            )
        if name != "dask" and scheduler:
            raise UserError(f"--scheduler is only used with --backend dask, not {name}")
        self.name = name
        self.scheduler = scheduler
        self.timeout = _dask_timeout() if timeout is None and name == "dask" else timeout or DEFAULT_DASK_TIMEOUT
        self._client: Client | None = None
        self._cluster_fits: list[ClusterFits] = []
        self.lost_worker_errors: tuple[type[BaseException], ...] = (BrokenProcessPool,)
        self.cluster_lost_errors: tuple[type[BaseException], ...] = ()

    def __enter__(self) -> ExecutionBackend:
        if self.name == "dask":
            self._connect()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._client is not None:
            self._forget_cluster_fits()
            self._client.close()
            self._client = None
            for name in _ECHO_LOGGERS:
                logging.getLogger(name).removeFilter(_not_an_echo_of_a_lost_scheduler)

    def _connect(self) -> None:
        try:
            from distributed import Client, KilledWorker
        except ImportError:
            raise UserError("the dask backend needs dask.distributed", hint=DASK_EXTRA_HINT) from None
        try:
            self._client = Client(self.scheduler, timeout=self.timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise UserError(
                f"cannot reach the dask scheduler at {self.scheduler}: {exc}",
                hint="check the address and that `dask scheduler` is running",
            ) from None
        from mlhidden.experiment.dask_backend import ClusterLost

        self.lost_worker_errors = (KilledWorker, CancelledError)
        self.cluster_lost_errors = (ClusterLost,)
        for name in _ECHO_LOGGERS:
            logging.getLogger(name).addFilter(_not_an_echo_of_a_lost_scheduler)

    def shared_fits(self, folder: Path) -> SharedFits:
        """Where a run's units share their fits (:mod:`mlhidden.methods.shared_fits`): ``folder``, on this
        machine (loky), or the cluster itself (dask, whose machines share no folder:
        :mod:`mlhidden.experiment.dask_fits`), which forgets them when the backend closes."""
        if self.name != "dask":
            return SharedFits(folder)
        from mlhidden.experiment.dask_fits import ClusterFits

        fits = ClusterFits()
        self._cluster_fits.append(fits)
        return fits

    def _forget_cluster_fits(self) -> None:
        """Free the workers' memory of this backend's shared fits; a cluster already lost has freed it."""
        from mlhidden.experiment.dask_fits import forget_cluster_fits

        assert self._client is not None
        for fits in self._cluster_fits:
            try:
                forget_cluster_fits(self._client, fits)
            except (OSError, CancelledError, RuntimeError):
                pass
        self._cluster_fits = []

    def parallel_config(self, shared: Sequence[Any] = ()) -> Any:
        """A ``joblib.parallel_config`` context for one pass over the units.

        ``shared`` lists the large arrays many units read (the datasets): on dask they are sent
        to the cluster once per pass rather than with every unit.
        """
        if self.name == "dask":
            from mlhidden.experiment.dask_backend import ResilientDaskBackend

            backend = ResilientDaskBackend(self._client, shared, self.timeout, address=self.scheduler)
            return joblib.parallel_config(backend=backend)
        return joblib.parallel_config(backend="loky", initializer=_start_worker, initargs=(os.getpid(),))

    def describe(self) -> dict[str, Any]:
        """Where the units compute, for the run's provenance."""
        if self.name == "dask":
            threads: dict[str, int] = self._client.nthreads() if self._client is not None else {}
            return {
                "name": "dask", "scheduler": self.scheduler, "workers": len(threads), "threads": sum(threads.values()),
                "blas": blas_description(),
            }
        return {"name": "loky", "cores": os.cpu_count(), "blas": blas_description()}

    def slots(self, n_jobs: int | None = None, origin: str | None = None) -> int:
        """The units that can compute at once: this machine's cores (loky), or the worker threads of the
        cluster (dask, connected; this machine's cores while it has none).

        More would only start idle processes, each holding memory: an ``n_jobs`` above them is an
        ``InputWarning`` naming ``origin`` (``FILE:LINE`` of the config, or ``--n-jobs``), and
        :func:`worker_count` caps it.
        """
        if self.name == "dask":
            slots = int(sum(self._client.nthreads().values())) if self._client is not None else 0
            what = f"worker threads of the dask cluster at {self.scheduler}"
        else:
            slots, what = int(joblib.cpu_count()), "cores of this machine"
        if not slots:
            return int(joblib.cpu_count())
        if n_jobs is not None and n_jobs > slots:
            given = (
                f"{origin}: n_jobs: {n_jobs}"
                if origin and origin != "--n-jobs"
                else f"--n-jobs {n_jobs}"
                if origin
                else f"n_jobs {n_jobs}"
            )
            warnings.warn(
                f"{given} is more than the {slots} {what}: running {slots} units at a time (-1 uses them all)",
                InputWarning,
                stacklevel=2,
            )
        return slots


def worker_count(n_jobs: int | None, slots: int, n_units: int | None = None) -> int:
    """The workers a run's units go to: ``n_jobs`` in joblib's meaning (None or -1: all ``slots``, -2: all
    but one, ...) capped to the ``slots`` (:meth:`ExecutionBackend.slots`); given ``n_units``, the units
    computing at once, at most ``n_units``. At least 1.

    The one place a run's worker count is worked out: the run computes with it, and ``--dry-run`` and the
    progress report it.
    """
    wanted = slots if n_jobs is None else n_jobs if n_jobs > 0 else slots + 1 + n_jobs
    return max(1, min(wanted, slots, slots if n_units is None else n_units))
