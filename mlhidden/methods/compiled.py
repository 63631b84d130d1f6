"""numba's compiler as every compiled loop of mlhidden uses it, or None where numba is not installed.

The loops (:mod:`~mlhidden.methods.sparse_products`, :mod:`~mlhidden.methods.epoch_passes`) do the
same roundings in the same order as the numpy or scipy code they replace, so their results are the
same bit for bit: numba is not allowed to fuse a multiply and an add into one FMA
(``fastmath=False``), and each loop runs on one thread, as the units are what runs in parallel.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any


@functools.cache
def compiler() -> Callable[[Callable[..., Any]], Any] | None:
    """``numba.njit`` with mlhidden's settings, or None without numba (the ``fast`` extra). numba loads on the
    first compiled loop, not with mlhidden: it takes a second, which a command that computes nothing should
    not wait."""
    try:
        import numba
    except ImportError:  # the fast extra; or a numpy newer than the numba installed supports
        return None
    return numba.njit(cache=True, nogil=True, fastmath=False, boundscheck=False, error_model="numpy")


def compiled_loops(**loops: Callable[..., Any]) -> dict[str, Any]:
    """Each of ``loops`` compiled, by name; empty without numba."""
    jit = compiler()
    return {} if jit is None else {name: jit(loop) for name, loop in loops.items()}
