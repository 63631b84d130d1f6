"""The elementwise passes of an MLP epoch, each several of numpy's passes in one, with numpy's roundings.

An epoch (:func:`~mlhidden.methods.mlp.train_network`) adds the biases, takes the sigmoids, forms
the output residual and multiplies the hidden one by the sigmoid's slope: thirteen passes over
arrays of rows x units in numpy besides the two ``exp``, each reading and writing the whole array. Compiled
(:mod:`~mlhidden.methods.compiled`), the passes between two ``exp`` are one loop each, doing the
same single-precision operations in the same order, so the network is the same bit for bit. The
``exp`` stays numpy's: its vectorised single-precision exp rounds differently from numba's. Without
numba, numpy makes the same passes as before.
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


def _scaled_residual(A: Any, scale: Any, T: Any) -> None:
    """``A = (1 / (A + 1)) * scale - T``."""
    one = np.float32(1.0)
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            A[i, j] = (one / (A[i, j] + one)) * scale - T[i, j]


def _times_slope(D: Any, H: Any) -> None:
    """``D = D * ((1 - H) * H)``."""
    one = np.float32(1.0)
    for i in range(D.shape[0]):
        for j in range(D.shape[1]):
            h = H[i, j]
            D[i, j] = D[i, j] * ((one - h) * h)


@functools.cache
def _loops() -> dict[str, Any]:
    """The compiled passes by name; none without numba."""
    return compiled_loops(
        negated_sum=_negated_sum,
        reciprocal_of_one_plus=_reciprocal_of_one_plus,
        scaled_residual=_scaled_residual,
        times_slope=_times_slope,
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


def output_residual(A: np.ndarray, b: np.ndarray, scale: np.floating, T: np.ndarray) -> np.ndarray:
    """``sigmoid(A + b) * scale - T`` in place: the output layer's error, each row's share of the mean."""
    loops = _loops()
    if not loops:
        sigmoid_of_sum(A, b)
        A *= scale
        A -= T
        return A
    loops["scaled_residual"](_exp_of_negated_sum(A, b, loops), scale, T)
    return A


def times_sigmoid_slope(D: np.ndarray, H: np.ndarray) -> np.ndarray:
    """``D * ((1 - H) * H)`` in place: the error through the hidden units' sigmoid H."""
    loops = _loops()
    if loops:
        loops["times_slope"](D, H)
    else:
        D *= (ONE - H) * H
    return D
