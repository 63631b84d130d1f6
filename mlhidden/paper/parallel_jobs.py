"""The report's pieces computed side by side, on the worker pool the runs use.

What ``mlhidden reproduce`` writes after its last unit (each run's tables, the refits, the
report's sections and figures, the results page) is made of pieces that do not depend on one
another. A :class:`Job` is such work split into independent calls plus a ``finish`` step, run
in this process, that puts the calls' results together in the order the calls were given.
:func:`run_jobs` sends the calls of several jobs to one pool (joblib's loky processes, as the
runner's :class:`~mlhidden.experiment.backends.ExecutionBackend` starts them) and finishes each
job in turn, so nothing written, returned or printed depends on which call finished first.
"""

from __future__ import annotations

import heapq
import warnings
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

from joblib import Parallel, delayed, parallel_config

from mlhidden.experiment import ExecutionBackend, worker_count
from mlhidden.runs import unit_thread_limits


def _paths(results: list) -> list:
    """The default finish: the calls' results (lists of written paths) joined in call order."""
    return [path for result in results for path in result]


@dataclass
class Job:
    """``calls``: ``(function, *args)`` tuples that may run in any process (module-level functions,
    picklable arguments); ``finish(results)`` gets their results in the calls' order."""

    calls: list
    finish: Callable[[list], Any] = field(default=_paths)


def run_jobs(jobs: list, n_jobs: int | None = 1, on_step: Callable[[], None] | None = None) -> list:
    """Compute every call of ``jobs`` on ``n_jobs`` workers (joblib's meaning: None or -1 = all
    cores; 1 = in this process) and return each job's ``finish`` of its results, in job order.

    Every call computes under the units' fixed BLAS thread count, with joblib calls inside it
    sequential, in this process or a worker alike, so its result is the same whatever ``n_jobs``.
    Warnings a call raises are raised again here, call by call in the calls' order.
    ``on_step()`` is called as each call's result comes in and as each job is finished
    (:func:`step_times` says when each is expected): a report phase's progress.
    """
    calls = [call for job in jobs for call in job.calls]
    workers = worker_count(n_jobs, ExecutionBackend().slots(), len(calls))
    outcomes: list = []
    with ExecutionBackend().parallel_config() if workers > 1 else nullcontext():
        computed = (
            map(_computed, calls) if workers == 1
            else Parallel(n_jobs=workers, batch_size=1, return_as="generator")(delayed(_computed)(c) for c in calls)
        )
        for outcome in computed:
            outcomes.append(outcome)
            if on_step is not None:
                on_step()
    shown: dict = {}
    for _, caught in outcomes:
        for message, category, filename, lineno in caught:
            warnings.warn_explicit(message, category, filename, lineno, registry=shown)
    finished, start = [], 0
    for job in jobs:
        finished.append(job.finish([result for result, _ in outcomes[start:start + len(job.calls)]]))
        start += len(job.calls)
        if on_step is not None:
            on_step()
    return finished


STEP_SECONDS = {
    "_refit_rows": 0.1, "decide_claims": 2.0, "results_section": 0.2, "significance_section": 6.9,
    "logical_section": 0.7, "synthetic_section": 0.03, "_variants_section": 17.1, "synthetic_2d_section": 2.1,
    "sweep_section": 0.5, "medical_section": 0.4, "_run_view": 5.8, "_listed": 1.0, "_write_run_tables": 0.8,
}
"""The seconds each kind of call (by its function's name) took in the quick reproduction's report phase,
timed once in one process on a loaded 2-core machine (the speed notes, "the report phase's
steps"; ``_run_view`` less the 2.0 s of the claims it decided then): not a forecast, but how the
phase's time is shared out among its steps, which are far from alike (the synthetic variants'
section is a third of it, a refit's call a five-hundredth)."""
OTHER_STEP_SECONDS = 0.5
"""A kind of call not timed above."""
FINISH_SECONDS = 0.05
"""A job's finish (putting results together, writing a file), in this process."""


def call_seconds(call: tuple) -> float:
    """The expected seconds of one call, by its kind (:data:`STEP_SECONDS`)."""
    return STEP_SECONDS.get(getattr(call[0], "__name__", ""), OTHER_STEP_SECONDS)


def step_times(jobs: list, n_jobs: int | None = 1, start: float = 0.0) -> list[float]:
    """When each step :func:`run_jobs` reports for ``jobs`` is expected, counting from ``start``: the calls
    handed in order to the first free of its workers at their :func:`call_seconds`, each result reported
    once those before it are in (they come back in order), then the finishes, one after another."""
    calls = [call for job in jobs for call in job.calls]
    free = [start] * worker_count(n_jobs, ExecutionBackend().slots(), len(calls))
    times, last = [], start
    for call in calls:
        ends = heapq.heappop(free) + call_seconds(call)
        heapq.heappush(free, ends)
        last = max(last, ends)
        times.append(last)
    return times + [last + FINISH_SECONDS * k for k in range(1, len(jobs) + 1)]


def _computed(call: tuple) -> tuple:
    """One call's result and the warnings it raised, as ``(message, category, filename, lineno)``."""
    function, *args = call
    with warnings.catch_warnings(record=True) as caught, parallel_config(backend="sequential"), unit_thread_limits():
        warnings.simplefilter("always")
        result = function(*args)
    return result, [(w.message, w.category, w.filename, w.lineno) for w in caught]
