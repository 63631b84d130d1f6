"""The BLAS threads of every unit, fixed, and the BLAS libraries a run computed with."""

from __future__ import annotations

from typing import Any

from threadpoolctl import threadpool_info, threadpool_limits

from mlhidden.blas_kernel import blas_kernel

UNIT_BLAS_THREADS = 1
"""The BLAS / OpenMP threads every unit computes with, wherever it runs (see :func:`unit_thread_limits`)."""


def unit_thread_limits() -> Any:
    """A context in which native thread pools (BLAS, OpenMP) use ``UNIT_BLAS_THREADS`` threads.

    The thread count changes the order of BLAS's floating-point sums, and so an L-BFGS path and
    the fitted model. Fixing it per unit, in whatever process runs it (the parent with
    ``n_jobs=1``, a loky or a dask worker), makes the numbers independent of ``n_jobs``, the
    backend, the core count and ``OMP_NUM_THREADS``. Units are the grain of parallelism, so one
    thread each costs nothing when they run side by side.
    """
    return threadpool_limits(limits=UNIT_BLAS_THREADS)


def blas_description() -> dict[str, Any]:
    """The native thread pools loaded in this process (with OpenBLAS's kernel, ``architecture``), the
    kernel mlhidden chose at start-up and why (:mod:`mlhidden.blas_kernel`), and the thread count units use,
    for run.json."""
    keys = ("user_api", "internal_api", "version", "architecture", "threading_layer", "filepath")
    libraries = [{key: info[key] for key in keys if key in info} for info in threadpool_info()]
    return {"threads_per_unit": UNIT_BLAS_THREADS, "kernel": blas_kernel(), "libraries": libraries}
