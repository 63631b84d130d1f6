"""numpy's single-precision ``exp``, compiled, bit for bit: the sigmoids of an MLP epoch without numpy's slower loop.

numpy computes ``exp`` of a float32 array on an x86-64 CPU with AVX2 and FMA (``simd_exp_FLOAT`` in its
``loops_exponent_log`` sources): x is reduced to r = x - k ln 2 (k = x log2 e rounded to nearest, ln 2 in two
parts, by FMA), exp(r) is a degree 5 over degree 2 polynomial ratio (Horner's rule, by FMA, one division), and
k goes into the exponent's bits. Its AVX-512 loop differs only in that last step, where both round correctly.
:func:`exp_single` makes the same operations in the same order; compiled for the CPU at hand, its loop has none
of numpy's masked loads, gathers and status flags.

Another numpy (a CPU without AVX2, a numpy whose ``exp`` changed) rounds differently: :func:`exp_in_place`
checks :func:`exp_single` against ``numpy.exp`` first (:func:`probe_values`) and gives no loop where one bit
differs. This module imports numba; :mod:`~mlhidden.methods.epoch_passes` imports it only where numba is installed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import types
from numba.extending import intrinsic

from mlhidden.methods.compiled import compiler


def _fma_typed(typingctx: Any, a: Any, b: Any, c: Any) -> Any:
    """``a * b + c`` rounded once (LLVM's ``fma``: the CPU's instruction, or libm's exact one without it)."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.fma(*args)

    return types.float32(types.float32, types.float32, types.float32), codegen


def _bitcast(source: Any, target: Any) -> Any:
    """A numba function giving the ``target`` number whose bits are its ``source`` argument's."""

    def typed(typingctx: Any, value: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.bitcast(args[0], context.get_value_type(target))

        return target(source), codegen

    return intrinsic(typed)


_fma: Any = intrinsic(_fma_typed)
_bits, _from_bits = _bitcast(types.float32, types.int32), _bitcast(types.int32, types.float32)


_F = np.float32
_XMAX, _XMIN = _F(88.72283935546875), _F(-103.97208404541015625)
_LOG2E, _ROUNDING = _F(1.4426950408889634), _F(float.fromhex("0x1.8p23"))
_LN2_HIGH, _LN2_LOW = _F(-6.93145752e-1), _F(-1.42860677e-6)
_P0, _P1, _P2 = _F(9.999999999980870924916e-01), _F(7.257664613233124478488e-01), _F(2.473615434895520810817e-01)
_P3, _P4, _P5 = _F(5.114512081637298353406e-02), _F(6.757896990527504603057e-03), _F(5.082762527590693718096e-04)
_Q0, _Q1, _Q2 = _F(1.0), _F(-2.742335390411667452936e-01), _F(2.159509375685829852307e-02)
_ZERO, _INF, _NAN = _F(0.0), _F(np.inf), _F(np.nan)


def _exp_single(x: Any) -> Any:
    """numpy's float32 ``exp(x)``: inf from ``_XMAX`` up, 0 from ``_XMIN`` down, NaN for NaN; silent."""
    nan = x != x
    over = x >= _XMAX
    under = x <= _XMIN
    if nan or over or under:
        x = _ZERO
    k = (x * _LOG2E + _ROUNDING) - _ROUNDING
    r = _fma(k, _LN2_LOW, _fma(k, _LN2_HIGH, x))  # numpy's third step adds k * 0: only a zero's sign can change
    numerator = _fma(_fma(_fma(_fma(_fma(_P5, r, _P4), r, _P3), r, _P2), r, _P1), r, _P0)
    ratio = numerator / _fma(_fma(_Q2, r, _Q1), r, _Q0)
    # 2^k into the exponent: from k = -125 down, 2^-125 there and the rest (an exact power of two) multiplied in.
    exponent = np.int32(k)
    below = max(-125 - exponent, 0)
    result = _from_bits(_bits(ratio) + (max(exponent, -125) << 23)) * _from_bits(np.int32((127 - below) << 23))
    if nan:
        result = _NAN
    if over:
        result = _INF
    if under:
        result = _ZERO
    return result


def _exp_in_place(x: Any) -> None:
    """``x = exp(x)`` for a 1-D array."""
    for i in range(x.shape[0]):
        x[i] = exp_single(x[i])


_jit: Any = compiler()
exp_single = _jit(_exp_single)


def probe_values() -> np.ndarray:
    """float32 values on which :func:`exp_single` must be numpy's: every exponent and sign by a stride through the
    bit patterns, and every float near the edges of ``exp``'s range (overflow, underflow, subnormal results)."""
    spread = (np.arange(1 << 18, dtype=np.uint64) * 0x9E3779B1 % (1 << 32)).astype(np.uint32).view(np.float32)
    edges = np.array([_XMAX, _XMIN, -87.33654, -86.64339, -88.02969, 0.0], dtype=np.float32)
    near = (edges.view(np.int32)[:, None] + np.arange(-2048, 2048, dtype=np.int32)).ravel().view(np.float32)
    special = np.array([np.inf, -np.inf, np.nan, -0.0, np.finfo(np.float32).tiny, 1e-45], dtype=np.float32)
    return np.concatenate([spread, near, special, -special])


@functools.cache
def exp_in_place() -> Callable[[np.ndarray], None] | None:
    """A compiled ``x = exp(x)`` for a 1-D float32 x where :func:`exp_single` is this numpy's ``exp`` on
    :func:`probe_values`; None where it is not."""
    x = probe_values()
    with np.errstate(all="ignore"):
        numpys = np.exp(x)
    loop = _jit(_exp_in_place)
    loop(x)
    return loop if np.array_equal(x.view(np.uint32), numpys.view(np.uint32)) else None
