"""One unit's fit and prediction: the single path the runner and every refit of a stored unit take.

A unit fits one method on one split's training part, with the labels in the split's order, and
predicts its test part. Inputs missing in either part are mean-imputed from the training rows.
Because the runner and every refit call :func:`fit_unit` with the unit's split, which carries its
seeds, a refit is that unit again.
"""

from __future__ import annotations

import time
from contextlib import nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
from sklearn.impute import SimpleImputer

from mlhidden.data.dataset import Matrix
from mlhidden.methods.base import shares_one_pass
from mlhidden.runs.blas_threads import unit_thread_limits
from mlhidden.runs.splits import Split

if TYPE_CHECKING:
    from mlhidden.runs.specs import MethodSpec
from mlhidden.methods.shared_fits import SharedFits


@dataclass(frozen=True)
class FittedUnit:
    """What :func:`fit_unit` returns.

    Attributes
    ----------
    predicted : numpy.ndarray
        Test predictions with the labels back in the dataset's order.
    train_seconds, test_seconds : float
        Fit and predict times: the unit's own work. Fits reused from other methods are not in
        ``train_seconds``.
    reused_seconds : float
        What the fits reused from other methods cost to compute (the unit's fit alone would
        have taken about ``train_seconds + reused_seconds``).
    scores : numpy.ndarray or None
        Test label probabilities P(y_j = 1 | x) in the dataset's label order (float32), or None
        for a method without them (see :func:`label_scores`).
    """

    predicted: np.ndarray
    train_seconds: float
    test_seconds: float
    reused_seconds: float = 0.0
    scores: np.ndarray | None = None


def _has_missing(X: Matrix) -> bool:
    values = X.data if sp.issparse(X) else X
    return bool(np.isnan(values).any())


def impute(X_train: Matrix, X_test: Matrix) -> tuple[Matrix, Matrix]:
    """Mean-impute NaN with statistics of the training rows only."""
    if not (_has_missing(X_train) or _has_missing(X_test)):
        return X_train, X_test
    imputer = SimpleImputer(strategy="mean", keep_empty_features=True).fit(X_train)
    return imputer.transform(X_train), imputer.transform(X_test)


def has_scores(estimator: Any) -> bool:
    """Whether ``estimator.predict_proba`` gives real probabilities: it and its base learner have one.

    A method over a base learner without ``predict_proba`` (a linear SVM, a ridge classifier)
    would give its 0/1 decisions as "probabilities"; those are not scores.
    """
    params = estimator.get_params(deep=False) if hasattr(estimator, "get_params") else {}
    inner = [value for value in params.values() if hasattr(value, "fit")]
    return all(hasattr(model, "predict_proba") for model in (estimator, *inner))


def _as_scores(proba: Any, n_rows: int, n_labels: int) -> np.ndarray | None:
    """The test rows' label probabilities as a float32 (n, L) array, or None if they are not of that shape."""
    scores = np.asarray(proba, dtype=np.float32)
    return scores if scores.shape == (n_rows, n_labels) else None


def fit_unit(
    X: Matrix, Y: np.ndarray, split: Split, method: MethodSpec, shared_fits: SharedFits | None = None,
    with_scores: bool = True,
) -> FittedUnit:
    """Fit ``method`` (anything with ``name``, ``params`` and ``base``) on a split and predict its test rows.

    The method gets the split's ``method_seed`` as its ``random_state``, the unit's one seed, which
    travels in its :class:`~mlhidden.runs.splits.Split` alone.
    It sees the labels in ``split.label_order``; the predictions are put back into the
    dataset's order. With ``shared_fits`` (where the run keeps them: a folder, or a dask cluster), fits
    another method of the run already made on the same inputs are reused
    (:mod:`mlhidden.methods.shared_fits`; the one place a unit's shared fits are activated).
    The test seconds are those of ``predict`` alone, the label scores predicted after it, except where one
    pass gives both (:func:`~mlhidden.methods.base.shares_one_pass`: a chain's greedy pass, a stack's
    middle layer, thresholded marginals), which runs once and is timed whole; ``with_scores=False`` skips them
    (a refit that needs only the predictions). BLAS runs with the fixed thread count
    of every unit (:func:`~mlhidden.runs.blas_threads.unit_thread_limits`), so a refit made by the
    report in the parent process equals the stored unit. Errors propagate.
    """
    with unit_thread_limits():
        X_train, X_test = impute(X[split.train], X[split.test])
        estimator = method.make(random_state=split.method_seed)
        start = time.perf_counter()
        shared = shared_fits.for_unit() if shared_fits is not None else None
        with shared.active() if shared else nullcontext():
            estimator.fit(X_train, Y[split.train][:, split.label_order])
        train_seconds = time.perf_counter() - start
        reused = shared.reused_seconds if shared else 0.0
        scored = with_scores and has_scores(estimator)
        start = time.perf_counter()
        if scored and shares_one_pass(estimator):
            in_split_order, proba = estimator.predict_with_proba(X_test)
            test_seconds = time.perf_counter() - start
        else:
            in_split_order = np.asarray(estimator.predict(X_test))
            test_seconds = time.perf_counter() - start
            proba = estimator.predict_proba(X_test) if scored else None
        scores = None if proba is None else _as_scores(proba, X_test.shape[0], len(split.label_order))
    predicted = _in_dataset_order(in_split_order, split.label_order)
    scores = None if scores is None else _in_dataset_order(scores, split.label_order)
    return FittedUnit(predicted, train_seconds, test_seconds, reused, scores)


def _in_dataset_order(in_split_order: np.ndarray, label_order: np.ndarray) -> np.ndarray:
    """A (n, L) matrix whose columns follow the split's label order, put back in the dataset's."""
    matrix = np.empty_like(in_split_order)
    matrix[:, label_order] = in_split_order
    return matrix
