"""Fits shared between methods on the same split: computed by the first, reused by the others.

Several methods build an identical piece on the same training rows: ``PCC`` trains ``CC``'s
chain, ``CCASL+BR`` and ``CCASL+AML`` train ``CCASL``'s chain over the same synthetic layer,
``MBR``'s first layer is ``BR``. The piece is a pure function of its inputs (a batched
logistic fit of given arrays and settings), so it is keyed by a digest of those inputs and
the reuse is exact: the reusing method gets the very weights it would have computed.

A unit's fit runs inside :meth:`SharedFits.active` of the :class:`SharedFits` object the
runner hands it (:func:`mlhidden.runs.unit_fit.fit_unit`); outside (plain scikit-learn use)
nothing is cached. Fits go to files in a folder that every worker of a run can read, so it does
not matter which process ran the first method. The object counts what the unit reused and what
that cost to compute, which the store keeps apart from the unit's own train time.

Why a context variable rather than a ``fit`` parameter: the base fits that may be shared sit
several estimators deep (a stacked method clones and refits its middle layer per fold, a
``Pipeline`` routes ``fit`` parameters only by step name, and a method given by import path has
scikit-learn's ``fit(X, y)`` and nothing more), so a parameter would have to pass through every
method's ``fit`` and every clone. :data:`ACTIVE` is set in one place, scoped to one unit's fit,
and is per thread, so concurrent fits in one process never see each other's.

A fit is computed once whatever the number of workers: the process computing it holds an
exclusive lock on a file beside it (``fcntl.flock``, released by the system if the process
dies), and a process needing the same fit meanwhile waits for that lock, then reads the fit.
That needs a folder every worker can reach; a dask cluster's machines share their fits through the
cluster instead (:mod:`mlhidden.experiment.dask_fits`), with the same lock, read, compute and publish.
"""

from __future__ import annotations

import copy
import hashlib
import pickle
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from pathlib import Path
from typing import IO, Any, TypeVar, cast

import numpy as np
import scipy.sparse as sp

from mlhidden.io import PathLike, write_atomically

T = TypeVar("T")

try:
    import fcntl
except ImportError:  # Windows: no cross-process wait, a fit may then be computed twice
    fcntl = None  # type: ignore[assignment]


def digest(*parts: Any) -> str:
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
    """A folder of fitted pieces keyed by input digest, and what this block reused from and added to it.

    The folder, its lock files and its pickles are this class's place to keep fits; a subclass keeps
    them elsewhere by giving :meth:`_load`, :meth:`_computing` and :meth:`_save` for a fit's name
    (``{kind}-{digest}``), such as the memory of a dask cluster's workers
    (:class:`mlhidden.experiment.dask_fits.ClusterFits`).
    """

    def __init__(self, folder: PathLike) -> None:
        self.folder = Path(folder)
        self.reused_seconds = 0.0
        self.n_reused = 0

    def for_unit(self) -> SharedFits:
        """The same place with nothing reused yet: what one unit reuses is counted apart from the others."""
        fresh = copy.copy(self)
        fresh.reused_seconds, fresh.n_reused = 0.0, 0
        return fresh

    def get_or_compute(self, kind: str, key: str, compute: Callable[[], T]) -> T:
        name = f"{kind}-{key}"
        cached = self._load(name)
        if cached is None:
            with self._computing(name):
                cached = self._load(name)  # computed by the process that held the lock
                if cached is None:
                    start = time.perf_counter()
                    value = compute()
                    seconds = time.perf_counter() - start
                    self._save(name, (value, seconds))
                    return value
        value, seconds = cached
        self.reused_seconds += seconds
        self.n_reused += 1
        return cast(T, value)

    def _load(self, name: str) -> Any:
        """The ``(value, seconds)`` stored under ``name``, or None."""
        try:
            with open(self.folder / f"{name}.pkl", "rb") as file:
                return pickle.load(file)
        except (OSError, EOFError, pickle.UnpicklingError):
            return None

    def _computing(self, name: str) -> AbstractContextManager[object]:
        """An exclusive lock on ``name``'s lock file (waiting for any other holder); none where we cannot lock."""
        if fcntl is None:
            return nullcontext()
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            file = open(self.folder / f"{name}.lock", "a")
        except OSError:
            return nullcontext()
        return _flocked(file)

    def _save(self, name: str, computed: tuple[object, float]) -> None:
        """Write atomically; a folder we cannot write to only means no reuse."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            write_atomically(
                self.folder / f"{name}.pkl",
                lambda stream: pickle.dump(computed, stream, protocol=pickle.HIGHEST_PROTOCOL),
            )
        except OSError:
            pass

    @contextmanager
    def active(self) -> Iterator[SharedFits]:
        """Within this block (one unit's fit), :func:`reuse_or_fit` shares fits through this object."""
        token = ACTIVE.set(self)
        try:
            yield self
        finally:
            ACTIVE.reset(token)


@contextmanager
def _flocked(file: IO[str]) -> Iterator[None]:
    with file:
        try:
            fcntl.flock(file.fileno(), fcntl.LOCK_EX)
        except OSError:  # a file system without locks: compute without waiting
            pass
        yield  # closing the file releases the lock


ACTIVE: ContextVar[SharedFits | None] = ContextVar("mlhidden_shared_fits", default=None)
"""The :class:`SharedFits` of the unit being fitted, set only by :meth:`SharedFits.active`."""


def reuse_or_fit(kind: str, compute: Callable[[], T], *inputs: object) -> T:
    """``compute()``, or its earlier result for the same ``inputs`` inside :meth:`SharedFits.active`.

    ``inputs`` must determine ``compute()``'s result completely (arrays and settings).
    """
    shared = ACTIVE.get()
    if shared is None:
        return compute()
    return shared.get_or_compute(kind, digest(*inputs), compute)
