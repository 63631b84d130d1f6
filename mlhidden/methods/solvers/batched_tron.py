"""Many liblinear logistic regressions on the same inputs, fitted as one batch by LIBLINEAR's own method.

``LogisticRegression(solver="liblinear")`` (L2, primal) minimises, for each target,

    (||w||^2 + b^2) / 2 + C sum_i log(1 + exp(-s_i z_i)),   z = X w + E u + b

(the intercept is an input of value 1, penalised like the weights) by LIBLINEAR's trust-region
Newton method (TRON; Lin, Weng and Keerthi, JMLR 2008): from w = 0, each iteration solves the
Newton system by conjugate gradients inside a trust region, and a target stops once its
gradient norm is ``tol * max(min(#pos, #neg), 1) / n`` times its norm at w = 0, or after
``max_iter`` iterations. This module runs that algorithm, with LIBLINEAR's constants and tests
(``tron.cpp`` as scikit-learn ships it), for every target at once: each conjugate-gradient step
is one product of the inputs with the directions of all targets still iterating, instead of one
sparse matrix-vector product per target and step. A classifier chain's links (independent
given Y) are targets that see only the label columns before them (``extra_mask``).

Everything runs in double precision, as in LIBLINEAR: its acceptance test compares the
objective's actual reduction with the predicted one, and near the optimum that difference is
far below single-precision rounding (with single-precision products the trust region shrinks
without end). What differs from LIBLINEAR is only the order of the sums.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from mlhidden.data.dataset import Matrix
from mlhidden.methods.solvers.design import Design, LogisticFit, loss_and_residual, positive_entries

ETA0, ETA1, ETA2 = (
    1e-4,
    0.25,
    0.75,
)  # accept a step / shrink / keep / grow the region, by actual over predicted reduction
SIGMA1, SIGMA2, SIGMA3 = 0.25, 0.5, 4.0  # the region's update factors


def _dot(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    return np.asarray(np.einsum("pa,pa->a", A, B))


class _Objective:
    """LIBLINEAR's objective of every target column, its gradient and its Hessian products.

    ``extra_mask`` (or None: every target sees every input) zeroes the extra columns a target
    does not see; X's columns and the intercept are seen by all, so only the extra rows are masked.
    """

    def __init__(self, design: Design, Y: np.ndarray, extra_mask: np.ndarray | None, C: float) -> None:
        self.design, self.Y, self.extra_mask, self.C = design, Y, extra_mask, C
        self.extra_rows = slice(design.n_inputs - (0 if extra_mask is None else extra_mask.shape[0]), -1)

    def masked(self, A: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """A with the entries of extra columns each target does not see set to 0, in place."""
        if self.extra_mask is not None:
            A[self.extra_rows] *= self.extra_mask if cols.size == self.extra_mask.shape[1] else self.extra_mask[:, cols]
        return A

    def evaluate(self, W: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Objective, gradient and loss curvature ``D = p (1 - p)`` of targets ``cols`` at weights W."""
        Y = self.Y[:, cols]
        loss, residual = loss_and_residual(self.design.forward(W), Y, positive_entries(Y))
        probability = residual + Y
        curvature = 1.0 - probability
        curvature *= probability
        return 0.5 * _dot(W, W) + self.C * loss, self._penalised(self.design.backward(residual), W, cols), curvature

    def hessian_product(self, V: np.ndarray, cols: np.ndarray, curvature: np.ndarray) -> np.ndarray:
        Z = self.design.forward(V)
        Z *= curvature
        return self._penalised(self.design.backward(Z), V, cols)

    def _penalised(self, B: np.ndarray, W: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """``W + C B``, masked, computed in B: the same bits as the expression, without its two temporaries."""
        B *= self.C
        B += W
        return self.masked(B, cols)


def _trust_region_cg(
    objective: _Objective, cols: np.ndarray, delta: np.ndarray, G: np.ndarray, curvature: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """LIBLINEAR's ``trcg``: the step S of each target, and its residual ``-G - H S``.

    While every target still iterates (most steps) the columns are taken as views, not copies.
    The arrays are kept in column order, the layout numpy gives a copy of some of their columns,
    so that the sums over a column (``_dot``), whose order depends on the layout, are the same
    bit for bit either way.
    """
    S = np.zeros(G.shape, order="F")
    R = np.negative(G, order="F")
    D = R.copy(order="F")
    cg_tol = 0.1 * np.sqrt(_dot(G, G))
    rTr = _dot(R, R)
    running = np.sqrt(rTr) > cg_tol
    while running.any():
        k = np.flatnonzero(running)
        if k.size == running.size:
            d, S_k, targets, curvature_k = D, S, cols, curvature
        else:
            d, S_k, targets, curvature_k = D[:, k], S[:, k], cols[k], curvature[:, k]
        Hd = objective.hessian_product(d, targets, curvature_k)
        alpha = rTr[k] / _dot(d, Hd)
        step = alpha * d
        step += S_k
        outside = np.sqrt(_dot(step, step)) > delta[k]
        if outside.any():  # to the region's boundary along d, then stop
            o = k[outside]
            s, do, Hdo = S[:, o], d[:, outside], Hd[:, outside]
            std, sts, dtd, dsq = _dot(s, do), _dot(s, s), _dot(do, do), delta[o] ** 2
            rad = np.sqrt(std * std + dtd * (dsq - sts))
            tau = np.where(std >= 0, (dsq - sts) / np.where(std >= 0, std + rad, 1.0), (rad - std) / dtd)
            S[:, o] = s + tau * do
            R[:, o] -= tau * Hdo
            running[o] = False
            inside = ~outside
            i = k[inside]
            step, alpha, Hd, d = step[:, inside], alpha[inside], Hd[:, inside], d[:, inside]
        else:
            i = k
        if i.size == running.size:
            S[...] = step
            Hd *= alpha
            R -= Hd
            R_i = R
        else:
            S[:, i] = step
            R_i = R[:, i]
            Hd *= alpha
            R_i -= Hd
            R[:, i] = R_i
        rnew = _dot(R_i, R_i)
        d *= rnew / rTr[i]
        d += R_i
        if d is not D:
            D[:, i] = d
        rTr[i] = rnew
        running[i] = np.sqrt(rnew) > cg_tol[i]
    return S, R


def fit_batched_liblinear(
    X: Matrix, Y: np.ndarray, *, extra: ArrayLike | None = None, extra_mask: np.ndarray | None = None, C: float = 1.0,
    tol: float = 1e-4, max_iter: int = 100,
) -> LogisticFit:
    """Fit one liblinear logistic regression per column of Y, all at once, by batched TRON.

    The inputs and the result are those of :func:`~mlhidden.methods.solvers.batched_logistic.fit_batched_logistic`;
    ``tol`` is LIBLINEAR's ``eps`` (as ``LogisticRegression(solver="liblinear", tol=...)`` passes it)
    and ``max_iter`` caps the Newton iterations. ``converged`` is False where a target ran
    ``max_iter`` iterations, the case in which scikit-learn warns that liblinear failed to converge.
    """
    n_samples, n_targets = Y.shape
    design = Design(X, extra, dense_block=True, dtype=np.float64)
    n_params = design.n_inputs + 1
    Y = np.ascontiguousarray(Y, dtype=np.float64)
    seen = None if extra is None or extra_mask is None else np.asarray(extra_mask, dtype=np.float64)
    objective = _Objective(design, Y, seen, C)
    everything = np.arange(n_targets)
    W = np.zeros((n_params, n_targets))
    f, G, curvature = objective.evaluate(W, everything)
    g_norm0 = np.sqrt(_dot(G, G))
    positives = Y.sum(axis=0)
    g_tol = tol * np.maximum(np.minimum(positives, n_samples - positives), 1.0) / n_samples * g_norm0
    delta = g_norm0.copy()
    iteration = np.ones(n_targets, dtype=int)
    live = g_norm0 > g_tol
    while True:
        live &= iteration <= max_iter
        cols = np.flatnonzero(live)
        if cols.size == 0:
            break
        S, R = _trust_region_cg(objective, cols, delta[cols], G[:, cols], curvature[:, cols])
        W_new = W[:, cols] + S
        gs = _dot(G[:, cols], S)
        predicted = -0.5 * (gs - _dot(S, R))
        f_new, G_new, curvature_new = objective.evaluate(W_new, cols)
        actual = f[cols] - f_new
        s_norm = np.sqrt(_dot(S, S))
        region = np.where(iteration[cols] == 1, np.minimum(delta[cols], s_norm), delta[cols])
        rise = f_new - f[cols] - gs
        alpha = np.where(rise <= 0, SIGMA3, np.maximum(SIGMA1, -0.5 * gs / np.where(rise <= 0, 1.0, rise)))
        delta[cols] = np.select(
            [actual < ETA0 * predicted, actual < ETA1 * predicted, actual < ETA2 * predicted],
            [
                np.minimum(np.maximum(alpha, SIGMA1) * s_norm, SIGMA2 * region),
                np.maximum(SIGMA1 * region, np.minimum(alpha * s_norm, SIGMA2 * region)),
                np.maximum(SIGMA1 * region, np.minimum(alpha * s_norm, SIGMA3 * region)),
            ],
            np.maximum(region, np.minimum(alpha * s_norm, SIGMA3 * region)),
        )
        accepted = actual > ETA0 * predicted
        moved = cols[accepted]
        iteration[moved] += 1
        W[:, moved], f[moved], G[:, moved] = W_new[:, accepted], f_new[accepted], G_new[:, accepted]
        curvature[:, moved] = curvature_new[:, accepted]
        done = np.zeros(cols.size, dtype=bool)
        done[accepted] = np.sqrt(_dot(G_new[:, accepted], G_new[:, accepted])) <= g_tol[moved]
        tiny = 1e-12 * np.abs(f[cols])
        stalled = ((np.abs(actual) <= 0) & (predicted <= 0)) | ((np.abs(actual) <= tiny) & (np.abs(predicted) <= tiny))
        live[cols[done | stalled]] = False
    n_iter = iteration - 1
    return LogisticFit(W[:-1], W[-1].copy(), n_iter, n_iter < max_iter)
