"""The metric catalogue: one :class:`Metric` per metric, carrying its computation, name, title and direction.

:data:`METRICS` is the one definition of every built-in metric; the store's columns
(:mod:`mlhidden.runs.store_schema`), :class:`~mlhidden.runs.units.UnitResult`'s fields and every table
read it. A new metric is one :class:`Metric` there. Its function is of a unit's binary predictions,
``(Y_true, Y_pred) -> float`` (:data:`SCORES`, which each unit stores), or of the label scores,
``(Y_true, scores) -> float`` (:data:`RANKING_METRICS`, computed by a report from the stored scores);
times have none, as the runner measures them.

Conventions (MEKA's and the paper's): scores, higher is better. Where a measure is undefined because
both truth and prediction are empty (an example with no labels, a label never present), the
prediction is perfect and scores 1. The label scores are the per-label probabilities
P(y_j = 1 | x) a method's ``predict_proba`` gives (MEKA's ranking and probability measures); methods
without such scores have none of those metrics.

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

from mlhidden.errors import UserError, did_you_mean, unique_match
from mlhidden.imports import import_object, is_import_path, load_entry_points
from mlhidden.runs.label_ranking import average_precision, coverage_error, one_error, ranking_loss

# Probabilities are clipped to [eps, 1 - eps] in the log-loss (float32 resolves 1 - 1e-7).
LOG_LOSS_EPS = 1e-7
MIN_DIGITS, MAX_DIGITS = 2, 4
"""The fewest and most decimals a table shows a score with (see :mod:`mlhidden.report.digits`)."""


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


@dataclass(frozen=True)
class Metric:
    """One metric: its name, title, direction and computation, and how a table shows its values.

    Parameters
    ----------
    name : str
        Its key in :data:`METRICS`, and the column of a units frame holding its per-unit value.
    title : str
        The display title.
    function : callable, optional
        Its value on one test part: ``(Y_true, Y_pred)``, ``(Y_true, scores)`` with ``needs_scores``, a
        plug-in's ``(Y_true, Y_pred, scores)``; None for a time, which the runner measures.
    higher_is_better : bool
        Scores rank descending (rank 1 = highest); losses and times rank ascending (rank 1 = lowest).
    needs_scores : bool
        Computed from the label scores, so NaN for a method without ``predict_proba``.
    stored : bool
        Each unit stores it: a column of the store's ``units`` table and a field of
        :class:`~mlhidden.runs.units.UnitResult`. The others a report computes from what is stored.
    is_time : bool
        Times are shown with fewer decimals the longer they are (see :meth:`format`).
    plugin : bool
        A metric function of the user's (:func:`plugin_metric`), computed from the stored predictions.
    digits : int, optional
        Decimals of every value shown (``--precision``); None for the defaults of :meth:`format`.
    extra_digits : int
        Decimals a time table adds to the defaults of :meth:`format`, to tell its ranks apart.
    """

    name: str
    title: str
    function: Callable[..., Any] | None = None
    higher_is_better: bool = True
    needs_scores: bool = False
    stored: bool = False
    is_time: bool = False
    plugin: bool = False
    digits: int | None = None
    extra_digits: int = 0

    def __call__(self, Y_true: np.ndarray, Y_pred: np.ndarray, scores: np.ndarray | None = None) -> float:
        """The metric of one test part; NaN when it needs scores the method does not give."""
        assert self.function is not None, f"{self.name} is measured, not computed"
        if self.needs_scores and scores is None:
            return float("nan")
        if not self.plugin:
            return float(self.function(Y_true, scores if self.needs_scores else Y_pred))
        try:
            value = self.function(Y_true, Y_pred, scores) if self.needs_scores else self.function(Y_true, Y_pred)
            return float(value)
        except Exception as exc:  # the user's function: any error in it is theirs to fix
            raise UserError(f"metric '{self.name}' failed: {type(exc).__name__}: {exc}".splitlines()[0]) from None

    def format(self, value: float) -> str:
        """The display text of a mean.

        Scores get 2 decimals, as in the paper. Times in seconds get whole seconds from 10 s up
        (the paper shows integer seconds), one decimal from 1 s and two below 1 s, so that fast
        methods do not all read "0". With ``digits`` set, every value gets that many, since two
        decimals can hide the differences that decide the ranks.
        """
        if self.digits is not None:
            return f"{value:.{self.digits}f}"
        decimals = 2 if not self.is_time or value < 1 else 1 if value < 10 else 0
        return f"{value:.{min(decimals + self.extra_digits, MAX_DIGITS)}f}"


def _time(name: str, title: str, stored: bool = True) -> Metric:
    return Metric(name, title, higher_is_better=False, stored=stored, is_time=True)


def _of_scores(name: str, title: str, function: Callable[[np.ndarray, np.ndarray], float], higher: bool) -> Metric:
    return Metric(name, title, function, higher_is_better=higher, needs_scores=True)


METRICS: dict[str, Metric] = {
    metric.name: metric
    for metric in (
        Metric("exact_match", "Exact match", exact_match, stored=True),
        Metric("hamming_score", "Hamming score", hamming_score, stored=True),
        Metric("micro_f1", "Micro F1", micro_f1, stored=True),
        Metric("macro_f1", "Macro F1", macro_f1, stored=True),
        Metric("example_f1", "Example F1", example_f1, stored=True),
        Metric("jaccard", "Jaccard index", jaccard, stored=True),
        _time("train_seconds", "Train time (s)"),
        _time("test_seconds", "Test time (s)"),
        _time("total_seconds", "Time (s)", stored=False),  # the two above, summed when the store is read
        _of_scores("ranking_loss", "Ranking loss", ranking_loss, higher=False),
        _of_scores("coverage_error", "Coverage error", coverage_error, higher=False),
        _of_scores("average_precision", "Label ranking average precision", average_precision, higher=True),
        _of_scores("one_error", "One-error", one_error, higher=False),
        _of_scores("log_loss", "Log-loss", log_loss, higher=False),
        _of_scores("micro_auc", "Micro ROC AUC", micro_auc, higher=True),
        _of_scores("macro_auc", "Macro ROC AUC", macro_auc, higher=True),
    )
}
"""Every built-in metric, by name: the scores each unit stores, the times, then the metrics of the label scores."""

UNIT_METRICS = {name: metric for name, metric in METRICS.items() if not metric.needs_scores}
"""The metrics every unit has a value of in a units frame: the stored ones and the total time."""
SCORES = {name: m.function for name, m in METRICS.items() if m.stored and m.function is not None}
"""``{name: function (Y_true, Y_pred) -> float}`` of the scores each unit stores."""
RANKING_METRICS = {name: m.function for name, m in METRICS.items() if m.needs_scores and m.function is not None}
"""``{name: function (Y_true, scores) -> float}`` of the metrics of the label scores."""


def evaluate(Y_true: np.ndarray, Y_pred: np.ndarray) -> dict[str, float]:
    """Every score in ``SCORES`` for one test set."""
    Y_true, Y_pred = np.asarray(Y_true), np.asarray(Y_pred)
    if Y_true.shape != Y_pred.shape:
        raise ValueError(f"prediction shape {Y_pred.shape} differs from truth {Y_true.shape}")
    return {name: fn(Y_true, Y_pred) for name, fn in SCORES.items()}


ENTRY_POINT_GROUP = "mlhidden.metrics"
FUNCTION_HINT = "a function (Y_true, Y_pred[, scores]) -> float by import path (pkg.module:name)"


@functools.cache
def entry_point_metrics() -> dict[str, tuple[Any, str]]:
    """``{name: (function, source)}`` for the metrics installed packages register in ``mlhidden.metrics``."""
    return load_entry_points(ENTRY_POINT_GROUP, "metric")


def plugin_metric(name: str) -> Metric | None:
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
    needs_scores = _positional_count(function) >= 3
    return Metric(name, name, function, higher_is_better, needs_scores, plugin=True)


def _positional_count(function: Callable[..., Any]) -> int:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return 2
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters)


def get_metric(metric: str | Metric) -> Metric:
    """The :class:`Metric` of a name of :data:`METRICS` (in any case), or of a plug-in metric's import path or
    entry-point name; a ``UserError`` for any other name (a :class:`Metric` is returned as is)."""
    if isinstance(metric, Metric):
        return metric
    name = unique_match(metric, METRICS, "metric") or metric
    found = METRICS.get(name) or plugin_metric(name)
    if found is None:
        raise UserError(
            f"unknown metric '{name}'",
            hint=f"{did_you_mean(name, METRICS)}valid metrics: {', '.join(METRICS)}, or {FUNCTION_HINT}",
        )
    return found


def check_metric_name(name: object) -> str:
    """``name`` if it names a metric of the stored predictions (built in, or a plug-in), else a ``UserError``."""
    if not isinstance(name, str):
        raise UserError(f"a metric is a name or an import path, got {name!r}")
    known = [key for key, metric in METRICS.items() if metric.function is not None]
    if name in known or plugin_metric(name) is not None:
        return name
    raise UserError(f"unknown metric '{name}'", hint=f"use one of {', '.join(known)}, or {FUNCTION_HINT}")
