"""numpy's single-precision exp compiled (mlhidden.methods.single_exp): numpy's bits, or numpy's own loop."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba", reason="the exp compiles with numba (the fast extra); without it numpy's runs")

try:
    from numpy._core._multiarray_umath import __cpu_features__
except ImportError:  # numpy 1
    from numpy.core._multiarray_umath import __cpu_features__

from mlhidden.methods import epoch_passes, single_exp  # noqa: E402
from mlhidden.methods.epoch_passes import output_residual, sigmoid_of_sum  # noqa: E402

NUMPYS_SIMD_EXP = __cpu_features__.get("AVX2", False) and __cpu_features__.get("FMA3", False)
"""Whether numpy takes its AVX2 (or AVX-512) exp loop here, the one single_exp reproduces."""


def every_nth_float(n: int) -> np.ndarray:
    return (np.arange(0, 1 << 32, n, dtype=np.uint64)).astype(np.uint32).view(np.float32)


@pytest.mark.skipif(not NUMPYS_SIMD_EXP, reason="numpy's exp here is libm's, which the check must refuse")
def test_the_compiled_exp_is_numpys_on_a_stride_through_every_float32():
    loop = single_exp.exp_in_place()
    assert loop is not None, "numpy's exp loop changed: single_exp no longer reproduces it"
    x = every_nth_float(61)
    with np.errstate(all="ignore"):
        numpys = np.exp(x)
    loop(x)
    assert np.array_equal(x.view(np.uint32), numpys.view(np.uint32))
    assert np.isnan(x).any() and np.isinf(x).any() and (x == 0).any()
    assert ((x > 0) & (x < np.finfo(np.float32).tiny)).any(), "subnormal results"


def test_a_numpy_whose_exp_rounds_otherwise_keeps_its_own_loop(monkeypatch):
    real_exp = np.exp

    def one_ulp_up(x, *args, **kwargs):
        return np.nextafter(real_exp(x, *args, **kwargs), np.float32(np.inf))

    monkeypatch.setattr(single_exp.np, "exp", one_ulp_up)
    assert single_exp.exp_in_place.__wrapped__() is None


@pytest.mark.skipif(not NUMPYS_SIMD_EXP, reason="the epoch takes numpy's exp here")
def test_the_sigmoids_take_the_compiled_exp_with_numpys_bits(monkeypatch):
    assert "exp" in epoch_passes._loops()
    rng = np.random.RandomState(2)
    A = rng.normal(0, 40, (300, 37)).astype(np.float32)
    A[0, :4] = [np.inf, -np.inf, np.nan, 87.5]
    b, T = rng.normal(size=37).astype(np.float32), (rng.uniform(size=(300, 37)) < 0.2).astype(np.float32)
    share = np.float32(1 / 300)
    ours = sigmoid_of_sum(A.copy(), b), *output_residual(A.copy(), b, share, T)
    monkeypatch.setattr(epoch_passes, "_loops", dict)
    numpys = sigmoid_of_sum(A.copy(), b), *output_residual(A.copy(), b, share, T)
    for mine, theirs in zip(ours, numpys):
        assert np.array_equal(mine.view(np.uint32), theirs.view(np.uint32))
