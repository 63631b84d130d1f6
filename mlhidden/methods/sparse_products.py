"""Sparse times dense products in scipy's own order of additions, compiled for this CPU (the ``fast`` extra).

scipy multiplies a CSR or CSC matrix by a dense one in two loops (sparsetools' ``csr_matvecs`` and
``csc_matvecs``): for each stored nonzero ``a`` at ``(i, j)``, in storage order, row ``i`` of the
result gets ``a`` times row ``j`` of the dense matrix added, entry by entry, starting from zero.
scipy's wheels compile those loops for a baseline x86-64, with 128-bit vectors. The same loops
compiled for the CPU at hand use its widest vectors and make the same roundings in the same order,
so the products are the same bit for bit (no FMA, which would round once where scipy rounds twice).
CSR products run as :mod:`~mlhidden.methods.row_kernels` (LLVM IR holding each row's sums in
registers), CSC ones as a numba loop (:mod:`~mlhidden.methods.compiled`). Without the ``fast``
extra, scipy computes the products: slower, the same numbers.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import scipy.sparse as sp

from mlhidden.data.dataset import Matrix
from mlhidden.methods.compiled import compiled_loops
from mlhidden.methods.row_kernels import CACHE_LINE, rows_times_dense

COMPILED_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
CHUNK_BYTES = 400_000
"""The most bytes of B's rows one chunk of a :class:`ColumnChunks` product reads: about a fifth of an L2 cache."""


def _columns_times_dense(indptr: Any, indices: Any, data: Any, B: Any, out: Any) -> None:
    """``out += A @ B`` for CSC A in scipy's ``csc_matvecs`` order: column by column, each nonzero adds to its row."""
    for j in range(indptr.shape[0] - 1):
        for stored in range(indptr[j], indptr[j + 1]):
            i, a = indices[stored], data[stored]
            for k in range(B.shape[1]):
                out[i, k] += a * B[j, k]


@functools.cache
def _kernels() -> dict[str, Any]:
    """The compiled kernels by sparse format (the CSR one a function of A and B, the CSC one numba's loop); none
    without the ``fast`` extra."""
    kernels = compiled_loops(csc=_columns_times_dense)
    csr = rows_times_dense()
    return kernels if csr is None else {**kernels, "csr": csr}


def compiled() -> bool:
    """Whether CSR products run compiled (the ``fast`` extra is installed), not through scipy."""
    return "csr" in _kernels()


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


@dataclass(frozen=True)
class ColumnChunks:
    """A CSR matrix as consecutive chunks of its columns (each a CSR matrix), for products with a B too large for
    L2: each chunk gathers only the rows of B its columns name, which stay in cache while it runs.

    Every chunk adds its terms onto the sums the chunks before it stored (the row kernels' ``_onto``
    variant): each sum takes its terms in the CSR matrix's storage order, and a stored single- or
    double-precision sum reloads with the same bits, so the product is the whole matrix's bit for bit.
    """

    shape: tuple[int, int]
    starts: tuple[int, ...]
    parts: tuple[Any, ...]

    @property
    def dtype(self) -> np.dtype[Any]:
        dtype: np.dtype[Any] = self.parts[0].dtype
        return dtype


def in_column_chunks(A: Matrix, columns_of_b: int) -> Matrix | ColumnChunks:
    """A CSR A (int32 indices, float32 or float64) as :class:`ColumnChunks` of at most :data:`CHUNK_BYTES` of the
    rows of a B with ``columns_of_b`` columns each, where the products are compiled and A has more than one
    chunk of columns; anything else as it is."""
    sparse: Any = A
    if not sp.issparse(A) or sparse.format != "csr" or A.dtype not in COMPILED_DTYPES or not compiled():
        return A
    rows = max(CHUNK_BYTES // max(columns_of_b * A.dtype.itemsize, 1), 1)
    if A.shape[1] <= rows or not sparse.indices.dtype == sparse.indptr.dtype == np.int32:
        return A
    starts = tuple(range(0, A.shape[1], rows))
    parts = tuple(sparse[:, start : start + rows].tocsr() for start in starts)
    return ColumnChunks(A.shape, starts, parts)


def padded_rows(n_rows: int, n_columns: int, dtype: Any) -> np.ndarray:
    """Zeros of shape ``(n_rows, n_columns)`` whose rows each start on a cache line, where the products are compiled
    (else a C-ordered array): rows of B that a CSR times B gathers, so that no vector load of a row straddles two
    lines. Each row is padded to whole lines, and the padding is never read."""
    if not compiled():
        return np.zeros((n_rows, n_columns), dtype=dtype)
    itemsize = np.dtype(dtype).itemsize
    per_line = CACHE_LINE // itemsize
    stride = -(-n_columns // per_line) * per_line
    raw = np.zeros(n_rows * stride + per_line, dtype=dtype)
    skip = (-raw.ctypes.data % CACHE_LINE) // itemsize
    return raw[skip : skip + n_rows * stride].reshape(n_rows, stride)[:, :n_columns]


def with_padded_rows(B: np.ndarray) -> np.ndarray:
    """B's entries in :func:`padded_rows`."""
    padded = padded_rows(B.shape[0], B.shape[1], B.dtype)
    padded[...] = B
    return padded


def rows_contiguous(A: np.ndarray) -> bool:
    """Whether A's rows are contiguous and evenly spaced after one another, as C order and :func:`padded_rows` lay
    them out (the row kernels take any such B)."""
    if A.ndim != 2 or A.size == 0:
        return A.flags.c_contiguous
    return A.strides[1] == A.itemsize and A.strides[0] % A.itemsize == 0 and A.strides[0] >= A.shape[1] * A.itemsize


def _with_contiguous_rows(B: np.ndarray) -> np.ndarray:
    return B if rows_contiguous(B) else np.ascontiguousarray(B)


def _chunked_matmul(A: ColumnChunks, B: np.ndarray) -> np.ndarray:
    kernel = _kernels()["csr"]
    B = _with_contiguous_rows(B)
    out: np.ndarray | None = None
    for start, part in zip(A.starts, A.parts):
        rows = B[start : start + part.shape[1]]
        out = kernel(part, rows) if out is None else kernel(part, rows, out)
    return cast(np.ndarray, out)


def matmul(A: Matrix | ColumnChunks, B: np.ndarray) -> np.ndarray:
    """``A @ B`` as scipy and numpy compute it, bit for bit; a CSR or CSC A times a 2-D B of A's dtype
    (float32 or float64) runs compiled for this CPU, as does :class:`ColumnChunks` (B of its dtype). Anything
    else (dense A, mixed dtypes) is ``A @ B``."""
    if isinstance(A, ColumnChunks):
        return _chunked_matmul(A, B)
    if not sp.issparse(A) or B.ndim != 2 or B.dtype != A.dtype or A.dtype not in COMPILED_DTYPES:
        return np.asarray(A @ B)
    sparse: Any = A
    kernels = _kernels()
    if sparse.format == "csr" and "csr" in kernels and sparse.indices.dtype == sparse.indptr.dtype == np.int32:
        return np.asarray(kernels["csr"](sparse, _with_contiguous_rows(B)))
    if sparse.format != "csc" or "csc" not in kernels:
        return np.asarray(A @ B)
    out = np.zeros((A.shape[0], B.shape[1]), dtype=A.dtype)
    kernels["csc"](sparse.indptr, sparse.indices, sparse.data, np.ascontiguousarray(B), out)
    return out


def csr_from_dense(Z: np.ndarray) -> sp.csr_matrix:
    """``scipy.sparse.csr_matrix(Z, dtype=np.float64)`` for a 2-D Z, the same arrays, several times faster on 0/1
    columns.

    scipy finds the nonzeros with ``Z.nonzero()``, a branch per entry, which mispredicts on label and
    synthetic columns of about half ones (60 ms for Corel5k's 3000 x 748 outputs); a boolean mask's
    flat nonzeros, in the same row-major order, take a tenth of that.
    """
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    stored = Z != 0
    flat = np.flatnonzero(stored)
    indptr = np.zeros(Z.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.count_nonzero(stored, axis=1), out=indptr[1:])
    return sp.csr_matrix((Z.ravel()[flat], flat % max(Z.shape[1], 1), indptr), shape=Z.shape)
