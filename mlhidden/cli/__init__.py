"""The ``mlhidden`` command line: the commands, their progress display and how a command ends.

Before numpy loads OpenBLAS, a command asks it for one thread (unless ``OPENBLAS_NUM_THREADS`` is
set): units compute with one BLAS thread anyway (:data:`mlhidden.runs.blas_threads.UNIT_BLAS_THREADS`),
while OpenBLAS reserves a thread pool and buffers per core as it loads, in this process and in
every loky worker. Under an address-space limit (``ulimit -v``) that reservation decides whether
OpenBLAS can later map its work buffer, and when it cannot it ends the process itself (``OpenBLAS
error: Memory allocation still failed``, exit 1), which is why a run maps it before its first unit
(:func:`mlhidden.runs.blas_threads.reserve_blas_buffer`).
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from mlhidden.cli.commands import cli, main  # noqa: E402

__all__ = ["cli", "main"]
