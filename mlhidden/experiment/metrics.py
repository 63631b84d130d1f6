"""Multi-label evaluation measures, each a function ``(Y_true, Y_pred) -> float``.

Conventions (MEKA's and the paper's): scores, higher is better. Where a measure is undefined
because both truth and prediction are empty (an example with no labels, a label never present),
the prediction is perfect and scores 1.
"""

from __future__ import annotations

import numpy as np


def exact_match(Y_true, Y_pred) -> float:
    """Share of examples whose whole label vector is right (1 - 0/1 loss; paper eq. EM)."""
    return float(np.mean(np.all(Y_true == Y_pred, axis=1)))


def hamming_score(Y_true, Y_pred) -> float:
    """Share of individual label decisions that are right (1 - Hamming loss; paper eq. HL)."""
    return float(np.mean(Y_true == Y_pred))


def _f1(tp, fp, fn):
    denominator = 2 * tp + fp + fn
    return np.where(denominator > 0, 2 * tp / np.maximum(denominator, 1), 1.0)


def _counts(Y_true, Y_pred, axis):
    Y_true, Y_pred = Y_true.astype(bool), Y_pred.astype(bool)
    tp = np.sum(Y_true & Y_pred, axis=axis)
    fp = np.sum(~Y_true & Y_pred, axis=axis)
    fn = np.sum(Y_true & ~Y_pred, axis=axis)
    return tp, fp, fn


def micro_f1(Y_true, Y_pred) -> float:
    """F1 over all label decisions pooled."""
    return float(_f1(*_counts(Y_true, Y_pred, axis=None)))


def macro_f1(Y_true, Y_pred) -> float:
    """Mean over labels of each label's F1."""
    return float(np.mean(_f1(*_counts(Y_true, Y_pred, axis=0))))


def example_f1(Y_true, Y_pred) -> float:
    """Mean over examples of each example's F1."""
    return float(np.mean(_f1(*_counts(Y_true, Y_pred, axis=1))))


def jaccard(Y_true, Y_pred) -> float:
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


def evaluate(Y_true, Y_pred) -> dict:
    """Every score in ``SCORES`` for one test set."""
    Y_true, Y_pred = np.asarray(Y_true), np.asarray(Y_pred)
    if Y_true.shape != Y_pred.shape:
        raise ValueError(f"prediction shape {Y_pred.shape} differs from truth {Y_true.shape}")
    return {name: fn(Y_true, Y_pred) for name, fn in SCORES.items()}
