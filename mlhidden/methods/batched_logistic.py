"""Many L2-regularised logistic regressions on the same inputs, fitted as one batched problem.

Binary relevance fits one logistic regression per label on the same X, and a classifier chain's
links (trained on the true labels, so independent given Y) are the same plus some label columns.
Fitted one by one, every solver iteration of every label is two sparse matrix-*vector* products.
Fitted together, they become sparse-times-dense matrix products (one pass over X serves every
label), and truncated Newton steps keep the number of passes small: each label stops as soon as
it has converged, so the worst-conditioned label does not set the work of the others (which is
why one joint L-BFGS over all labels is slower than the per-label loop).

The objective is scikit-learn's ``LogisticRegression`` (L2, unpenalised intercept) for each
target ``l``::

    mean_i log(1 + exp(-s_il z_il)) + ||w_l||^2 / (2 C n),   z_l = X w_l + E u_l + b_l

where ``E`` are optional extra input columns of which target ``l`` may use only those marked in
``extra_mask[:, l]`` (a chain's earlier labels).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.special import expit
from sklearn.linear_model import LogisticRegression

from mlhidden.methods.base import hstack_features
from mlhidden.methods.base_learners import as_estimator, fit_binary, seed_estimator
from mlhidden.methods.shared_fits import reuse_or_fit

# Solvers whose objective is the one minimised here (saga/liblinear differ in detail).
SMOOTH_SOLVERS = ("lbfgs", "newton-cg", "newton-cholesky")
# Our gradient tolerance is this fraction of scikit-learn's ``tol``: the solution then sits
# much closer to the optimum than the per-label solver's, so the two agree to its precision.
TOL_FRACTION = 0.1
MAX_CG_ITER = 200
MAX_HALVINGS = 30
ARMIJO = 1e-4


@dataclass
class LogisticFit:
    """The fitted weights of a batch of logistic regressions.

    Attributes
    ----------
    coef : ndarray of shape (n_features + n_extra, n_targets)
        Weights of X's columns, then of the extra columns (zero where masked out).
    intercept : ndarray of shape (n_targets,)
    n_iter : ndarray of int, shape (n_targets,)
        Newton iterations each target took.
    converged : ndarray of bool, shape (n_targets,)
    """

    coef: np.ndarray
    intercept: np.ndarray
    n_iter: np.ndarray
    converged: np.ndarray


class _Design:
    """The inputs ``[X, E, 1]`` as linear maps on stacked weights (one column per target).

    ``[X, E]`` is stacked once (sparse when X is: a chain's label columns are mostly zeros), so
    every product is one pass over one matrix.
    """

    def __init__(self, X, extra):
        if extra is not None:
            X = sp.hstack([X, sp.csr_matrix(extra)], format="csr") if sp.issparse(X) else np.hstack([X, extra])
        self.X = X
        self.XT = X.T.tocsr() if sp.issparse(X) else np.ascontiguousarray(X.T)
        self.XT_squared = self.XT.power(2) if sp.issparse(X) else self.XT**2

    def forward(self, V):
        """``[X, E] v + b`` for every column ``[v; b]`` of V."""
        return np.asarray(self.X @ np.ascontiguousarray(V[:-1])) + V[-1]

    def backward(self, R, *, squared=False):
        """``[X, E, 1]^T R`` (with squared inputs: the diagonal of ``[X, E, 1]^T diag(r) [X, E, 1]``)."""
        R = np.ascontiguousarray(R)
        return np.vstack([np.asarray((self.XT_squared if squared else self.XT) @ R), R.sum(axis=0, keepdims=True)])


def _objective(Z, Y, Theta, penalty, lam):
    """Per-column objective: mean log-loss plus the L2 term."""
    return (np.logaddexp(0.0, Z) - Y * Z).mean(axis=0) + 0.5 * lam * ((penalty * Theta) ** 2).sum(axis=0)


def fit_batched_logistic(X, Y, *, extra=None, extra_mask=None, C=1.0, tol=1e-4, max_iter=100) -> LogisticFit:
    """Fit one logistic regression per column of Y, all at once, by truncated Newton steps.

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
        scikit-learn's gradient tolerance; targets stop at ``TOL_FRACTION * tol``.
    max_iter : int, default=100
        Newton iterations at most per target.

    Returns
    -------
    LogisticFit
    """
    n_samples, n_targets = Y.shape
    n_features = X.shape[1]
    design = _Design(X, None if extra is None else np.asarray(extra, dtype=np.float64))
    n_params = design.X.shape[1] + 1
    mask = np.ones((n_params, n_targets))
    if extra is not None and extra_mask is not None:
        mask[n_features:-1] = extra_mask
    penalty = np.ones((n_params, 1))
    penalty[-1] = 0.0
    lam = 1.0 / (C * n_samples)
    gtol = TOL_FRACTION * tol

    Y = np.asarray(Y, dtype=np.float64)
    Theta = np.zeros((n_params, n_targets))
    Z = np.zeros((n_samples, n_targets))
    n_iter = np.zeros(n_targets, dtype=int)
    converged = np.zeros(n_targets, dtype=bool)
    active = np.arange(n_targets)
    for _ in range(max_iter):
        Za, Ya, Ma, Ta = Z[:, active], Y[:, active], mask[:, active], Theta[:, active]
        P = expit(Za)
        G = (design.backward((P - Ya) / n_samples) + lam * penalty * Ta) * Ma
        done = np.abs(G).max(axis=0) <= gtol
        converged[active[done]] = True
        if done.all():
            break
        keep = ~done
        active, Za, Ya, Ma, Ta, P, G = active[keep], Za[:, keep], Ya[:, keep], Ma[:, keep], Ta[:, keep], P[:, keep], G[:, keep]
        n_iter[active] += 1
        S = P * (1.0 - P) / n_samples
        step = _newton_direction(design, G, S, Ma, penalty, lam)
        dZ = design.forward(step)
        t, ok = _line_search(Za, dZ, Ya, Ta, step, G, penalty, lam)
        Theta[:, active] = Ta + t * step
        Z[:, active] = Za + t * dZ
        active = active[ok]
        if active.size == 0:
            break
    return LogisticFit(Theta[:-1], Theta[-1].copy(), n_iter, converged)


def _newton_direction(design, G, S, mask, penalty, lam):
    """Solve ``H d = -g`` per column by preconditioned conjugate gradients, truncated as in newton-cg.

    Columns leave the iteration once their residual is small enough, so each costs only its
    own number of Hessian products.
    """
    diagonal = design.backward(S, squared=True) + lam * penalty
    inverse_diagonal = mask / diagonal
    step = np.zeros_like(G)
    residual = -G
    absgrad = np.abs(G).sum(axis=0)
    target = np.minimum(0.5, np.sqrt(absgrad)) * absgrad
    precond = inverse_diagonal * residual
    direction = precond.copy()
    rz = (residual * precond).sum(axis=0)
    cols = np.arange(G.shape[1])
    for _ in range(MAX_CG_ITER):
        Hd = (design.backward(S[:, cols] * design.forward(direction)) + lam * penalty * direction) * mask[:, cols]
        curvature = (direction * Hd).sum(axis=0)
        alpha = np.where(curvature > 0, rz / np.where(curvature > 0, curvature, 1.0), 0.0)
        step[:, cols] += alpha * direction
        residual -= alpha * Hd
        running = (np.abs(residual).sum(axis=0) > target[cols]) & (curvature > 0)
        if not running.any():
            break
        if not running.all():
            cols, residual, direction, rz = cols[running], residual[:, running], direction[:, running], rz[running]
        precond = inverse_diagonal[:, cols] * residual
        rz_new = (residual * precond).sum(axis=0)
        direction = precond + (rz_new / rz) * direction
        rz = rz_new
    return step


def _line_search(Z, dZ, Y, Theta, step, G, penalty, lam):
    """Backtracking (Armijo) step length per column; ``ok`` is False where no step decreases f."""
    f0 = _objective(Z, Y, Theta, penalty, lam)
    slope = (G * step).sum(axis=0)
    t = np.ones(Z.shape[1])
    pending = np.ones(Z.shape[1], dtype=bool)
    for _ in range(MAX_HALVINGS):
        cols = np.flatnonzero(pending)
        f = _objective(Z[:, cols] + t[cols] * dZ[:, cols], Y[:, cols], Theta[:, cols] + t[cols] * step[:, cols], penalty, lam)
        accepted = f <= f0[cols] + ARMIJO * t[cols] * slope[cols]
        pending[cols[accepted]] = False
        if not pending.any():
            break
        t[pending] *= 0.5
    ok = ~pending
    t[pending] = 0.0
    return t, ok


def batchable_logistic(estimator) -> bool:
    """Whether ``estimator`` (or spec) is a plain ``LogisticRegression`` whose objective we solve."""
    model = as_estimator(estimator)
    if type(model) is not LogisticRegression:
        return False
    params = model.get_params()
    return (
        params["solver"] in SMOOTH_SOLVERS
        and params["penalty"] in ("deprecated", "l2")
        and params["l1_ratio"] in (0, 0.0, None)
        and np.isfinite(params["C"])
        and params["fit_intercept"]
        and params["class_weight"] is None
        and not params["warm_start"]
        and not params["dual"]
    )


def fit_logistic_models(estimator, X, Y, seeds, *, extra=None, n_extra_used=None) -> list:
    """One fitted model per column of Y, as ``fit_binary`` would give, from one batched fit.

    Each model is a ``LogisticRegression`` (a copy of ``estimator``, seeded as ``fit_binary``
    seeds it) whose fitted attributes come from :func:`fit_batched_logistic`. Target ``l`` sees
    ``[X, extra[:, :n_extra_used[l]]]`` (a chain link sees the labels before it); without
    ``extra`` it sees X. Constant targets go through ``fit_binary`` and get its constant model.
    """
    Y = np.asarray(Y)
    n_features, n_targets = X.shape[1], Y.shape[1]
    n_extra_used = np.zeros(n_targets, dtype=int) if extra is None else np.asarray(n_extra_used)
    varying = np.flatnonzero(Y.min(axis=0, initial=1) != Y.max(axis=0, initial=0))
    template = as_estimator(estimator)
    template._validate_params()  # the same parameter errors as LogisticRegression.fit
    params = template.get_params()
    extra_mask = None if extra is None else np.arange(extra.shape[1])[:, None] < n_extra_used[varying]
    targets, settings = Y[:, varying], {"C": params["C"], "tol": params["tol"], "max_iter": params["max_iter"]}
    fit = reuse_or_fit(
        "logistic",
        lambda: fit_batched_logistic(X, targets, extra=extra, extra_mask=extra_mask, **settings),
        X, targets, extra, extra_mask, sorted(settings.items()),
    )
    models = []
    for label in range(n_targets):
        rng = np.random.RandomState(seeds[label])
        n_inputs = n_features + n_extra_used[label]
        if label not in varying:
            inputs = X if extra is None else hstack_features(X, extra[:, : n_extra_used[label]])
            models.append(fit_binary(template, inputs, Y[:, label], rng))
            continue
        column = np.searchsorted(varying, label)
        model = seed_estimator(as_estimator(template), rng)
        model.classes_ = np.array([0, 1], dtype=Y.dtype)
        model.coef_ = fit.coef[:n_inputs, column].reshape(1, -1).copy()
        model.intercept_ = fit.intercept[column : column + 1].copy()
        model.n_features_in_ = n_inputs
        model.n_iter_ = fit.n_iter[column : column + 1].astype(np.int32)
        models.append(model)
    return models
