"""Many L2-regularised logistic regressions on the same inputs, fitted as one batched problem.

Binary relevance fits one logistic regression per label on the same X, and a classifier chain's
links (trained on the true labels, so independent given Y) are the same plus some label columns.
Fitted one by one, every solver iteration of every label is two sparse matrix-*vector* products.
Fitted together, they become sparse-times-dense matrix products: one pass over X serves every
label. The solver is scikit-learn's L-BFGS (memory 10, the same stopping test), with a
backtracking line search, run for every column at once with each column's own history, step
length and stopping test: each label takes about the iterations it would take alone and leaves
the batch once it has converged (one *joint* L-BFGS over all labels is slower than the per-label
loop: there the worst-conditioned label sets everyone's iteration count). Each intercept starts
at the log-odds of its label's prior instead of 0, which saves rare labels a third to a half of
their iterations.

The objective is scikit-learn's ``LogisticRegression`` (L2, unpenalised intercept) for each
target ``l``::

    mean_i log(1 + exp(-s_il z_il)) + ||w_l||^2 / (2 C n),   z_l = X w_l + E u_l + b_l

where ``E`` are optional extra input columns of which target ``l`` may use only those marked in
``extra_mask[:, l]`` (a chain's earlier labels). A target has converged when every entry of its
gradient is at most ``tol`` in size, the test ``LogisticRegression(solver="lbfgs")`` applies.

With ``center``, L-BFGS runs in centred coordinates: ``z = (X - 1 m^T) w + c`` with ``m`` the
column means and ``c = b + m^T w``. That is a change of variables of the intercept only, so the
objective, its optimum and the stopping test (taken on the gradient in the original
coordinates) are the same; but inputs with large means (CCASL's synthetic labels, about half
ones) no longer couple every weight to the intercept, and L-BFGS needs about half the
iterations on them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, DTypeLike

from mlhidden.data.dataset import Matrix

MEMORY = 10  # scipy's L-BFGS-B default, which LogisticRegression uses
MAX_HALVINGS = 30
ARMIJO = 1e-4
# Converged columns stay in the batch, frozen, until this share of it has converged: dropping
# them copies every array of the batch, so it is done in a few large steps.
COMPACT_SHARE = 0.25
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


class _Design:
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
                stacked = sp.hstack([X, sp.csr_matrix(extra)], format="csr") if sparse_x else np.hstack([X, extra])
            self.X = stacked.astype(dtype)
        self.n_inputs = self.X.shape[1] + self.dense_columns.size
        self.means = _column_means(X, extra) if center else None
        self.dtype = dtype

    def _split_dense(self, X: Matrix, extra: np.ndarray | None, dtype: DTypeLike) -> None:
        """The columns of ``[X, extra]`` with at least ``DENSE_SHARE`` ones in ``self.dense``, the rest in ``self.X``.

        Taken from each part apart: stacking a dense ``extra`` into one sparse matrix first cost
        more than some of CCASL's blocks of links take to fit (0.5 s for 1000 synthetic labels on
        9600 rows). The same matrices, in the same order, as the stacked design's columns.
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
            sparse_parts.append(sp.csr_matrix(part[:, sparse]))
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
            Z = np.asarray(self.X @ V[self.sparse_columns].astype(self.dtype))
            Z += self.dense @ V[self.dense_columns].astype(self.dtype)
            Z = Z + V[-1]
        else:
            Z = np.asarray(self.X @ V[:-1].astype(self.dtype)) + V[-1]
        return Z if self.means is None else np.asarray(Z - self.means @ V[:-1])

    def backward(self, R: np.ndarray) -> np.ndarray:
        """``[X, E, 1]^T R`` (centred columns if ``center``)."""
        R_cast = R.astype(self.dtype)
        if self.dense_columns.size:
            G = np.empty((self.n_inputs + 1, R.shape[1]))
            G[self.sparse_columns] = np.asarray(self.X.T @ R_cast)
            G[self.dense_columns] = self.dense.T @ R_cast
            G[-1] = R.sum(axis=0)
        else:
            G = np.vstack([np.asarray(self.X.T @ R_cast), R.sum(axis=0, keepdims=True)])
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
    return np.flatnonzero(Y) if np.count_nonzero(Y) < DENSE_SHARE * Y.size else None


def _loss_and_residual(
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


class _History:
    """Each column's last ``MEMORY`` steps and gradient changes, for the L-BFGS two-loop recursion.

    Kept in single precision: it only shapes the search direction, and the line search checks
    in double precision that the direction descends.
    """

    def __init__(self, n_params: int, n_columns: int) -> None:
        self.steps = np.zeros((MEMORY, n_params, n_columns), dtype=np.float32)
        self.changes = np.zeros_like(self.steps)
        self.rho = np.zeros((MEMORY, n_columns))
        self.gamma = np.ones(n_columns, dtype=np.float32)
        self.count = 0

    def direction(self, grad: np.ndarray) -> np.ndarray:
        """``-H grad`` per column, ``H`` the column's L-BFGS inverse-Hessian estimate."""
        q = -grad.astype(np.float32)
        newest_first = [(self.count - 1 - i) % MEMORY for i in range(min(self.count, MEMORY))]
        alphas = []
        for i in newest_first:
            alpha = (self.rho[i] * np.einsum("pa,pa->a", self.steps[i], q)).astype(np.float32)
            q -= alpha * self.changes[i]
            alphas.append(alpha)
        q *= self.gamma
        for i, alpha in zip(reversed(newest_first), reversed(alphas)):
            beta = (self.rho[i] * np.einsum("pa,pa->a", self.changes[i], q)).astype(np.float32)
            q += (alpha - beta) * self.steps[i]
        return q.astype(np.float64)

    def push(self, step: np.ndarray, change: np.ndarray) -> None:
        """Add a step and its gradient change; a pair without positive curvature is skipped."""
        i = self.count % MEMORY
        curvature = np.einsum("pa,pa->a", step, change)
        norm = np.einsum("pa,pa->a", change, change)
        accepted = curvature > np.finfo(np.float64).eps * norm
        self.steps[i], self.changes[i] = step, change
        self.rho[i] = np.where(accepted, 1.0 / np.where(accepted, curvature, 1.0), 0.0)
        self.gamma = np.where(accepted, curvature / np.where(accepted, norm, 1.0), self.gamma).astype(np.float32)
        self.count += 1

    def select(self, keep: np.ndarray) -> None:
        self.steps, self.changes = np.compress(keep, self.steps, axis=2), np.compress(keep, self.changes, axis=2)
        self.rho, self.gamma = np.compress(keep, self.rho, axis=1), self.gamma[keep]


class _Batch:
    """The columns still being fitted: their weights, scores, objective, gradient and history.

    A column's final weights go to ``result`` when it stops. ``C`` and ``weights`` (row
    weights, or None) are per column; the loss is a mean over a column's rows.
    """

    def __init__(
        self, design: _Design, Theta: np.ndarray, Y: np.ndarray, mask: np.ndarray | None, penalty: np.ndarray,
        C: float | np.ndarray, weights: np.ndarray | None,
    ) -> None:
        self.design, self.penalty = design, penalty
        self.result = Theta
        self.index = np.arange(Y.shape[1])
        self.live = np.ones(Y.shape[1], dtype=bool)
        self.theta, self.Y, self.mask, self.weights = Theta.copy(), Y, mask, weights
        self.n_rows = np.full(Y.shape[1], float(Y.shape[0])) if weights is None else weights.sum(axis=0)
        self.lam = 1.0 / (np.asarray(C, dtype=np.float64) * self.n_rows)
        self.positives = positive_entries(Y)
        self.Z = design.forward(Theta)
        self.f, residual = self.evaluate(self.Z, self.theta)
        self.grad = self.gradient(residual, self.theta)
        self.history = _History(Theta.shape[0], Y.shape[1])

    def evaluate(
        self, Z: np.ndarray, theta: np.ndarray, columns: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The objective at scores Z and weights theta of every column (or of ``columns``), and the loss residual."""
        if columns is None:
            Y, weights, positives, n_rows, lam = self.Y, self.weights, self.positives, self.n_rows, self.lam
        else:
            Y = np.take(self.Y, columns, axis=1)
            weights = None if self.weights is None else np.take(self.weights, columns, axis=1)
            positives, n_rows, lam = positive_entries(Y), self.n_rows[columns], self.lam[columns]
        loss, residual = _loss_and_residual(Z, Y, positives, weights)
        return loss / n_rows + 0.5 * lam * np.einsum("pa,pa->a", self.penalty * theta, theta), residual

    def gradient(self, residual: np.ndarray, theta: np.ndarray) -> np.ndarray:
        grad = self.design.backward(residual) / self.n_rows + self.lam * self.penalty * theta
        return grad if self.mask is None else np.asarray(grad * self.mask)

    def step(self) -> np.ndarray:
        """One L-BFGS iteration of every live column; returns the columns where no step decreases f."""
        d = self.history.direction(self.grad)
        d *= self.live
        if self.mask is not None:
            d *= self.mask
        dZ = self.design.forward(d)
        slope = np.einsum("pa,pa->a", self.grad, d)
        if self.history.count:
            t = np.ones(self.index.size)
        else:  # a frozen column may have a zero gradient (a warm start at its optimum)
            t = 1.0 / np.sqrt(np.maximum(np.einsum("pa,pa->a", self.grad, self.grad), np.finfo(np.float64).tiny))
        theta, Z = self.theta + t * d, self.Z + t * dZ
        f, residual = self.evaluate(Z, theta)
        pending = np.flatnonzero(f > self.f + ARMIJO * t * slope)
        for _ in range(MAX_HALVINGS):
            if pending.size == 0:
                break
            t[pending] *= 0.5
            theta[:, pending] = self.theta[:, pending] + t[pending] * d[:, pending]
            Z_pending = np.take(self.Z, pending, axis=1) + t[pending] * np.take(dZ, pending, axis=1)
            Z[:, pending] = Z_pending
            f[pending], residual[:, pending] = self.evaluate(Z_pending, theta[:, pending], pending)
            pending = pending[f[pending] > self.f[pending] + ARMIJO * t[pending] * slope[pending]]
        failed = np.zeros(self.index.size, dtype=bool)
        failed[pending] = True
        theta[:, failed], Z[:, failed], f[failed] = self.theta[:, failed], self.Z[:, failed], self.f[failed]
        grad = self.gradient(residual, theta)
        grad[:, failed] = self.grad[:, failed]
        self.history.push((theta - self.theta).astype(np.float32), (grad - self.grad).astype(np.float32))
        self.theta, self.Z, self.f, self.grad = theta, Z, f, grad
        return failed

    def freeze(self, stop: np.ndarray) -> None:
        """Stop the columns marked in ``stop`` at their weights; drop the frozen ones once there are enough."""
        self.result[:, self.index[stop]] = self.theta[:, stop]
        self.live &= ~stop
        if (~self.live).sum() >= COMPACT_SHARE * self.index.size:
            keep = self.live
            self.index, self.live, self.f, self.n_rows, self.lam = (
                a[keep] for a in (self.index, self.live, self.f, self.n_rows, self.lam)
            )
            self.theta, self.Y, self.Z, self.grad = (
                np.compress(keep, a, axis=1) for a in (self.theta, self.Y, self.Z, self.grad)
            )
            self.mask, self.weights = (
                None if a is None else np.compress(keep, a, axis=1) for a in (self.mask, self.weights)
            )
            self.positives = positive_entries(self.Y)
            self.history.select(keep)


def fit_batched_logistic(
    X: Matrix, Y: np.ndarray, *, extra: ArrayLike | None = None, extra_mask: np.ndarray | None = None, C: float = 1.0,
    tol: float = 1e-4, max_iter: int = 100, center: bool = False,
) -> LogisticFit:
    """Fit one logistic regression per column of Y, all at once, by per-column L-BFGS.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n_samples, n_features)
    Y : ndarray of shape (n_samples, n_targets)
        Binary 0/1 targets; every column must hold both classes.
    extra : ndarray of shape (n_samples, n_extra), optional
        Further dense input columns (a chain's labels).
    extra_mask : ndarray of bool, shape (n_extra, n_targets), optional
        Which extra columns each target uses; all of them when omitted.
    C : float, default=1.0
        Inverse regularisation strength, as in ``LogisticRegression``.
    tol : float, default=1e-4
        Gradient tolerance, as in ``LogisticRegression(solver="lbfgs")``.
    max_iter : int, default=100
        L-BFGS iterations at most per target.
    center : bool, default=False
        Run L-BFGS in centred coordinates (see the module docstring): the same optimum, fewer
        iterations when inputs have large means, different rounding.

    Returns
    -------
    LogisticFit
    """
    design = _Design(X, extra, center)
    return solve_logistic(design, Y, extra_mask=None if extra is None else extra_mask, C=C, tol=tol, max_iter=max_iter)


def solve_logistic(
    design: _Design, Y: np.ndarray, *, extra_mask: np.ndarray | None = None, C: float | np.ndarray = 1.0,
    tol: float = 1e-4,
    max_iter: int = 100, weights: np.ndarray | None = None, init: np.ndarray | None = None,
) -> LogisticFit:
    """:func:`fit_batched_logistic` on a prepared design, with per-column options.

    ``C`` may be one value per column. ``weights`` (shape of Y, 0 or 1) restricts each column's
    problem to its rows of weight 1. ``init`` (shape of ``LogisticFit.coef`` plus the intercept
    as a last row, original coordinates) is the starting point, as ``warm_start`` gives;
    without it the weights start at 0 and each intercept at its label's log-odds (bounded when a
    column's rows hold one class only, whose optimum lies at infinity).
    """
    n_samples, n_targets = Y.shape
    n_params = design.n_inputs + 1
    mask = None
    if extra_mask is not None:
        mask = np.ones((n_params, n_targets))
        mask[n_params - 1 - extra_mask.shape[0] : -1] = extra_mask
    penalty = np.ones((n_params, 1))
    penalty[-1] = 0.0

    Y = np.ascontiguousarray(Y, dtype=np.float64)
    if init is None:
        Theta = np.zeros((n_params, n_targets))
        n_rows = n_samples if weights is None else weights.sum(axis=0)
        positives = Y.sum(axis=0) if weights is None else (weights * Y).sum(axis=0)
        prior = np.clip(positives / n_rows, 0.5 / n_rows, 1.0 - 0.5 / n_rows)
        Theta[-1] = np.log(prior / (1.0 - prior))
    else:
        Theta = design.design_weights(np.array(init, dtype=np.float64))
    n_iter = np.zeros(n_targets, dtype=int)
    converged = np.zeros(n_targets, dtype=bool)
    batch = _Batch(design, Theta, Y, mask, penalty, C, weights)
    for _ in range(max_iter):
        done = batch.live & (np.abs(design.original_gradient(batch.grad)).max(axis=0) <= tol)
        converged[batch.index[done]] = True
        batch.freeze(done)
        if not batch.live.any():
            break
        n_iter[batch.index[batch.live]] += 1
        batch.freeze(batch.step() & batch.live)
    batch.freeze(batch.live)
    design.original_weights(Theta)
    return LogisticFit(Theta[:-1], Theta[-1].copy(), n_iter, converged)
