"""What the report's sections draw: :class:`Evidence`, plain tables with no store behind them.

Kept apart from :mod:`mlhidden.paper.evidence`, which reads the stores, so that a section can be
tested on tables made by hand.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd


@dataclass(frozen=True)
class Evidence:
    """What the sections draw; None where the run behind a field has no store.

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
    hidden_nodes, label_count : pandas.DataFrame or None
        The sweeps' exact match (:func:`~mlhidden.paper.evidence.sweep_frame`).
    medical_chain : pandas.DataFrame or None
        Medical's accuracy per chain position (:func:`~mlhidden.paper.evidence.chain_accuracy`).
    """

    logical: pd.DataFrame | None = None
    logical_splits: pd.DataFrame | None = None
    synthetic: pd.DataFrame | None = None
    synthetic_datasets: pd.DataFrame | None = None
    hidden_nodes: pd.DataFrame | None = None
    label_count: pd.DataFrame | None = None
    medical_chain: pd.DataFrame | None = None
