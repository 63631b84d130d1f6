"""The compiled sparse products are scipy's, bit for bit, on every shipped dataset, in both precisions."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from mlhidden.data import load_dataset
from mlhidden.data.catalog import SHIPPED_DIR
from mlhidden.methods import sparse_products
from mlhidden.methods.sparse_products import matmul, transposed

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
        for width in (1, 37):  # one column; several vector registers' worth and a tail
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


def test_a_product_that_is_not_compiled_is_still_scipys():
    A = sp.random(30, 20, density=0.2, format="coo", random_state=0, dtype=np.float32)
    B = np.random.RandomState(1).normal(size=(20, 3))  # float64 against float32: scipy's upcast
    np.testing.assert_array_equal(matmul(A, B), A @ B)
    np.testing.assert_array_equal(matmul(A.tocsr(), B), A.tocsr() @ B)
    np.testing.assert_array_equal(matmul(A.toarray(), B), A.toarray() @ B)
