"""The compiled sparse products are scipy's, bit for bit, on every shipped dataset, in both precisions."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from mlhidden.data import load_dataset
from mlhidden.data.catalog import SHIPPED_DIR
from mlhidden.methods import sparse_products
from mlhidden.methods.sparse_products import (
    ColumnChunks,
    csr_from_dense,
    in_column_chunks,
    matmul,
    padded_rows,
    transposed,
    with_padded_rows,
)

pytest.importorskip("numba", reason="the products compile with numba (the fast extra); without it they are scipy's")

SHIPPED = sorted(path.name for path in SHIPPED_DIR.glob("*.arff*"))


def test_every_shipped_dataset_is_tried():
    assert sparse_products.compiled()
    names = {name.split(".")[0] for name in SHIPPED}
    assert {"Bibtex", "Corel5k", "Enron", "Medical", "Music", "OHSUMED", "Reuters-K500", "Scene", "Yeast"} <= names


@pytest.mark.parametrize("name", SHIPPED)
def test_csr_times_dense_and_its_transpose_as_csc_or_as_a_csr_copy_are_scipys_bit_for_bit(name):
    X = sp.csr_matrix(load_dataset(SHIPPED_DIR / name).X)
    rng = np.random.RandomState(0)
    for dtype in (np.float32, np.float64):
        A = X.astype(dtype)
        for width in (1, 37, 100):  # one column; a block of vector registers and a tail; blocks and a tail
            W = rng.normal(size=(A.shape[1], width)).astype(dtype)
            D = rng.normal(size=(A.shape[0], width)).astype(dtype)
            ours, theirs = matmul(A, W), A @ W
            assert ours.dtype == theirs.dtype == dtype
            np.testing.assert_array_equal(ours.view(np.uint8), theirs.view(np.uint8))
            transpose = A.T
            assert transpose.format == "csc" and transposed(A).format == "csr"
            theirs = (transpose @ D).view(np.uint8)
            np.testing.assert_array_equal(matmul(transpose, D).view(np.uint8), theirs)
            np.testing.assert_array_equal(matmul(transposed(A), D).view(np.uint8), theirs)


@pytest.mark.parametrize("name", SHIPPED)
def test_the_transpose_in_column_chunks_gives_scipys_product_bit_for_bit(name, monkeypatch):
    """Each chunk adds onto the sums the chunks before it stored, so every sum takes its terms in scipy's order."""
    X = sp.csr_matrix(load_dataset(SHIPPED_DIR / name).X)
    rng = np.random.RandomState(1)
    for dtype, chunk_bytes in ((np.float32, 4000), (np.float64, 30000)):
        monkeypatch.setattr(sparse_products, "CHUNK_BYTES", chunk_bytes)
        A = X.astype(dtype)
        for width in (1, 37, 100):
            D = rng.normal(size=(A.shape[0], width)).astype(dtype)
            chunked = in_column_chunks(transposed(A), width)
            assert isinstance(chunked, ColumnChunks) or A.shape[0] * width * A.dtype.itemsize <= chunk_bytes
            ours, theirs = matmul(chunked, D), A.T @ D
            assert ours.dtype == dtype
            np.testing.assert_array_equal(ours.view(np.uint8), theirs.view(np.uint8))


@pytest.mark.parametrize("name", ["Enron", "Medical"])
def test_products_with_rows_padded_to_cache_lines_are_scipys_bit_for_bit(name, monkeypatch):
    """The kernels read B's rows that far apart, and only B's own columns: the padding, filled with NaN here, is never
    added in, and each row starts on a cache line."""
    X = sp.csr_matrix(load_dataset(name).X)
    rng = np.random.RandomState(2)
    monkeypatch.setattr(sparse_products, "CHUNK_BYTES", 20000)
    for dtype in (np.float32, np.float64):
        A = X.astype(dtype)
        for width in (1, 37, 100, 129):
            B, D = (rng.normal(size=(n, width)).astype(dtype) for n in A.shape[::-1])
            padded_B, padded_D = with_padded_rows(B), with_padded_rows(D)
            if sparse_products.compiled():
                assert padded_B.strides[0] % 64 == 0 and padded_B.ctypes.data % 64 == 0
                for padded in (padded_B, padded_D):
                    np.lib.stride_tricks.as_strided(
                        padded, shape=(padded.shape[0], padded.strides[0] // padded.itemsize), strides=padded.strides,
                    )[:, width:] = np.nan
            np.testing.assert_array_equal(matmul(A, padded_B).view(np.uint8), (A @ B).view(np.uint8))
            chunked = in_column_chunks(transposed(A), width)
            np.testing.assert_array_equal(matmul(chunked, padded_D).view(np.uint8), (A.T @ D).view(np.uint8))


def test_padded_rows_are_zeros_of_their_shape():
    for shape, dtype in (((3, 5), np.float32), ((0, 7), np.float64), ((4, 16), np.float32), ((2, 0), np.float64)):
        rows = padded_rows(*shape, dtype)
        assert rows.shape == shape and rows.dtype == dtype and not rows.any()


def test_a_product_that_is_not_compiled_is_still_scipys():
    A = sp.random(30, 20, density=0.2, format="coo", random_state=0, dtype=np.float32)
    B = np.random.RandomState(1).normal(size=(20, 3))  # float64 against float32: scipy's upcast
    np.testing.assert_array_equal(matmul(A, B), A @ B)
    np.testing.assert_array_equal(matmul(A.tocsr(), B), A.tocsr() @ B)
    np.testing.assert_array_equal(matmul(A.toarray(), B), A.toarray() @ B)


def _scipys_bits_on_random_products(kernel, seed=0):
    rng = np.random.RandomState(seed)
    for dtype in (np.float32, np.float64):
        A = sp.random(200, 150, density=0.05, format="csr", random_state=rng, dtype=dtype)
        A.data -= 0.5  # signs mixed, so that sums pass through zero
        for width in (1, 7, 8, 16, 33, 64, 65, 129):
            B = rng.normal(size=(150, width)).astype(dtype)
            np.testing.assert_array_equal(kernel(A, B).view(np.uint8), (A @ B).view(np.uint8))


@pytest.mark.parametrize("cpu", ["x86-64", "haswell"])
def test_the_row_kernels_for_a_cpu_without_avx512_are_scipys_bit_for_bit(cpu):
    """Compiled for a baseline x86-64 (SSE2) or for AVX2, the kernels split their vectors into the registers
    there are and mask the tail by other instructions: the same additions, the same bits."""
    import platform

    import llvmlite.binding as llvm

    from mlhidden.methods.row_kernels import _Compiled

    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("an x86-64 CPU's code")
    if cpu == "haswell" and not {"+avx2", "+fma"} <= set(llvm.get_host_cpu_features().flatten().split(",")):
        pytest.skip("this CPU cannot run code for AVX2")
    kernels = _Compiled(cpu=cpu, features="")
    assert "zmm" not in kernels.assembly()
    _scipys_bits_on_random_products(kernels)


def test_a_block_takes_eight_accumulators_with_avx512_and_four_without():
    from mlhidden.methods.row_kernels import blocking_for

    assert blocking_for("+sse2,+avx2,+fma,+avx512f,+avx512bw").vectors == 8
    assert blocking_for("+sse2,+avx2,+fma,-avx512f,-avx512bw").vectors == 4
    assert blocking_for("").vectors == 4


def test_the_row_kernels_never_fuse_a_multiply_and_an_add():
    from mlhidden.methods.row_kernels import rows_times_dense

    kernels = rows_times_dense()
    assembly = kernels.assembly().lower()
    assert "mul" in assembly and "fmadd" not in assembly and "fmsub" not in assembly and "fnmadd" not in assembly
    _scipys_bits_on_random_products(kernels, seed=1)


def test_a_csr_matrix_with_64_bit_indices_is_multiplied_by_scipy_with_the_same_bits():
    A = sp.random(40, 30, density=0.2, format="csr", random_state=0, dtype=np.float64)
    A.indices, A.indptr = A.indices.astype(np.int64), A.indptr.astype(np.int64)
    B = np.random.RandomState(1).normal(size=(30, 5))
    np.testing.assert_array_equal(matmul(A, B), A @ B)


@pytest.mark.parametrize("name", SHIPPED)
def test_csr_from_dense_gives_scipys_arrays_for_every_label_matrix(name):
    """The labels (rare ones), their complements (mostly ones) and random halves: scipy's CSR, array for array."""
    Y = np.asarray(load_dataset(SHIPPED_DIR / name).Y, dtype=np.float64)
    halves = (np.random.RandomState(0).random_sample(Y.shape) < 0.5) * np.where(Y > 0, -0.0, 2.5)
    for Z in (Y, 1.0 - Y, halves, np.asfortranarray(Y), Y[:, :1], Y[:0], Y[:, :0]):
        ours, theirs = csr_from_dense(Z), sp.csr_matrix(Z)
        assert ours.shape == theirs.shape and ours.has_canonical_format
        for field in ("data", "indices", "indptr"):
            mine, scipys = getattr(ours, field), getattr(theirs, field)
            assert mine.dtype == scipys.dtype
            np.testing.assert_array_equal(mine.view(np.uint8), scipys.view(np.uint8))


@pytest.mark.parametrize("onto", [False, True])
def test_only_the_last_vector_of_the_tail_is_masked(onto):
    """A masked load or store costs several plain ones on a CPU without AVX-512 (2x the whole MLP on an AVX2
    EPYC): the whole blocks' kernel has none, a tail's only its last vector's (that vector's start too, onto)."""
    from mlhidden.methods.row_kernels import BLOCKING, kernel_ir

    most = max(blocking.vectors for blocking in BLOCKING.values())
    whole = kernel_ir(np.dtype(np.float32), most, onto, masked=False)
    assert "llvm.masked" not in whole
    for vectors in range(1, most + 1):
        tail = kernel_ir(np.dtype(np.float32), vectors, onto)
        assert tail.count("call <16 x float> @llvm.masked.load") == 1 + onto
        assert tail.count("call void @llvm.masked.store") == 1
        assert f"%at.b{vectors - 1}, i32 1, <16 x i1> %mask{vectors - 1}" in tail
