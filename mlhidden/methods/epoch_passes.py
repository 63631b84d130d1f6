"""The elementwise passes of an MLP epoch, each several of numpy's passes in one, with numpy's roundings.

An epoch (:func:`~mlhidden.methods.mlp.train_network`) adds the biases, takes the sigmoids, forms
the output residual and multiplies the hidden one by the sigmoid's slope: thirteen passes over
arrays of rows x units in numpy besides the two ``exp``, each reading and writing the whole array, and two
more that sum the residuals' columns. Compiled (:mod:`~mlhidden.methods.compiled`), the passes between two
``exp`` are one loop each, which also sums the columns it writes, doing the same single-precision
operations in the same order, so the network is the same bit for bit. The
``exp`` is numpy's own algorithm compiled (:mod:`~mlhidden.methods.single_exp`; numba's ``exp`` rounds
differently), or numpy's loop where the two differ. Without numba, numpy makes the same passes as before.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from mlhidden.methods.compiled import compiled_loops
from mlhidden.methods.sparse_products import rows_contiguous

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
    """``A = (1 / (A + 1)) * scale - T``, and ``sums += A``'s rows, one after another."""
    one = np.float32(1.0)
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            A[i, j] = (one / (A[i, j] + one)) * scale - T[i, j]
            sums[j] += A[i, j]


def _times_slope(D: Any, H: Any, sums: Any) -> None:
    """``D = D * ((1 - H) * H)`` on H's columns of D, and ``sums += D``'s rows, one after another."""
    one = np.float32(1.0)
    for i in range(H.shape[0]):
        for j in range(H.shape[1]):
            h = H[i, j]
            D[i, j] = D[i, j] * ((one - h) * h)
            sums[j] += D[i, j]


def _momentum_step(param: Any, step: Any, grad: Any, momentum: Any, rate: Any) -> None:
    """``step = step * momentum - grad * rate``, then ``param += step``, on grad's columns of param."""
    for i in range(grad.shape[0]):
        for j in range(grad.shape[1]):
            step[i, j] = step[i, j] * momentum - grad[i, j] * rate
            param[i, j] = param[i, j] + step[i, j]


@functools.cache
def _loops() -> dict[str, Any]:
    """The compiled passes by name, ``exp`` among them where it is numpy's bit for bit; none without numba."""
    loops = compiled_loops(
        negated_sum=_negated_sum,
        reciprocal_of_one_plus=_reciprocal_of_one_plus,
        scaled_residual=_scaled_residual,
        times_slope=_times_slope,
        momentum_step=_momentum_step,
    )
    if loops:
        from mlhidden.methods.single_exp import exp_in_place

        exp = exp_in_place()
        if exp is not None:
            loops["exp"] = exp
    return loops


def _exp_of_negated_sum(A: np.ndarray, b: np.ndarray, loops: dict[str, Any]) -> np.ndarray:
    """``exp(-(A + b))`` in place, b added to every row: the part both sigmoids of an epoch share."""
    if loops:
        loops["negated_sum"](A, b)
    else:
        A += b
        np.negative(A, out=A)
    if "exp" in loops and A.flags.c_contiguous:
        loops["exp"](A.reshape(-1))
        return A
    with np.errstate(over="ignore"):
        np.exp(A, out=A)
    return A


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


def _summed_in_the_pass(A: np.ndarray) -> bool:
    """Whether ``A.sum(axis=0)`` adds A's rows one after another, as a compiled pass can while it writes them.

    numpy does for an A of two or more columns whose rows are contiguous (C order, or the padded rows
    of :func:`~mlhidden.methods.sparse_products.padded_rows`); one column is a contiguous vector, which
    numpy sums pairwise.
    """
    return A.ndim == 2 and A.shape[1] > 1 and rows_contiguous(A)


def whole_rows(A: np.ndarray) -> np.ndarray:
    """A 2-D A whose rows are contiguous and evenly spaced (the padded rows of
    :func:`~mlhidden.methods.sparse_products.padded_rows`) as a C-ordered array over the same memory, its rows as
    wide as they are apart; anything else as it is. numba vectorises a pass only over C-ordered rows: the passes
    that take an operand wider than the others read and write only the others' columns of it."""
    if A.ndim != 2 or A.flags.c_contiguous or not rows_contiguous(A):
        return A
    return np.lib.stride_tricks.as_strided(A, shape=(A.shape[0], A.strides[0] // A.itemsize), strides=A.strides)


def output_residual(A: np.ndarray, b: np.ndarray, scale: np.floating, T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``sigmoid(A + b) * scale - T`` in place: the output layer's error, each row's share of the mean; and its
    column sums (``A.sum(axis=0)``, bit for bit), the bias's gradient."""
    loops = _loops()
    if not loops:
        sigmoid_of_sum(A, b)
        A *= scale
        A -= T
        return A, A.sum(axis=0)
    sums = np.zeros(A.shape[1], dtype=A.dtype)
    loops["scaled_residual"](_exp_of_negated_sum(A, b, loops), scale, T, sums)
    return A, sums if _summed_in_the_pass(A) else A.sum(axis=0)


def times_sigmoid_slope(D: np.ndarray, H: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``D * ((1 - H) * H)`` in place: the error through the hidden units' sigmoid H; and its column sums
    (``D.sum(axis=0)``, bit for bit), the hidden biases' gradient. D may be wider than H (:func:`whole_rows` of
    padded rows): only H's columns of it change, and those are what is returned."""
    loops = _loops()
    if not loops:
        D = D[:, : H.shape[1]]
        D *= (ONE - H) * H
        return D, D.sum(axis=0)
    sums = np.zeros(H.shape[1], dtype=D.dtype)
    loops["times_slope"](D, H, sums)
    D = D[:, : H.shape[1]]
    return D, sums if _summed_in_the_pass(D) else D.sum(axis=0)


def momentum_step(param: np.ndarray, step: np.ndarray, grad: np.ndarray, momentum: Any, rate: Any) -> None:
    """``step = step * momentum - grad * rate``, then ``param += step``, in place (single precision; ``grad`` may
    be overwritten): an epoch's update of each weight, in numpy's four passes or one compiled pass with their
    roundings. ``param`` may be wider than ``grad`` (W1's :func:`whole_rows`): only grad's columns of it change."""
    loops = _loops()
    if loops and param.flags.c_contiguous and step.flags.c_contiguous and grad.flags.c_contiguous:
        if grad.ndim == 1:
            param, step, grad = param.reshape(1, -1), step.reshape(1, -1), grad.reshape(1, -1)
        loops["momentum_step"](param, step, grad, momentum, rate)
        return
    param = param[..., : grad.shape[-1]]
    step *= momentum
    grad *= rate
    step -= grad
    param += step
