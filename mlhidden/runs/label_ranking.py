"""Label ranking measures of a test part's label scores, every row at once.

They give scikit-learn's ``label_ranking_loss``, ``coverage_error`` and
``label_ranking_average_precision_score`` to rounding (1e-12), with its conventions for tied
scores and for rows with no relevant label or only relevant ones. scikit-learn ranks one row at a
time in Python, which made one metric of the full paper run take minutes; here each relevant label
is compared with every label of its row in one array operation, which costs (relevant labels) x L
comparisons instead of a sort of every row: test rows have few relevant labels.

Ties count against the method throughout, as in scikit-learn: a relevant label tied with an
irrelevant one is ranked below it. ``Y_true`` is any 0/1 array or scipy sparse matrix (nonzero is
relevant); ``scores`` any float dtype (float16 and float32 order and tie as their float64 values).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike

from mlhidden.data.dataset import Matrix

# Relevant labels x labels compared per block: bounds the memory of a block to about 20 MB.
BLOCK_COMPARISONS = 1 << 22


def _relevance_and_scores(Y_true: Matrix, scores: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """``Y_true`` as a dense boolean array (nonzero is relevant) and ``scores`` as an array of the same 2-D shape."""
    if isinstance(Y_true, np.ndarray) or not sp.issparse(Y_true):
        relevant = np.asarray(Y_true) != 0
    else:
        relevant = Y_true.toarray() != 0
    scores = np.asarray(scores)
    if relevant.shape != scores.shape or scores.ndim != 2:
        raise ValueError(f"label scores of shape {scores.shape} do not match the truth's {relevant.shape}")
    return relevant, scores


@dataclass(frozen=True)
class RelevantRanks:
    """Where each relevant label of a test part ranks in its row, ties counted against it.

    ``row`` is each relevant label's row (ascending); ``at_or_above`` counts the labels of that
    row scoring at least as high as it, itself included, and ``relevant_at_or_above`` the
    relevant ones among them. ``n_relevant`` is every row's number of relevant labels.
    """

    row: np.ndarray
    at_or_above: np.ndarray
    relevant_at_or_above: np.ndarray
    n_relevant: np.ndarray
    n_labels: int

    @classmethod
    def of(cls, Y_true: Matrix, scores: ArrayLike) -> RelevantRanks:
        relevant, scores = _relevance_and_scores(Y_true, scores)
        row, label = np.nonzero(relevant)
        at_or_above = np.empty(len(row), dtype=np.int64)
        relevant_at_or_above = np.empty(len(row), dtype=np.int64)
        block = max(1, BLOCK_COMPARISONS // max(1, scores.shape[1]))
        for start in range(0, len(row), block):
            rows = row[start : start + block]
            above = scores[rows] >= scores[rows, label[start : start + block]][:, None]
            at_or_above[start : start + block] = np.count_nonzero(above, axis=1)
            relevant_at_or_above[start : start + block] = np.count_nonzero(above & relevant[rows], axis=1)
        return cls(row, at_or_above, relevant_at_or_above, relevant.sum(axis=1), scores.shape[1])

    def per_row_sum(self, values: np.ndarray) -> np.ndarray:
        """``values`` (one per relevant label) summed over each row's relevant labels."""
        return np.bincount(self.row, weights=values, minlength=len(self.n_relevant))

    def ranked_trivially(self) -> np.ndarray:
        """Rows with no relevant label or only relevant ones, for which every ranking is perfect."""
        return np.asarray((self.n_relevant == 0) | (self.n_relevant == self.n_labels))


def ranking_loss(Y_true: Matrix, scores: ArrayLike) -> float:
    """Mean share of (relevant, irrelevant) label pairs ranked the wrong way (sklearn's ``label_ranking_loss``).

    A tied pair counts as wrong; a row with no relevant or no irrelevant label has no pair and
    a loss of 0.
    """
    ranks = RelevantRanks.of(Y_true, scores)
    wrong_pairs = ranks.per_row_sum(ranks.at_or_above - ranks.relevant_at_or_above)
    with np.errstate(divide="ignore", invalid="ignore"):
        loss = wrong_pairs / ((ranks.n_labels - ranks.n_relevant) * ranks.n_relevant)
    return float(np.mean(np.where(ranks.ranked_trivially(), 0.0, loss)))


def average_precision(Y_true: Matrix, scores: ArrayLike) -> float:
    """Label ranking average precision (sklearn's ``label_ranking_average_precision_score``).

    For each relevant label, the share of relevant labels among those scoring at least as high,
    averaged per row; a row with no relevant or no irrelevant label scores 1.
    """
    ranks = RelevantRanks.of(Y_true, scores)
    with np.errstate(divide="ignore", invalid="ignore"):
        per_row = ranks.per_row_sum(ranks.relevant_at_or_above / ranks.at_or_above) / ranks.n_relevant
    return float(np.mean(np.where(ranks.ranked_trivially(), 1.0, per_row)))


def coverage_error(Y_true: Matrix, scores: ArrayLike) -> float:
    """Mean depth of the ranking needed to cover every relevant label (sklearn's ``coverage_error``).

    The depth is the number of labels scoring at least as high as the lowest-scored relevant
    label, ties included; a row with no relevant label needs depth 0.
    """
    relevant, scores = _relevance_and_scores(Y_true, scores)
    lowest_relevant = np.min(scores, axis=1, where=relevant, initial=np.inf, keepdims=True)
    depth = np.count_nonzero(scores >= lowest_relevant, axis=1)
    return float(np.mean(np.where(relevant.any(axis=1), depth, 0)))


def one_error(Y_true: Matrix, scores: ArrayLike) -> float:
    """Share of examples whose top-scored label is not relevant.

    Ties count against the method as in the measures above: the top is wrong when any label
    sharing the top score is irrelevant, so the value does not depend on the order of the labels.
    Examples without a relevant label are not errors, as they count as perfectly ranked above.
    """
    relevant, scores = _relevance_and_scores(Y_true, scores)
    at_top = scores == scores.max(axis=1, keepdims=True)
    wrong = np.any(at_top & ~relevant, axis=1) & relevant.any(axis=1)
    return float(np.mean(wrong))
