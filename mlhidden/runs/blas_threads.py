"""The BLAS threads of every unit, fixed, OpenBLAS's buffer mapped before the first, and the BLAS libraries a run
computed with."""

from __future__ import annotations

import sys
from functools import cache
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


OPENBLAS_BUFFER_BYTES = 33 << 20
"""What OpenBLAS maps the first time a routine needs its work buffer: its ``BUFFER_SIZE`` (32 MiB on x86-64)
and alignment. Measured: 32.15 MiB, with numpy 2.4's OpenBLAS 0.3.31 and one thread."""
BUFFER_MAPPING_SIDE = 128
"""The side of square matrices whose product needs the buffer: up to 64, OpenBLAS multiplies without it."""


@cache
def reserve_blas_buffer() -> None:
    """Make numpy's OpenBLAS map its work buffer now, with the units' thread count, or raise ``MemoryError``
    where this process's memory limit (``ulimit -v``) leaves no room for it.

    OpenBLAS maps its buffer at the first routine that needs one (a product, or a matrix-vector one
    past a few thousand entries) and keeps it for the process. Where that mapping fails it ends the
    process itself ("Memory allocation still failed after 10 retries"), from C, so no handler runs:
    the run would end with no line of ours and run.json left "running". Called before every unit,
    in the process computing it; after the first success it returns at once.

    numpy's is the OpenBLAS mlhidden's methods compute with. scipy loads one of its own, which they
    reach only through some scikit-learn solvers: reserving its buffer too would refuse runs that
    never need it. A dask worker computing several units at once maps one buffer per thread.
    """
    import numpy as np

    left = _address_space_left()
    if left is not None and left < OPENBLAS_BUFFER_BYTES:
        raise MemoryError(
            f"OpenBLAS needs {OPENBLAS_BUFFER_BYTES >> 20} MiB for its work buffer, and this process's memory limit "
            f"leaves {left >> 20} MiB"
        )
    square = np.ones((BUFFER_MAPPING_SIDE, BUFFER_MAPPING_SIDE))
    with unit_thread_limits():
        square @ square


def _address_space_left() -> int | None:
    """Bytes this process may still map under its address-space and data limits; None where neither is set
    (or where /proc does not say how much is mapped)."""
    if sys.platform != "linux":
        return None
    import resource

    limits = {"VmSize": resource.RLIMIT_AS, "VmData": resource.RLIMIT_DATA}  # what /proc/self/status counts each in
    soft = {field: resource.getrlimit(limit)[0] for field, limit in limits.items()}
    limited = {field: limit for field, limit in soft.items() if limit != resource.RLIM_INFINITY}
    if not limited:
        return None
    with open("/proc/self/status") as status:
        used = {line.split(":")[0]: int(line.split()[1]) << 10 for line in status if line.split(":")[0] in limited}
    return min(limit - used[field] for field, limit in limited.items())
