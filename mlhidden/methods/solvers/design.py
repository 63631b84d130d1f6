"""What every batched logistic solver shares: the design ``[X, E]`` the weights multiply, the loss and
its residuals, and the fitted weights.

The L-BFGS solver (:mod:`~mlhidden.methods.solvers.batched_logistic`), liblinear's TRON
(:mod:`~mlhidden.methods.solvers.batched_tron`) and the cross-validated fits
(:mod:`~mlhidden.methods.solvers.batched_logistic_cv`) differ in how they step, not in what they
multiply or minimise, so those live here once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, DTypeLike

from mlhidden.data.dataset import Matrix
from mlhidden.methods.sparse_products import csr_from_dense, matmul, transposed

DENSE_SHARE = 0.125  # share of ones from which a dense pass beats indexing them (design columns, targets)


@dataclass
class LogisticFit:
    """The fitted weights of a batch of logistic regressions.

    Attributes
    ----------
    coef : ndarray of shape (n_features + n_extra, n_targets)
        Weights of X's columns, then of the extra columns (zero where masked out).
    intercept : ndarray of shape (n_targets,)
    n_iter : ndarray of int, shape (n_targets,)
        L-BFGS iterations each target took.
    converged : ndarray of bool, shape (n_targets,)
    """

    coef: np.ndarray
    intercept: np.ndarray
    n_iter: np.ndarray
    converged: np.ndarray


class Design:
    """The inputs ``[X, E, 1]`` as linear maps on stacked weights (one column per target).

    ``[X, E]`` is stacked once (sparse when X is: a chain's label columns are mostly zeros), so
    every product is one pass over one matrix. The products run in single precision, which halves
    their time; their rounding (1e-7 relative) is far below any gradient tolerance, and the
    iterates, the loss and the gradient's sums stay in double precision.

    With ``center`` the columns are centred implicitly (``means``), so a sparse X stays sparse.
    With ``dense_block`` (default: ``center``) the columns of a sparse design with at least
    ``DENSE_SHARE`` ones (CCASL's synthetic labels, about half ones) go to a dense block, whose
    BLAS products are several times faster than sparse ones at that density. ``dtype`` is the
    products' precision.
    """

    def __init__(
        self, X: Matrix, extra: ArrayLike | None, center: bool = False, dense_block: bool | None = None,
        dtype: DTypeLike = np.float32,
    ) -> None:
        extra = None if extra is None else np.asarray(extra, dtype=np.float64)
        self.dense_columns = np.array([], dtype=int)
        if (center if dense_block is None else dense_block) and sp.issparse(X):
            self._split_dense(X, extra, dtype)
        else:
            stacked = X
            if extra is not None:
                sparse_x = sp.issparse(X)
                stacked = sp.hstack([X, csr_from_dense(extra)], format="csr") if sparse_x else np.hstack([X, extra])
            self.X = stacked.astype(dtype)
        self.X_T = transposed(self.X)
        self.n_inputs = self.X.shape[1] + self.dense_columns.size
        self.means = _column_means(X, extra) if center else None
        self.dtype = dtype

    def _split_dense(self, X: Matrix, extra: np.ndarray | None, dtype: DTypeLike) -> None:
        """The columns of ``[X, extra]`` with at least ``DENSE_SHARE`` ones in ``self.dense``, the rest in ``self.X``.

        Taken from each part apart: stacking a dense ``extra`` into one sparse matrix first cost
        more than some of CCASL's blocks of links take to fit, with many synthetic labels. The same
        matrices, in the same order, as the stacked design's columns.
        """
        X = sp.csr_matrix(X)
        parts = [(X, np.bincount(X.indices, minlength=X.shape[1]))]
        if extra is not None:
            parts.append((extra, np.count_nonzero(extra, axis=0)))
        dense_columns, sparse_columns, dense_parts, sparse_parts = [], [], [], []
        for offset, (part, counts) in zip([0, X.shape[1]], parts):
            is_dense = counts >= DENSE_SHARE * X.shape[0]
            dense, sparse = np.flatnonzero(is_dense), np.flatnonzero(~is_dense)
            dense_columns.append(offset + dense)
            sparse_columns.append(offset + sparse)
            dense_parts.append(part if dense.size == part.shape[1] else part[:, dense])
            kept = part[:, sparse]
            sparse_parts.append(sp.csr_matrix(kept) if sp.issparse(kept) else csr_from_dense(kept))
        self.dense_columns, self.sparse_columns = np.concatenate(dense_columns), np.concatenate(sparse_columns)
        self.dense = np.empty((X.shape[0], self.dense_columns.size), dtype=dtype)
        start = 0
        for columns in dense_parts:
            self.dense[:, start : start + columns.shape[1]] = columns.toarray() if sp.issparse(columns) else columns
            start += columns.shape[1]
        self.X = sp.hstack(sparse_parts, format="csr").astype(dtype)

    def forward(self, V: np.ndarray) -> np.ndarray:
        """``[X, E] v + b`` (centred columns if ``center``) for every column ``[v; b]`` of V."""
        if self.dense_columns.size:
            Z = matmul(self.X, V[self.sparse_columns].astype(self.dtype, copy=False))
            Z += self.dense @ V[self.dense_columns].astype(self.dtype, copy=False)
        else:
            Z = matmul(self.X, V[:-1].astype(self.dtype))
        Z = np.add(Z, V[-1], out=Z if Z.dtype == V.dtype else None)
        return Z if self.means is None else np.asarray(Z - self.means @ V[:-1])

    def backward(self, R: np.ndarray) -> np.ndarray:
        """``[X, E, 1]^T R`` (centred columns if ``center``)."""
        R_cast = R.astype(self.dtype, copy=False)
        if self.dense_columns.size:
            G = np.empty((self.n_inputs + 1, R.shape[1]))
            G[self.sparse_columns] = matmul(self.X_T, R_cast)
            G[self.dense_columns] = self.dense.T @ R_cast
            G[-1] = R.sum(axis=0)
        else:
            G = np.vstack([matmul(self.X_T, R_cast), R.sum(axis=0, keepdims=True)])
        if self.means is not None:
            G[:-1] -= np.outer(self.means, G[-1])
        return G

    def original_gradient(self, G: np.ndarray) -> np.ndarray:
        """The gradient in the original coordinates ``(w, b)`` of one in the design's coordinates."""
        if self.means is None:
            return G
        return np.vstack([G[:-1] + np.outer(self.means, G[-1]), G[-1:]])

    def original_weights(self, Theta: np.ndarray) -> np.ndarray:
        """Weights ``[w; b]`` in the original coordinates, in place."""
        if self.means is not None:
            Theta[-1] -= self.means @ Theta[:-1]
        return Theta

    def design_weights(self, Theta: np.ndarray) -> np.ndarray:
        """Weights in the design's coordinates of ``[w; b]`` in the original ones, in place."""
        if self.means is not None:
            Theta[-1] += self.means @ Theta[:-1]
        return Theta


def _column_means(X: Matrix, extra: np.ndarray | None) -> np.ndarray:
    """The column means of ``[X, extra]`` in double precision (of X alone in X's precision)."""
    if extra is None:
        return np.asarray(X.mean(axis=0)).ravel()
    return np.concatenate([np.asarray(X.astype(np.float64).mean(axis=0)).ravel(), extra.mean(axis=0)])


def positive_entries(Y: np.ndarray) -> np.ndarray | None:
    """The flat indices of Y's ones, or None when they are too many to be worth indexing.

    Indexing Y's ones is faster than a dense pass when they are rare (real labels); when they
    are not (CCASL's synthetic labels, about half ones) the dense pass is, and both give the
    same bits: a ``0 * z`` added or subtracted changes no sum.
    """
    ones = Y != 0  # a boolean mask's nonzeros are found without a branch per entry
    return np.flatnonzero(ones) if np.count_nonzero(ones) < DENSE_SHARE * Y.size else None


def loss_and_residual(
    Z: np.ndarray, Y: np.ndarray, positives: np.ndarray | None, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Each column's summed log-loss, and ``sigmoid(Z) - Y``, from one ``exp``.

    ``positives`` are the flat indices of Y's ones in Z (C-contiguous), from :func:`positive_entries`.
    With ``weights`` (one per entry of Z) both are weighted: a weight of 0 leaves a row out of
    a column's problem (a cross-validation fold's held-out rows).
    """
    E = np.abs(Z)
    np.negative(E, out=E)
    np.exp(E, out=E)
    if weights is not None:
        loss = ((np.log1p(E) + np.maximum(Z, 0.0) - Y * Z) * weights).sum(axis=0)
    else:
        if positives is None:
            on_positives = np.multiply(Y, Z).sum(axis=0)
        else:
            on_positives = np.bincount(positives % Z.shape[1], weights=Z.ravel()[positives], minlength=Z.shape[1])
        loss = np.log1p(E).sum(axis=0) + np.maximum(Z, 0.0).sum(axis=0) - on_positives
    E += 1.0
    R = np.reciprocal(E, out=E)  # sigmoid(|z|)
    R -= 0.5
    np.copysign(R, Z, out=R)
    R += 0.5
    if positives is None:
        R -= Y
    else:
        R.ravel()[positives] -= 1.0
    if weights is not None:
        R *= weights
    return loss, R
