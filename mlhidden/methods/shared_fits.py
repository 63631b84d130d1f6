"""Fits shared between methods on the same split: computed by the first, reused by the others.

Several methods build an identical piece on the same training rows: ``PCC`` trains ``CC``'s
chain, ``CCASL+BR`` and ``CCASL+AML`` train ``CCASL``'s chain over the same synthetic layer,
``MBR``'s first layer is ``BR``. The piece is a pure function of its inputs (a batched
logistic fit of given arrays and settings), so it is keyed by a digest of those inputs and
the reuse is exact: the reusing method gets the very weights it would have computed.

Outside a :func:`shared_fits` block (plain scikit-learn use) nothing is cached. Inside one,
fits go to files in a folder that every worker of a run can read, so it does not matter
which process ran the first method. A reused fit counts towards the reusing method's train
time at the seconds it took to compute, so time tables stay each method's own cost.

A fit is computed once whatever the number of workers: the process computing it holds an
exclusive lock on a file beside it (``fcntl.flock``, released by the system if the process
dies), and a process needing the same fit meanwhile waits for that lock, then reads the fit.
"""

from __future__ import annotations

import hashlib
import pickle
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from mlhidden.io import write_atomically

try:
    import fcntl
except ImportError:  # Windows: no cross-process wait, a fit may then be computed twice
    fcntl = None  # type: ignore[assignment]

_active = None


def digest(*parts) -> str:
    """A hex digest of arrays (dense or sparse, by content) and plain values."""
    h = hashlib.blake2b(digest_size=20)
    for part in parts:
        if sp.issparse(part):
            part = part.tocsr()
            h.update(f"csr{part.shape}{part.dtype}".encode())
            for array in (part.indptr, part.indices, part.data):
                h.update(np.ascontiguousarray(array).view(np.uint8).data)
        elif isinstance(part, np.ndarray):
            h.update(f"nd{part.shape}{part.dtype}".encode())
            h.update(np.ascontiguousarray(part).view(np.uint8).data)
        else:
            h.update(repr(part).encode())
        h.update(b"\x1f")
    return h.hexdigest()


class SharedFits:
    """A folder of fitted pieces keyed by input digest, and what this block reused from and added to it."""

    def __init__(self, folder):
        self.folder = Path(folder)
        self.reused_seconds = 0.0
        self.n_reused = 0
        self.computed_seconds = 0.0
        self.n_computed = 0

    def get_or_compute(self, kind: str, key: str, compute):
        path = self.folder / f"{kind}-{key}.pkl"
        record = _load(path)
        if record is None:
            with self._computing(path.with_suffix(".lock")):
                record = _load(path)  # computed by the process that held the lock
                if record is None:
                    start = time.perf_counter()
                    value = compute()
                    seconds = time.perf_counter() - start
                    self.computed_seconds += seconds
                    self.n_computed += 1
                    self._save(path, (value, seconds))
                    return value
        value, seconds = record
        self.reused_seconds += seconds
        self.n_reused += 1
        return value

    def _computing(self, lock_path: Path):
        """An exclusive lock on ``lock_path`` (waiting for any other holder); none where we cannot lock."""
        if fcntl is None:
            return nullcontext()
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            file = open(lock_path, "a")
        except OSError:
            return nullcontext()
        return _flocked(file)

    def _save(self, path: Path, record):
        """Write atomically; a folder we cannot write to only means no reuse."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            write_atomically(path, lambda stream: pickle.dump(record, stream, protocol=pickle.HIGHEST_PROTOCOL))
        except OSError:
            pass


def _load(path: Path):
    """The ``(value, seconds)`` stored at ``path``, or None."""
    try:
        with open(path, "rb") as file:
            return pickle.load(file)
    except (OSError, EOFError, pickle.UnpicklingError):
        return None


@contextmanager
def _flocked(file):
    with file:
        try:
            fcntl.flock(file.fileno(), fcntl.LOCK_EX)
        except OSError:  # a file system without locks: compute without waiting
            pass
        yield  # closing the file releases the lock


@contextmanager
def shared_fits(folder):
    """Within this block, :func:`reuse_or_fit` shares fits through ``folder``."""
    global _active
    previous, _active = _active, SharedFits(folder)
    try:
        yield _active
    finally:
        _active = previous


def reuse_or_fit(kind: str, compute, *inputs):
    """``compute()``, or its earlier result for the same ``inputs`` inside a :func:`shared_fits` block.

    ``inputs`` must determine ``compute()``'s result completely (arrays and settings).
    """
    if _active is None:
        return compute()
    return _active.get_or_compute(kind, digest(*inputs), compute)
