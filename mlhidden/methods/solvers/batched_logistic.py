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

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from mlhidden.data.dataset import Matrix
from mlhidden.methods.solvers.design import Design, LogisticFit, loss_and_residual, positive_entries

MEMORY = 10  # scipy's L-BFGS-B default, which LogisticRegression uses
MAX_HALVINGS = 30
ARMIJO = 1e-4
# Converged columns stay in the batch, frozen, until this share of it has converged: dropping
# them copies every array of the batch, so it is done in a few large steps.
COMPACT_SHARE = 0.25


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
        self, design: Design, Theta: np.ndarray, Y: np.ndarray, mask: np.ndarray | None, penalty: np.ndarray,
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
        loss, residual = loss_and_residual(Z, Y, positives, weights)
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
    design = Design(X, extra, center)
    return solve_logistic(design, Y, extra_mask=None if extra is None else extra_mask, C=C, tol=tol, max_iter=max_iter)


def solve_logistic(
    design: Design, Y: np.ndarray, *, extra_mask: np.ndarray | None = None, C: float | np.ndarray = 1.0,
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
    n_iter, converged = run_batch(_Batch(design, Theta, Y, mask, penalty, C, weights), tol, max_iter)
    design.original_weights(Theta)
    return LogisticFit(Theta[:-1], Theta[-1].copy(), n_iter, converged)


def run_batch(
    batch: _Batch, tol: float, max_iter: int, original_gradient: Callable[[np.ndarray], np.ndarray] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """L-BFGS iterations of ``batch`` until each column's gradient, in the original coordinates
    (``original_gradient``, by default the design's), is within ``tol``; each column's weights land in
    ``batch.result``. Returns the iterations and whether each column converged."""
    to_original = batch.design.original_gradient if original_gradient is None else original_gradient
    n_iter = np.zeros(batch.index.size, dtype=int)
    converged = np.zeros(batch.index.size, dtype=bool)
    for _ in range(max_iter):
        done = batch.live & (np.abs(to_original(batch.grad)).max(axis=0) <= tol)
        converged[batch.index[done]] = True
        batch.freeze(done)
        if not batch.live.any():
            break
        n_iter[batch.index[batch.live]] += 1
        batch.freeze(batch.step() & batch.live)
    batch.freeze(batch.live)
    return n_iter, converged
