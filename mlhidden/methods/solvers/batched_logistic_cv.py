"""Many ``LogisticRegressionCV`` fits on the same inputs, as batched problems.

``LogisticRegressionCV`` chooses C for one target by fitting, on each cross-validation fold,
a path over its ``Cs`` (each fit warm-started from the previous C's), scoring each fit on the
fold's held-out rows, summing the scores over folds, and refitting on all rows at the best C
from the mean of the folds' weights there. Binary relevance or a chain runs that once per label
or link: 3 folds x 5 Cs + 1 refit small fits each, every one of them two sparse
matrix-vector products per iteration.

Here every target's every fold is one column of one batch (the fold's held-out rows get
weight 0), so one pass over the inputs serves them all; the path over Cs runs C by C, each
warm-started from the last, and the refit is one more batch, each column at its own C. The
folds are the ones ``LogisticRegressionCV`` draws (its own splitter on each target), the
scores its scorer's (the held-out log-loss, probabilities clipped as ``log_loss`` clips them),
and ties go to the first C, as ``argmax`` gives. The solver is
:func:`~mlhidden.methods.solvers.batched_logistic.solve_logistic`, which reaches the same optimum as
scikit-learn's lbfgs within the same tolerance.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import expit
from sklearn.model_selection import check_cv

from mlhidden.data.dataset import Matrix
from mlhidden.methods.solvers.batched_logistic import solve_logistic
from mlhidden.methods.solvers.design import Design


@dataclass
class LogisticCVFit:
    """The fitted weights of a batch of cross-validated logistic regressions.

    Attributes
    ----------
    coef : ndarray of shape (n_features + n_extra, n_targets)
        Weights refitted on all rows at each target's chosen C.
    intercept : ndarray of shape (n_targets,)
    C : ndarray of shape (n_targets,)
        Each target's chosen C.
    Cs : ndarray of shape (n_Cs,)
    paths : ndarray of shape (n_folds, n_Cs, n_features + n_extra + 1, n_targets)
        Each fold's weights (intercept last) at each C.
    scores : ndarray of shape (n_folds, n_Cs, n_targets)
        Held-out score (negative log-loss) of each fold's fit at each C.
    n_iter : ndarray of int, shape (n_folds, n_Cs, n_targets)
    converged : ndarray of bool, shape (n_targets,)
        Whether every fit of the target (each fold at each C, and the refit) converged.
    """

    coef: np.ndarray
    intercept: np.ndarray
    C: np.ndarray
    Cs: np.ndarray
    paths: np.ndarray
    scores: np.ndarray
    n_iter: np.ndarray
    converged: np.ndarray


def training_weights(Y: np.ndarray, cv: int | None) -> np.ndarray:
    """Weights of shape ``(n_samples, n_folds * n_targets)``: 1 on the training rows of each
    target's folds (column ``fold * n_targets + target``), as ``check_cv(cv, y, classifier=True)``
    splits each target alone."""
    n_samples, n_targets = Y.shape
    rows = np.zeros((n_samples, 1))
    splits = [
        list(check_cv(cv, Y[:, target], classifier=True).split(rows, Y[:, target])) for target in range(n_targets)
    ]
    n_folds = len(splits[0])
    weights = np.zeros((n_samples, n_folds * n_targets))
    for target, folds in enumerate(splits):
        for fold, (train, _) in enumerate(folds):
            weights[train, fold * n_targets + target] = 1.0
    return weights


def _held_out_scores(Z: np.ndarray, Y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Each column's negative mean log-loss over its rows of weight 0, as ``neg_log_loss`` scores."""
    eps = np.finfo(np.float64).eps
    proba = np.clip(expit(Z), eps, 1.0 - eps)
    losses = -(Y * np.log(proba) + (1.0 - Y) * np.log1p(-proba))
    held_out = 1.0 - weights
    return np.asarray(-(losses * held_out).sum(axis=0) / held_out.sum(axis=0))


def fit_batched_logistic_cv(
    X: Matrix, Y: np.ndarray, *, weights: np.ndarray, extra: ArrayLike | None = None,
    extra_mask: np.ndarray | None = None,
    Cs: int | ArrayLike = 10, tol: float = 1e-4, max_iter: int = 100, center: bool = False,
) -> LogisticCVFit:
    """``LogisticRegressionCV(scoring="neg_log_loss", refit=True)`` for every column of Y, batched.

    ``X``, ``Y``, ``extra``, ``extra_mask``, ``tol``, ``max_iter`` and ``center`` are those of
    :func:`~mlhidden.methods.solvers.batched_logistic.fit_batched_logistic`, ``weights`` the folds' rows
    from :func:`training_weights` (``training_weights(Y, cv)`` for ``LogisticRegressionCV``'s
    ``cv``), and ``Cs`` that of ``LogisticRegressionCV`` (an int is that many values from 1e-4 to 1e4).
    """
    Y = np.asarray(Y, dtype=np.float64)
    n_targets = Y.shape[1]
    Cs = np.logspace(-4, 4, Cs) if isinstance(Cs, int) else np.asarray(Cs, dtype=np.float64)
    n_folds = weights.shape[1] // n_targets
    design = Design(X, extra, center)
    n_params = design.n_inputs + 1
    folds_Y = np.tile(Y, n_folds)
    folds_mask = None if extra is None or extra_mask is None else np.tile(extra_mask, n_folds)
    paths = np.empty((n_folds, Cs.size, n_params, n_targets))
    scores = np.empty((n_folds, Cs.size, n_targets))
    n_iter = np.empty((n_folds, Cs.size, n_targets), dtype=int)
    converged = np.ones(n_targets, dtype=bool)
    theta = None
    for index, C in enumerate(Cs):
        fit = solve_logistic(
            design, folds_Y, extra_mask=folds_mask, C=C, tol=tol, max_iter=max_iter, weights=weights, init=theta
        )
        theta = np.vstack([fit.coef, fit.intercept])
        Z = design.forward(design.design_weights(theta.copy()))
        scores[:, index] = _held_out_scores(Z, folds_Y, weights).reshape(n_folds, n_targets)
        paths[:, index] = theta.reshape(n_params, n_folds, n_targets).swapaxes(0, 1)
        n_iter[:, index] = fit.n_iter.reshape(n_folds, n_targets)
        converged &= fit.converged.reshape(n_folds, n_targets).all(axis=0)
    best = scores.sum(axis=0).argmax(axis=0)
    init = paths[:, best, :, np.arange(n_targets)].mean(axis=1).T
    refit = solve_logistic(
        design,
        Y,
        extra_mask=None if extra is None else extra_mask,
        C=Cs[best],
        tol=tol,
        max_iter=max_iter,
        init=init,
    )
    return LogisticCVFit(refit.coef, refit.intercept, Cs[best], Cs, paths, scores, n_iter, converged & refit.converged)
