"""The elementwise passes of an MLP epoch, each several of numpy's passes in one, with numpy's roundings.

An epoch (:func:`~mlhidden.methods.mlp.train_network`) adds the biases, takes the sigmoids, forms
the output residual, multiplies the hidden one by the sigmoid's slope, sums both residuals over the
rows and takes a momentum step on each weight array: over twenty numpy passes besides the two
``exp``, each reading and writing a whole array. Compiled (:mod:`~mlhidden.methods.compiled`), the
passes between two ``exp`` are one loop each, doing the same single-precision operations in the
same order, so the network is the same bit for bit:

- a residual's sums over the rows are taken as its rows are formed, each row added in turn to the
  first, the order in which numpy's ``sum(axis=0)`` adds up an array of two or more columns (one
  column numpy sums pairwise, so numpy sums it);
- the ``exp`` stays numpy's: its vectorised single-precision exp rounds differently from numba's.

Without numba, numpy makes the same passes as before.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from mlhidden.methods.compiled import compiled_loops

ONE = np.float32(1.0)


def _negated_sum(A: Any, b: Any) -> None:
    """``A = -(A + b)``, b added to every row."""
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            A[i, j] = -(A[i, j] + b[j])


def _reciprocal_of_one_plus(A: Any) -> None:
    """``A = 1 / (A + 1)``."""
    one = np.float32(1.0)
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            A[i, j] = one / (A[i, j] + one)


def _scaled_residual(A: Any, scale: Any, T: Any, sums: Any) -> None:
    """``A = (1 / (A + 1)) * scale - T``, and ``sums = A.sum(axis=0)``."""
    one = np.float32(1.0)
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            A[i, j] = (one / (A[i, j] + one)) * scale - T[i, j]
            sums[j] = A[i, j] if i == 0 else sums[j] + A[i, j]


def _times_slope(D: Any, H: Any, sums: Any) -> None:
    """``D = D * ((1 - H) * H)``, and ``sums = D.sum(axis=0)``."""
    one = np.float32(1.0)
    for i in range(D.shape[0]):
        for j in range(D.shape[1]):
            h = H[i, j]
            D[i, j] = D[i, j] * ((one - h) * h)
            sums[j] = D[i, j] if i == 0 else sums[j] + D[i, j]


def _momentum_step(param: Any, step: Any, grad: Any, momentum: Any, rate: Any) -> None:
    """``step = step * momentum - grad * rate`` and ``param += step``, over flat arrays."""
    for i in range(param.shape[0]):
        step[i] = step[i] * momentum - grad[i] * rate
        param[i] += step[i]


@functools.cache
def _loops() -> dict[str, Any]:
    """The compiled passes by name; none without numba."""
    return compiled_loops(
        negated_sum=_negated_sum,
        reciprocal_of_one_plus=_reciprocal_of_one_plus,
        scaled_residual=_scaled_residual,
        times_slope=_times_slope,
        momentum_step=_momentum_step,
    )


def _exp_of_negated_sum(A: np.ndarray, b: np.ndarray, loops: dict[str, Any]) -> np.ndarray:
    """``exp(-(A + b))`` in place, b added to every row: the part both sigmoids of an epoch share."""
    if loops:
        loops["negated_sum"](A, b)
    else:
        A += b
        np.negative(A, out=A)
    with np.errstate(over="ignore"):
        np.exp(A, out=A)
    return A


def _row_sums_pass(loop: str, A: np.ndarray, *operands: Any) -> np.ndarray | None:
    """Run the compiled pass ``loop`` on A, returning A's sums over the rows it took on the way; None (and
    nothing run) without numba, or when A has fewer than two rows or columns, which numpy sums otherwise."""
    loops = _loops()
    if not loops or min(A.shape) < 2:
        return None
    sums = np.empty(A.shape[1], dtype=A.dtype)
    loops[loop](A, *operands, sums)
    return sums


def sigmoid_of_sum(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``1 / (1 + exp(-(A + b)))`` in place (single precision), b added to every row."""
    loops = _loops()
    _exp_of_negated_sum(A, b, loops)
    if loops:
        loops["reciprocal_of_one_plus"](A)
    else:
        A += ONE
        np.reciprocal(A, out=A)
    return A


def output_residual(A: np.ndarray, b: np.ndarray, scale: np.floating, T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``sigmoid(A + b) * scale - T`` in place, the output layer's error (each row's share of the mean), and its
    sums over the rows."""
    _exp_of_negated_sum(A, b, _loops())
    sums = _row_sums_pass("scaled_residual", A, scale, T)
    if sums is None:
        A += ONE
        np.reciprocal(A, out=A)
        A *= scale
        A -= T
        sums = A.sum(axis=0)
    return A, sums


def times_sigmoid_slope(D: np.ndarray, H: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``D * ((1 - H) * H)`` in place, the error through the hidden units' sigmoid H, and its sums over the rows."""
    sums = _row_sums_pass("times_slope", D, H)
    if sums is None:
        D *= (ONE - H) * H
        sums = D.sum(axis=0)
    return D, sums


def momentum_step(
    param: np.ndarray, step: np.ndarray, grad: np.ndarray, momentum: float | np.floating, rate: float | np.floating
) -> None:
    """Gradient descent with momentum, in place: ``step = step * momentum - grad * rate``, ``param += step``
    (``grad`` is spent: numpy's passes scale it in place)."""
    loops = _loops()
    if loops and all(a.flags.c_contiguous for a in (param, step, grad)):
        loops["momentum_step"](param.reshape(-1), step.reshape(-1), grad.reshape(-1), momentum, rate)
        return
    step *= momentum
    grad *= rate
    step -= grad
    param += step
