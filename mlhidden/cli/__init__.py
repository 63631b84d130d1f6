"""The ``mlhidden`` command line: the commands, their progress display and how a command ends.

Before numpy loads OpenBLAS, a command asks it for one thread (unless ``OPENBLAS_NUM_THREADS`` is
set): units compute with one BLAS thread anyway (:data:`mlhidden.runs.blas_threads.UNIT_BLAS_THREADS`),
while OpenBLAS reserves a thread pool and buffers per core as it loads, in this process and in
every loky worker. Under an address-space limit (``ulimit -v``) that reservation decides whether
OpenBLAS can later map a buffer, and when it cannot it ends the process itself (``OpenBLAS error:
Memory allocation still failed``, exit 1) with no chance to record the run's end.
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from mlhidden.cli.commands import cli, main  # noqa: E402

__all__ = ["cli", "main"]
