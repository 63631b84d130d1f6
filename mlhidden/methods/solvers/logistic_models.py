"""scikit-learn ``LogisticRegression`` models for BR's labels and a chain's links, from one batched fit.

:mod:`~mlhidden.methods.solvers.batched_logistic` (smooth solvers), :mod:`~mlhidden.methods.solvers.batched_tron`
(liblinear) and :mod:`~mlhidden.methods.solvers.batched_logistic_cv` (``LogisticRegressionCV``) solve
the problems; this module decides when a base learner's objective is the one they solve, and
turns the solution back into per-label models that predict, pickle and report their fitted
attributes (``n_iter_``, ``C_``, ...) like ones ``fit_binary`` fitted.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, cast

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression, LogisticRegressionCV

from mlhidden.data.dataset import Matrix
from mlhidden.methods.base import hstack_features
from mlhidden.methods.base_learners import as_estimator, draw_seed, fit_binary
from mlhidden.methods.shared_fits import reuse_or_fit
from mlhidden.methods.sklearn_api import PENALTY_FROM_L1_RATIO
from mlhidden.methods.solvers.batched_logistic import fit_batched_logistic
from mlhidden.methods.solvers.batched_logistic_cv import LogisticCVFit, fit_batched_logistic_cv, training_weights
from mlhidden.methods.solvers.batched_tron import fit_batched_liblinear
from mlhidden.methods.solvers.design import LogisticFit

# Solvers whose objective is the one minimised by fit_batched_logistic (saga differs in detail).
SMOOTH_SOLVERS = ("lbfgs", "newton-cg", "newton-cholesky")
# Most links in one batch of a chain whose label columns cost more than X (see chain_blocks).
BLOCK_LINKS = 256


def batchable_logistic(estimator: Any) -> bool:
    """Whether ``estimator`` (or spec) is a plain ``LogisticRegression(CV)`` whose objective we solve.

    That is an L2 one solved by a smooth solver (:func:`fit_batched_logistic`), or by liblinear's
    primal one with its intercept as an input of value 1 (:func:`fit_batched_liblinear`); or
    ``LogisticRegressionCV`` with a smooth solver, L2, folds given by a number, refit, and the
    held-out log-loss as its score (:func:`fit_batched_logistic_cv`).
    """
    model = as_estimator(estimator)
    if type(model) not in (LogisticRegression, LogisticRegressionCV):
        return False
    params = model.get_params()
    if not (params["fit_intercept"] and params["class_weight"] is None and not params["dual"]):
        return False
    if type(model) is LogisticRegressionCV:
        return _batchable_cv(params)
    solved = params["solver"] in SMOOTH_SOLVERS or (
        params["solver"] == "liblinear" and params["intercept_scaling"] == 1
    )
    return solved and _l2_penalty(params) and bool(np.isfinite(params["C"])) and not params["warm_start"]


def _l2_penalty(params: dict[str, Any]) -> bool:
    """Whether ``LogisticRegression``'s parameters say a pure L2 penalty, in the installed scikit-learn's API."""
    if PENALTY_FROM_L1_RATIO:
        return params["penalty"] in ("deprecated", "l2") and params["l1_ratio"] in (0, 0.0, None)
    return params["penalty"] == "l2" and params["l1_ratio"] is None


def _l2_penalty_cv(params: dict[str, Any]) -> bool:
    """Whether ``LogisticRegressionCV``'s parameters say a pure L2 penalty and the fitted attributes we set."""
    l1_ratios = params["l1_ratios"]
    if PENALTY_FROM_L1_RATIO:
        return bool(
            params["penalty"] == "deprecated"
            and not isinstance(l1_ratios, str)
            and l1_ratios is not None
            and np.all(np.asarray(l1_ratios) == 0)
            and params["use_legacy_attributes"] is False
        )
    return params["penalty"] == "l2" and l1_ratios is None


def _batchable_cv(params: dict[str, Any]) -> bool:
    Cs = params["Cs"]
    return bool(
        params["solver"] in SMOOTH_SOLVERS
        and _l2_penalty_cv(params)
        and (isinstance(Cs, int) or np.all(np.isfinite(Cs)))
        and (params["cv"] is None or isinstance(params["cv"], int))
        and params["scoring"] == "neg_log_loss"
        and params["refit"]
    )


def _batched_solver(
    template: Any, params: dict[str, Any], targets: np.ndarray, center: bool
) -> tuple[str, str, Callable[..., LogisticFit | LogisticCVFit], dict[str, Any], np.ndarray | None]:
    """The batched fit of ``template``'s kind: its shared-fit kind, the method its warnings name, the solver,
    its settings, and the training weights of ``LogisticRegressionCV``'s folds (None for the others)."""
    settings: dict[str, Any] = {"tol": params["tol"], "max_iter": params["max_iter"]}
    if type(template) is LogisticRegressionCV:
        folds = training_weights(
            targets, params["cv"]
        )  # outside the shared fit: every method gets the splitter's warnings
        solve = partial(fit_batched_logistic_cv, weights=folds)
        return "logistic_cv", "lbfgs", solve, {**settings, "Cs": params["Cs"], "center": center}, folds
    if params["solver"] == "liblinear":
        return "liblinear", "liblinear", fit_batched_liblinear, {**settings, "C": params["C"]}, None
    return "logistic", "lbfgs", fit_batched_logistic, {**settings, "C": params["C"], "center": center}, None


def fit_logistic_models(
    estimator: Any, X: Matrix, Y: ArrayLike, seeds: Sequence[int] | np.ndarray, *, extra: np.ndarray | None = None,
    n_extra_used: ArrayLike | None = None, center: bool = False,
) -> list[Any]:
    """One fitted model per column of Y, as ``fit_binary`` would give, from one batched fit.

    Each model is a copy of ``estimator`` (``LogisticRegression`` or ``LogisticRegressionCV``),
    seeded as ``fit_binary`` seeds it, whose fitted attributes come from the batched fit that
    :func:`batchable_logistic` names. Target ``l`` sees
    ``[X, extra[:, :n_extra_used[l]]]`` (a chain link sees the labels before it); without
    ``extra`` it sees X. Constant targets go through ``fit_binary`` and get its constant model.
    ``center`` is passed to :func:`fit_batched_logistic`; liblinear's method has no use for it.
    """
    Y = np.asarray(Y)
    n_features, n_targets = X.shape[1], Y.shape[1]
    n_extra_used = np.zeros(n_targets, dtype=int) if extra is None else np.asarray(n_extra_used)
    varying = np.flatnonzero(Y.min(axis=0, initial=1) != Y.max(axis=0, initial=0))
    template = as_estimator(estimator)
    template._validate_params()  # the same parameter errors as LogisticRegression.fit
    params = template.get_params()
    extra_mask = None if extra is None else np.arange(extra.shape[1])[:, None] < n_extra_used[varying]
    targets = Y[:, varying]
    kind, method, solve, settings, folds = _batched_solver(template, params, targets, center)
    blocks = [np.arange(varying.size)] if folds is not None else chain_blocks(X, extra, n_extra_used[varying])

    def compute() -> LogisticFit | LogisticCVFit:
        if len(blocks) == 1:
            return solve(X, targets, extra=extra, extra_mask=extra_mask, **settings)
        assert extra is not None and extra_mask is not None  # several blocks only for extra columns (chain_blocks)
        return _join_fits(
            [_fit_block(solve, X, targets, extra, extra_mask, block, settings) for block in blocks],
            blocks,
            X.shape[1] + extra.shape[1],
        )

    fit = reuse_or_fit(
        kind, compute, X, targets, extra, extra_mask, folds, sorted(settings.items()), [b.size for b in blocks]
    )
    if not fit.converged.all():
        warnings.warn(
            f"{method} failed to converge for {np.count_nonzero(~fit.converged)} of {fit.converged.size} targets "
            f"(max_iter={params['max_iter']}); increase max_iter or scale the data",
            ConvergenceWarning,
            stacklevel=2,
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
        model = copy.copy(template)  # a plain LogisticRegression: cloning it per label costs more than its fit
        model.random_state = draw_seed(rng)
        model.classes_ = np.array([0, 1], dtype=Y.dtype)
        model.coef_ = fit.coef[:n_inputs, column].reshape(1, -1).copy()
        model.intercept_ = fit.intercept[column : column + 1].copy()
        model.n_features_in_ = n_inputs
        if isinstance(model, LogisticRegressionCV):
            _set_cv_attributes(model, cast(LogisticCVFit, fit), column, n_inputs)
        else:
            model.n_iter_ = fit.n_iter[column : column + 1].astype(np.int32)
        models.append(model)
    return models


def chain_blocks(X: Matrix, extra: np.ndarray | None, n_extra_used: np.ndarray) -> list[np.ndarray]:
    """The targets in consecutive groups, each to be fitted as one batch on the extra columns it uses.

    In one batch every product carries all the extra columns, although target ``l`` reads only
    the first ``n_extra_used[l]``; and the batch's per-target arrays (scores, residuals) outgrow
    the cache. When the extra columns hold more nonzeros than X (CCASL's chain: its synthetic
    labels are about half ones), the targets, in order of the columns they use, are fitted in
    groups of at most ``BLOCK_LINKS``, each on ``extra[:, :max used]``: the synthetic links skip
    the columns after them, and a batch's arrays stay a few times smaller (faster, and a lower peak
    of memory, on a chain of many labels). Each target's problem, and so its
    optimum, is the same; the iterates differ only by the rounding of the products. Otherwise
    (BR, CC: sparse labels) one batch, as the split would save little.
    """
    n_targets = len(n_extra_used)
    x_entries = cast(Any, X).nnz if sp.issparse(X) else X.size
    if extra is None or n_targets <= BLOCK_LINKS or np.count_nonzero(extra) <= x_entries:
        return [np.arange(n_targets)]
    order = np.argsort(n_extra_used, kind="stable")
    return np.array_split(order, -(-n_targets // BLOCK_LINKS))


def _fit_block(
    solve: Callable[..., Any], X: Matrix, targets: np.ndarray, extra: np.ndarray, extra_mask: np.ndarray,
    block: np.ndarray,
    settings: dict[str, Any],
) -> LogisticFit:
    """The batched fit of the targets ``block`` on the extra columns they use."""
    width = int(extra_mask[:, block].any(axis=1).nonzero()[0].max(initial=-1)) + 1
    fit: LogisticFit = solve(
        X, targets[:, block], extra=extra[:, :width], extra_mask=extra_mask[:width, block], **settings
    )
    return fit


def _join_fits(fits: Sequence[LogisticFit], blocks: Sequence[np.ndarray], n_inputs: int) -> LogisticFit:
    """One :class:`LogisticFit` of all targets from the fits of ``blocks`` (weights of unused columns: 0)."""
    n_targets = sum(block.size for block in blocks)
    joined = LogisticFit(
        np.zeros((n_inputs, n_targets)),
        np.zeros(n_targets),
        np.zeros(n_targets, dtype=int),
        np.zeros(n_targets, dtype=bool),
    )
    for fit, block in zip(fits, blocks):
        joined.coef[: fit.coef.shape[0], block] = fit.coef
        joined.intercept[block], joined.n_iter[block], joined.converged[block] = (
            fit.intercept,
            fit.n_iter,
            fit.converged,
        )
    return joined


def _set_cv_attributes(
    model: LogisticRegressionCV, fit: LogisticCVFit, column: int | np.integer, n_inputs: int
) -> None:
    """``LogisticRegressionCV``'s fitted attributes as the installed scikit-learn lays them out.

    From scikit-learn 1.8 with ``use_legacy_attributes=False``: ``C_`` a float, arrays indexed
    (fold, l1_ratio, C, ...). Before 1.8: ``C_`` an array of one, per-class dicts keyed by the
    positive class, and ``l1_ratio(s)_`` of ``None``.
    """
    paths = fit.paths[:, :, :, column]
    coefs_paths = np.concatenate([paths[:, :, :n_inputs], paths[:, :, -1:]], axis=2)
    scores, n_iter = fit.scores[:, :, column].copy(), fit.n_iter[:, :, column].astype(np.int32)
    model.Cs_ = fit.Cs.copy()
    if PENALTY_FROM_L1_RATIO:
        model.C_, model.l1_ratio_ = float(fit.C[column]), 0.0
        model.l1_ratios_ = np.asarray(model.l1_ratios, dtype=float)
        model.coefs_paths_ = coefs_paths[:, None, :, None, :]
        model.scores_, model.n_iter_ = scores[:, None, :], n_iter[:, None, :]
    else:
        positive = model.classes_[1]
        model.C_, model.l1_ratio_, model.l1_ratios_ = np.array([fit.C[column]]), np.array([None]), np.array([None])
        model.coefs_paths_, model.scores_, model.n_iter_ = {positive: coefs_paths}, {positive: scores}, n_iter[None]
