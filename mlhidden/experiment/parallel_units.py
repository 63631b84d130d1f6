"""The units of a run computed in parallel (joblib on loky or dask workers), each stored exactly once.

Each unit is leased (:mod:`mlhidden.experiment.leases`) just before it goes to a worker, which fits
and evaluates it (:func:`run_unit`, never raising); the parent stores each result as it arrives,
resubmits the units of lost workers, and lets a stop signal (Ctrl-C, SIGTERM, SIGHUP) take effect only between units.
:mod:`mlhidden.experiment.runner` plans the run, records it and calls :func:`run_units`.
"""

from __future__ import annotations

import time
import traceback
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
from joblib import Parallel, delayed, parallel_config

from mlhidden.data.dataset import Matrix
from mlhidden.experiment.backends import ExecutionBackend
from mlhidden.experiment.leases import UnitLeases
from mlhidden.experiment.stop_signals import stop_signals_deferred
from mlhidden.experiment.time_limit import unit_time_limit
from mlhidden.methods.shared_fits import SharedFits
from mlhidden.runs.blas_threads import reserve_blas_buffer
from mlhidden.runs.metrics import evaluate
from mlhidden.runs.specs import MethodSpec
from mlhidden.runs.splits import Split
from mlhidden.runs.status import FAILED, OK
from mlhidden.runs.store import ResultStore
from mlhidden.runs.store_schema import UnitKey
from mlhidden.runs.unit_fit import fit_unit
from mlhidden.runs.unit_warnings import record_warnings
from mlhidden.runs.units import PlannedUnit, UnitResult

if TYPE_CHECKING:
    from mlhidden.experiment.run_summary import RunSummary, UnitCallback

MAX_ATTEMPTS = 3
LEASE_POLL_SECONDS = 1.0


def run_unit(
    X: Matrix, Y: np.ndarray, split: Split, method: MethodSpec, shared_fits: SharedFits | None = None,
    timeout: float | None = None,
) -> UnitResult:
    """Fit and evaluate one method on one split, with the split's method seed
    (:func:`~mlhidden.runs.unit_fit.fit_unit`); never raises.

    A failure is a result too, and so is a unit stopped after ``timeout`` seconds
    (:func:`~mlhidden.experiment.time_limit.unit_time_limit`). The train time counts fits reused through
    ``shared_fits`` at what they cost, and ``reused_seconds`` says how much that was. A successful result also
    holds the test ``predicted`` labels and ``label_scores``. Every result holds ``worker_seconds``, this call's
    wall time: what the unit took its worker, beyond its fit and predict.
    """
    started = time.perf_counter()
    outcome: dict[str, Any]
    try:
        with warnings.catch_warnings(record=True) as caught, unit_time_limit(timeout):
            warnings.simplefilter("always")
            fitted = fit_unit(X, Y, split, method, shared_fits)
        outcome = {
            "status": OK, "train_seconds": fitted.train_seconds, "test_seconds": fitted.test_seconds,
            "reused_seconds": fitted.reused_seconds, **evaluate(Y[split.test], fitted.predicted),
            "predicted": fitted.predicted, "label_scores": fitted.scores,
            "n_warnings": len(caught), "warnings": record_warnings(caught),
        }
    except Exception as exc:  # a failing unit is recorded, the run goes on
        outcome = {
            "status": FAILED, "error": f"{type(exc).__name__}: {exc}".splitlines()[0] + "\n" + traceback.format_exc(),
        }
    return UnitResult.of(split, method, **outcome, worker_seconds=time.perf_counter() - started)


def run_units(
    todo: list[PlannedUnit], workers: int, executor: ExecutionBackend, store: ResultStore, leases: UnitLeases,
    summary: RunSummary, on_unit: UnitCallback | None, shared_fits: SharedFits | None, timeout: float | None = None,
) -> None:
    """Run the units of ``todo`` on ``workers`` workers, storing each exactly once.

    Each unit is leased just before it is handed to a worker; one that another process has
    stored meanwhile counts as skipped, and one another live process holds is left to it: once
    this process has nothing else to do it waits for those, and computes any whose lease lapses.

    A dask scheduler reruns the tasks of a lost worker (killed, out of memory) by itself; when
    it gives up on one (``KilledWorker``), or a loky worker dies, joblib abandons the whole pass.
    The units that have not come back are then resubmitted, up to ``MAX_ATTEMPTS`` passes, and
    those still missing are listed in ``summary.not_run`` rather than dropped. A unit that
    comes back twice is stored once.

    ``summary.unit_phase_seconds`` is the wall time from just before the first unit is handed out to
    just after the last one is stored: the part of a run that dispatch decides (0 when no unit ran).
    ``summary.worker_start_seconds`` is how long the workers took to start on it: from the first unit handed
    out to the first result back, less that unit's worker time. A pool the run starts (loky spawns its
    processes at the first unit) takes seconds; one already running, milliseconds.
    """
    pending = {unit.key: unit for unit in todo}
    shared = [array for data in {id(u.data): u.data for u in todo}.values() for array in (data.X, data.Y)]
    held: set[UnitKey] = set()
    handed_out: list[float] = []

    def leased_tasks() -> Iterator[Any]:
        for key, unit in list(pending.items()):
            outcome = leases.take(key)
            if outcome == "stored":
                del pending[key]
                summary.n_skipped += 1
            elif outcome == "held":
                held.add(key)
            else:
                held.discard(key)
                if not handed_out:
                    handed_out.append(time.perf_counter())
                yield delayed(_keyed_unit)(key, unit.data.X, unit.data.Y, unit.split, unit.method, shared_fits, timeout)

    attempt = 0
    while pending and attempt < MAX_ATTEMPTS:
        if held >= set(pending):  # only units other processes are computing are left: wait for them
            time.sleep(LEASE_POLL_SECONDS)
        try:
            with executor.parallel_config(shared):
                for key, result in Parallel(n_jobs=workers, return_as="generator_unordered")(leased_tasks()):
                    if not summary.n_done:
                        waited = time.perf_counter() - handed_out[0] - (result.worker_seconds or 0.0)
                        summary.worker_start_seconds = max(waited, 0.0)
                    unit = pending.pop(key, None)
                    if unit is None:
                        continue
                    with stop_signals_deferred():
                        truth = unit.data.Y[unit.split.test] if result.status == OK else None
                        if not store.write_unit(key, result, truth, owner=leases.owner):
                            pending[key] = unit  # another process holds it now: wait for that one to store it
                            held.add(key)
                            summary.n_discarded += 1
                            continue
                        _count_stored(summary, unit, result)
                        summary.unit_phase_seconds = time.perf_counter() - handed_out[0]
                    if on_unit is not None:
                        on_unit(unit, result, summary.n_skipped + summary.n_done, summary.n_units)
        except executor.cluster_lost_errors as exc:
            summary.not_run_reason = str(exc)
            break
        except executor.lost_worker_errors:
            attempt += 1
            if attempt < MAX_ATTEMPTS:
                summary.n_resubmitted += len(pending)
    summary.not_run = [unit.key_columns() for unit in pending.values()]
    if summary.not_run and not summary.not_run_reason:
        summary.not_run_reason = f"their workers were lost on {MAX_ATTEMPTS} attempts"


def _count_stored(summary: RunSummary, unit: PlannedUnit, result: UnitResult) -> None:
    """A unit this process stored, counted in the run's ``summary``: done, failed, reused time, warnings."""
    summary.n_done += 1
    summary.n_failed += result.status == FAILED
    summary.reused_seconds += result.reused_seconds or 0.0
    summary.unit_warnings.append(result.warnings)
    if result.status == FAILED:
        summary.failures.append((unit.data.name, result.label, unit.split.index, result.error.splitlines()[0]))


def _keyed_unit(
    key: UnitKey, X: Matrix, Y: np.ndarray, split: Split, method: MethodSpec, shared_fits: SharedFits | None,
    timeout: float | None = None,
) -> tuple[UnitKey, UnitResult]:
    """One unit as a parallel task: the method's own joblib calls run sequentially inside it
    (and its fit with a fixed BLAS thread count, see :func:`~mlhidden.runs.unit_fit.fit_unit`).

    Units are the grain of parallelism. Under dask, joblib would otherwise send a method's inner
    ``Parallel`` calls to the cluster as nested tasks, oversubscribing the workers. Before the first
    unit of a process, OpenBLAS's buffer is mapped (:func:`~mlhidden.runs.blas_threads.reserve_blas_buffer`):
    a ``MemoryError`` there stops the run, where one inside the unit would only fail it.
    """
    reserve_blas_buffer()
    with parallel_config(backend="sequential"):
        return key, run_unit(X, Y, split, method, shared_fits, timeout)
