"""Multi-label evaluation measures: of binary predictions (``SCORES``) and of label scores (``RANKING_METRICS``).

``SCORES`` are functions ``(Y_true, Y_pred) -> float``. Conventions (MEKA's and the paper's):
scores, higher is better. Where a measure is undefined because both truth and prediction are
empty (an example with no labels, a label never present), the prediction is perfect and scores 1.

``RANKING_METRICS`` are functions ``(Y_true, scores) -> float`` of the per-label probabilities
P(y_j = 1 | x) a method's ``predict_proba`` gives (MEKA's ranking and probability measures);
``LOWER_IS_BETTER`` names the losses among them. Methods without such scores have none of these.

Any other metric is a plug-in (:func:`plugin_metric`): a function ``(Y_true, Y_pred) -> float``, or
``(Y_true, Y_pred, scores) -> float`` to read the label scores too, named by import path
(``my_pkg.metrics:my_f1``) or by the name an installed package gives it in the ``mlhidden.metrics``
entry-point group; a loss says so with ``my_loss.higher_is_better = False``.
The label ranking measures (ranking loss, coverage, average precision, one-error) come from
:mod:`mlhidden.runs.label_ranking`, which gives scikit-learn's values without its per-row
Python loop, so that a report of the full paper run computes them from its stored scores in seconds.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import rankdata

from mlhidden.errors import UserError, unique_match
from mlhidden.imports import import_object, is_import_path, load_entry_points
from mlhidden.runs.label_ranking import average_precision, coverage_error, one_error, ranking_loss

# Probabilities are clipped to [eps, 1 - eps] in the log-loss (float32 resolves 1 - 1e-7).
LOG_LOSS_EPS = 1e-7


def exact_match(Y_true: np.ndarray, Y_pred: np.ndarray) -> float:
    """Share of examples whose whole label vector is right (1 - 0/1 loss; paper eq. EM)."""
    return float(np.mean(np.all(Y_true == Y_pred, axis=1)))


def hamming_score(Y_true: np.ndarray, Y_pred: np.ndarray) -> float:
    """Share of individual label decisions that are right (1 - Hamming loss; paper eq. HL)."""
    return float(np.mean(Y_true == Y_pred))


def _f1(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
    denominator = 2 * tp + fp + fn
    return np.asarray(np.where(denominator > 0, 2 * tp / np.maximum(denominator, 1), 1.0))


def _counts(Y_true: np.ndarray, Y_pred: np.ndarray, axis: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    Y_true, Y_pred = Y_true.astype(bool), Y_pred.astype(bool)
    tp = np.sum(Y_true & Y_pred, axis=axis)
    fp = np.sum(~Y_true & Y_pred, axis=axis)
    fn = np.sum(Y_true & ~Y_pred, axis=axis)
    return tp, fp, fn


def micro_f1(Y_true: np.ndarray, Y_pred: np.ndarray) -> float:
    """F1 over all label decisions pooled."""
    return float(_f1(*_counts(Y_true, Y_pred, axis=None)))


def macro_f1(Y_true: np.ndarray, Y_pred: np.ndarray) -> float:
    """Mean over labels of each label's F1."""
    return float(np.mean(_f1(*_counts(Y_true, Y_pred, axis=0))))


def example_f1(Y_true: np.ndarray, Y_pred: np.ndarray) -> float:
    """Mean over examples of each example's F1."""
    return float(np.mean(_f1(*_counts(Y_true, Y_pred, axis=1))))


def jaccard(Y_true: np.ndarray, Y_pred: np.ndarray) -> float:
    """Mean over examples of |y ∩ ŷ| / |y ∪ ŷ| (MEKA's 'accuracy')."""
    tp, fp, fn = _counts(Y_true, Y_pred, axis=1)
    union = tp + fp + fn
    return float(np.mean(np.where(union > 0, tp / np.maximum(union, 1), 1.0)))


SCORES = {
    "exact_match": exact_match,
    "hamming_score": hamming_score,
    "micro_f1": micro_f1,
    "macro_f1": macro_f1,
    "example_f1": example_f1,
    "jaccard": jaccard,
}


def log_loss(Y_true: np.ndarray, scores: np.ndarray) -> float:
    """Mean binary cross-entropy over every label decision (probabilities clipped by ``LOG_LOSS_EPS``)."""
    p = np.clip(np.asarray(scores, dtype=float), LOG_LOSS_EPS, 1 - LOG_LOSS_EPS)
    Y_true = np.asarray(Y_true).astype(bool)
    return float(-np.mean(np.where(Y_true, np.log(p), np.log1p(-p))))


def micro_auc(Y_true: np.ndarray, scores: np.ndarray) -> float:
    """ROC AUC of all label decisions pooled; NaN when the whole test part is one class.

    Counted per distinct score (a tied positive and negative count one half, as in
    ``roc_auc_score``, to rounding): the scores are sorted once, in their stored float32, which is
    faster than ``roc_auc_score`` on a full test part.
    """
    positive, scores = np.ravel(np.asarray(Y_true) != 0), np.ravel(scores)
    if positive.all() or not positive.any():
        return float("nan")
    _, value_index = np.unique(scores, return_inverse=True)
    positives = np.bincount(value_index, weights=positive)
    negatives = np.bincount(value_index) - positives
    negatives_below = np.cumsum(negatives) - negatives
    return float(np.sum(positives * (negatives_below + negatives / 2)) / (positives.sum() * negatives.sum()))


def macro_auc(Y_true: np.ndarray, scores: np.ndarray) -> float:
    """Mean ROC AUC over the labels with both classes in the test part.

    A label with one class in the test part has no AUC and is left out of the mean (sklearn's
    ``roc_auc_score(average='macro')`` would refuse the whole test part); NaN when no label has both.
    Each label's AUC is the Mann-Whitney statistic of its scores' average ranks (ties count one
    half, as in ``roc_auc_score``, to rounding), every label ranked in one call, as calling
    ``roc_auc_score`` once per label is several times slower.
    """
    Y_true, scores = np.asarray(Y_true) != 0, np.asarray(scores)
    n_positive = Y_true.sum(axis=0)
    both = (n_positive > 0) & (n_positive < len(Y_true))
    if not both.any():
        return float("nan")
    Y_true, scores, n_positive = Y_true[:, both], scores[:, both], n_positive[both]
    positive_rank_sum = np.sum(rankdata(scores, axis=0), axis=0, where=Y_true)
    auc = (positive_rank_sum - n_positive * (n_positive + 1) / 2) / (n_positive * (len(Y_true) - n_positive))
    return float(np.mean(auc))


RANKING_METRICS = {
    "ranking_loss": ranking_loss,
    "coverage_error": coverage_error,
    "average_precision": average_precision,
    "one_error": one_error,
    "log_loss": log_loss,
    "micro_auc": micro_auc,
    "macro_auc": macro_auc,
}
LOWER_IS_BETTER = ("ranking_loss", "coverage_error", "one_error", "log_loss")


def evaluate(Y_true: np.ndarray, Y_pred: np.ndarray) -> dict[str, float]:
    """Every score in ``SCORES`` for one test set."""
    Y_true, Y_pred = np.asarray(Y_true), np.asarray(Y_pred)
    if Y_true.shape != Y_pred.shape:
        raise ValueError(f"prediction shape {Y_pred.shape} differs from truth {Y_true.shape}")
    return {name: fn(Y_true, Y_pred) for name, fn in SCORES.items()}


ENTRY_POINT_GROUP = "mlhidden.metrics"
FUNCTION_HINT = "a function (Y_true, Y_pred[, scores]) -> float by import path (pkg.module:name)"


@dataclass(frozen=True)
class PluginMetric:
    """A metric function of the user's: ``needs_scores`` when it takes the label scores as a third argument."""

    name: str
    function: Callable[..., Any]
    needs_scores: bool
    higher_is_better: bool = True

    def __call__(self, Y_true: np.ndarray, Y_pred: np.ndarray, scores: np.ndarray | None = None) -> float:
        """The metric of one test part; NaN when it needs scores the method does not give."""
        if self.needs_scores and scores is None:
            return float("nan")
        try:
            value = self.function(Y_true, Y_pred, scores) if self.needs_scores else self.function(Y_true, Y_pred)
            return float(value)
        except Exception as exc:  # the user's function: any error in it is theirs to fix
            raise UserError(f"metric '{self.name}' failed: {type(exc).__name__}: {exc}".splitlines()[0]) from None


@functools.cache
def entry_point_metrics() -> dict[str, tuple[Any, str]]:
    """``{name: (function, source)}`` for the metrics installed packages register in ``mlhidden.metrics``."""
    return load_entry_points(ENTRY_POINT_GROUP, "metric")


def plugin_metric(name: str) -> PluginMetric | None:
    """The plug-in metric ``name`` names (an entry point's name in any case, or an import path), else None."""
    registered = entry_point_metrics()
    key = unique_match(name, registered, "metric")
    if key is not None:
        function = registered[key][0]
    elif is_import_path(name):
        function = import_object(name, "metric")
    else:
        return None
    if not callable(function):
        kind = type(function).__name__
        raise UserError(f"metric '{name}' is a {kind}, not a function", hint=FUNCTION_HINT)
    higher_is_better = bool(getattr(function, "higher_is_better", True))
    return PluginMetric(name, function, _positional_count(function) >= 3, higher_is_better)


def _positional_count(function: Callable[..., Any]) -> int:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return 2
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters)


def check_metric_name(name: object) -> str:
    """``name`` if it names a metric of the stored predictions (built in, or a plug-in), else a ``UserError``."""
    if not isinstance(name, str):
        raise UserError(f"a metric is a name or an import path, got {name!r}")
    if name in SCORES or name in RANKING_METRICS or plugin_metric(name) is not None:
        return name
    known = [*SCORES, *RANKING_METRICS]
    raise UserError(f"unknown metric '{name}'", hint=f"use one of {', '.join(known)}, or {FUNCTION_HINT}")
