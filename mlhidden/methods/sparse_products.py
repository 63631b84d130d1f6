"""Sparse times dense products in scipy's own order of additions, compiled for this CPU when numba is installed.

scipy multiplies a CSR or CSC matrix by a dense one in two loops (sparsetools' ``csr_matvecs`` and
``csc_matvecs``): for each stored nonzero ``a`` at ``(i, j)``, in storage order, row ``i`` of the
result gets ``a`` times row ``j`` of the dense matrix added, entry by entry, starting from zero.
scipy's wheels compile those loops for a baseline x86-64, with 128-bit vectors. The same loops
compiled by numba for the CPU at hand use its widest vectors and make the same roundings in the
same order, so the products are the same bit for bit (no FMA, which would round once where scipy
rounds twice: :mod:`~mlhidden.methods.compiled`). Without numba (the ``fast`` extra), scipy
computes the products: slower, the same numbers.
"""

from __future__ import annotations

import functools
from typing import Any, cast

import numpy as np
import scipy.sparse as sp

from mlhidden.data.dataset import Matrix
from mlhidden.methods.compiled import compiled_loops

COMPILED_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _rows_times_dense(indptr: Any, indices: Any, data: Any, B: Any, out: Any) -> None:
    """``out = A @ B`` for CSR A in scipy's ``csr_matvecs`` order: row i starts from zero and gets its nonzeros'
    rows of B added, in storage order. Four nonzeros at a time, so that each entry of row i stays in a register
    across four additions (the same additions, in the same order) rather than going back to memory after each.
    Each row is zeroed as it starts, while it is in cache, rather than all of ``out`` in a pass before."""
    for i in range(indptr.shape[0] - 1):
        for k in range(B.shape[1]):
            out[i, k] = 0.0
        stored, stop = indptr[i], indptr[i + 1]
        while stored + 4 <= stop:
            j1, j2, j3, j4 = indices[stored], indices[stored + 1], indices[stored + 2], indices[stored + 3]
            a1, a2, a3, a4 = data[stored], data[stored + 1], data[stored + 2], data[stored + 3]
            for k in range(B.shape[1]):
                out[i, k] = (((out[i, k] + a1 * B[j1, k]) + a2 * B[j2, k]) + a3 * B[j3, k]) + a4 * B[j4, k]
            stored += 4
        for rest in range(stored, stop):
            j, a = indices[rest], data[rest]
            for k in range(B.shape[1]):
                out[i, k] += a * B[j, k]


def _columns_times_dense(indptr: Any, indices: Any, data: Any, B: Any, out: Any) -> None:
    """``out += A @ B`` for CSC A in scipy's ``csc_matvecs`` order: column by column, each nonzero adds to its row."""
    for j in range(indptr.shape[0] - 1):
        for stored in range(indptr[j], indptr[j + 1]):
            i, a = indices[stored], data[stored]
            for k in range(B.shape[1]):
                out[i, k] += a * B[j, k]


@functools.cache
def _kernels() -> dict[str, Any]:
    """The compiled loops by sparse format; none without numba."""
    return compiled_loops(csr=_rows_times_dense, csc=_columns_times_dense)


def compiled() -> bool:
    """Whether the products run compiled (numba is installed), not through scipy."""
    return bool(_kernels())


def transposed(A: Matrix) -> Matrix:
    """A's transpose in the layout its products run fastest in: for a CSR A, a CSR copy when the products are
    compiled (its rows accumulate in registers), else the same arrays read as CSC (scipy's faster layout).

    Both give the products of the CSC view bit for bit: ``csc_matvecs`` adds to row i of the result
    column by column, in column order, which is the order of row i of the CSR copy (scipy's conversion
    keeps it).
    """
    if sp.issparse(A) and compiled():
        return cast(Any, A).T.tocsr()
    return A.T


def matmul(A: Matrix, B: np.ndarray) -> np.ndarray:
    """``A @ B`` as scipy and numpy compute it, bit for bit; a CSR or CSC A times a 2-D B of A's dtype
    (float32 or float64) runs compiled for this CPU. Anything else (dense A, mixed dtypes) is ``A @ B``."""
    if not sp.issparse(A) or B.ndim != 2 or B.dtype != A.dtype or A.dtype not in COMPILED_DTYPES:
        return np.asarray(A @ B)
    sparse: Any = A
    kernel = _kernels().get(sparse.format)
    if kernel is None:
        return np.asarray(A @ B)
    shape = (A.shape[0], B.shape[1])
    out = np.empty(shape, dtype=A.dtype) if sparse.format == "csr" else np.zeros(shape, dtype=A.dtype)
    kernel(sparse.indptr, sparse.indices, sparse.data, np.ascontiguousarray(B), out)
    return out
