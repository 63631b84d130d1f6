"""What the paper's claims are decided on: :class:`Evidence`, plain tables with no store behind them.

Kept apart from :mod:`mlhidden.paper.evidence`, which reads the stores, so that the claims stay
pure functions importable without SQLite, plotting or the runner.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

# The metrics whose average ranks the paper claims something about.
RANKED_METRICS = ("exact_match", "hamming_score")


@dataclass(frozen=True)
class RankSummary:
    """A run's average ranks on one metric, best first, over the datasets where every method has a
    result, and the Friedman test's p over them (the Nemenyi comparisons speak only when it rejects)."""

    ranks: pd.Series
    n_datasets: int
    friedman_p: float = 0.0


@dataclass(frozen=True)
class Evidence:
    """What the claims are decided on; None where the run behind a field has no store.

    The ``*_splits`` and ``*_datasets`` fields hold the values the claims' paired comparisons are
    over; the others are their means, which the report's sections show.

    Attributes
    ----------
    logical : pandas.DataFrame or None
        Table 3 (:func:`~mlhidden.paper.evidence.logical_table`).
    logical_splits : pandas.DataFrame or None
        Table 3's units: method, split, exact_match, hamming_score.
    synthetic : pandas.DataFrame or None
        Table 4 (:func:`~mlhidden.paper.evidence.synthetic_table`).
    synthetic_datasets : pandas.DataFrame or None
        Table 4's datasets: kind, dataset, method and the metrics' means over the dataset's splits.
    paper_ranks : dict or None
        Metric -> :class:`RankSummary` of the paper run, for :data:`RANKED_METRICS`.
    paper_times : pandas.DataFrame or None
        The paper run's mean train + test seconds, ranked datasets x methods.
    paper_time_splits : pandas.DataFrame or None
        Their units: dataset, method, split, total_seconds.
    paper_sizes : pandas.Series or None
        The paper run's n_samples by dataset.
    hidden_nodes, label_count : pandas.DataFrame or None
        The sweeps' exact match (:func:`~mlhidden.paper.evidence.sweep_frame`).
    hidden_nodes_splits, label_count_splits : pandas.DataFrame or None
        Their units (:func:`~mlhidden.paper.evidence.sweep_splits`): line, x, split, value.
    label_count_bases : dict
        The label-count run's method groups -> base learner name (None without one).
    medical_chain : pandas.DataFrame or None
        Medical's accuracy per chain position (:func:`~mlhidden.paper.evidence.chain_accuracy`).
    medical_chain_splits : pandas.DataFrame or None
        Its refits: line, split, x (the position from 1), value (the label's accuracy).
    """

    logical: pd.DataFrame | None = None
    logical_splits: pd.DataFrame | None = None
    synthetic: pd.DataFrame | None = None
    synthetic_datasets: pd.DataFrame | None = None
    paper_ranks: dict | None = None
    paper_times: pd.DataFrame | None = None
    paper_time_splits: pd.DataFrame | None = None
    paper_sizes: pd.Series | None = None
    hidden_nodes: pd.DataFrame | None = None
    hidden_nodes_splits: pd.DataFrame | None = None
    label_count: pd.DataFrame | None = None
    label_count_splits: pd.DataFrame | None = None
    label_count_bases: dict = field(default_factory=dict)
    medical_chain: pd.DataFrame | None = None
    medical_chain_splits: pd.DataFrame | None = None
