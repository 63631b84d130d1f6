"""Sparse times dense products in scipy's own order of additions, compiled for this CPU when numba is installed.

scipy multiplies a CSR or CSC matrix by a dense one in two loops (sparsetools' ``csr_matvecs`` and
``csc_matvecs``): for each stored nonzero ``a`` at ``(i, j)``, in storage order, row ``i`` of the
result gets ``a`` times row ``j`` of the dense matrix added, entry by entry, starting from zero.
scipy's wheels compile those loops for the oldest x86-64, with 128-bit vectors. The same loops
compiled by numba for the CPU at hand use its widest vectors and make the same roundings in the
same order, so the products are the same bit for bit: numba is told not to fuse a multiply and an
add into one FMA (``fastmath=False``), which rounds once where scipy rounds twice, and each
loop runs on one thread, as the units are what runs in parallel. Without numba (the ``fast``
extra), scipy computes the products: slower, the same numbers.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import scipy.sparse as sp

from mlhidden.data.dataset import Matrix

COMPILED_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _sparse_times_dense(indptr: Any, indices: Any, data: Any, by_rows: bool, B: Any, out: Any) -> None:
    """``out += A @ B``: scipy's ``csr_matvecs`` for CSR A (``by_rows``: row i gets its nonzeros' rows of B in
    storage order), its ``csc_matvecs`` for CSC A (column by column, each nonzero adds to its row)."""
    for outer in range(indptr.shape[0] - 1):
        for stored in range(indptr[outer], indptr[outer + 1]):
            inner, a = indices[stored], data[stored]
            i, j = (outer, inner) if by_rows else (inner, outer)
            for k in range(B.shape[1]):
                out[i, k] += a * B[j, k]


@functools.cache
def _kernels() -> dict[str, Any]:
    """The compiled loop, by the sparse formats it multiplies; none without numba. numba loads on the first product, not
    with mlhidden: it takes a second, which a command that multiplies nothing should not wait."""
    try:
        import numba
    except ImportError:  # the fast extra; or a numpy newer than the numba installed supports
        return {}
    jit = numba.njit(cache=True, nogil=True, fastmath=False, boundscheck=False, error_model="numpy")
    loop = jit(_sparse_times_dense)
    return {"csr": loop, "csc": loop}


def compiled() -> bool:
    """Whether the products run compiled (numba is installed), not through scipy."""
    return bool(_kernels())


def matmul(A: Matrix, B: np.ndarray) -> np.ndarray:
    """``A @ B`` as scipy and numpy compute it, bit for bit; a CSR or CSC A times a 2-D B of A's dtype
    (float32 or float64) runs compiled for this CPU. Anything else (dense A, mixed dtypes) is ``A @ B``."""
    if not sp.issparse(A) or B.ndim != 2 or B.dtype != A.dtype or A.dtype not in COMPILED_DTYPES:
        return np.asarray(A @ B)
    sparse: Any = A
    kernel = _kernels().get(sparse.format)
    if kernel is None:
        return np.asarray(A @ B)
    out = np.zeros((A.shape[0], B.shape[1]), dtype=A.dtype)
    kernel(sparse.indptr, sparse.indices, sparse.data, sparse.format == "csr", np.ascontiguousarray(B), out)
    return out
