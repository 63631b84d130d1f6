"""The paper's own printed numbers as stored runs, so that the claims checker decides every sub-claim on them too.

A reading that cannot confirm its claim even on the numbers the claim was written from measures the
reading, not the method: :class:`PaperNumbers` is a view of the stored runs whose units carry the
paper's values (``reference_results.csv``), read by the same :class:`~mlhidden.claims.check.Checker`.
The paper prints a mean per dataset, method and metric and no splits, so the view keeps our split
values' spread and moves their mean onto the paper's
(:data:`~mlhidden.claims.check.CALIBRATION_BASIS`); per-dataset means, ranks and
ratios are then the paper's own. Times are scaled, not shifted: a time is on a ratio scale, and a
shifted one can be negative. A cell the paper does not print is not in the view, and a run none of
whose tables it prints (:data:`PRINTED_TABLES`) has no results there: their sub-claims are "not
evaluated" on the paper's numbers, never flagged.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from mlhidden.claims import Checker, Extractor, StoredRuns, SubClaim
from mlhidden.paper.claim_evidence import chain_accuracy
from mlhidden.paper.reference import PAPER_TABLES, reference_results
from mlhidden.runs import METRICS, RunResults

PRINTED_TABLES = {"paper": ("results", "scalability"), "logical": ("logical",), "synthetic": ("synthetic",)}
"""Our runs -> the paper's tables that print their cells (a synthetic table's "dataset" is the group of data)."""
OUR_METRICS = {printed: ours for ours, printed in PAPER_TABLES.items()}
"""(table, the paper's metric name) -> ours, where the two differ."""


def printed_cells(run: str) -> pd.DataFrame:
    """The paper's values for run ``run``'s cells: dataset (or group), method, metric (our name), value."""
    paper = reference_results()
    paper = paper[paper["table"].isin(PRINTED_TABLES.get(run, ()))]
    metrics = [OUR_METRICS.get((table, metric), metric) for table, metric in zip(paper["table"], paper["metric"])]
    return paper.assign(metric=metrics)[["dataset", "method", "metric", "value"]]


def on_paper_numbers(units: pd.DataFrame, printed: pd.DataFrame) -> pd.DataFrame:
    """The units of ``units`` whose dataset (or group) and method the paper prints, moved onto its values.

    Each printed cell's split values are shifted (a time's scaled) so that their mean is the paper's; a
    metric the paper does not print for a unit is NaN there, so no number of ours stands for the paper's.
    """
    metrics = sorted(set(printed["metric"]) & set(units.columns))
    moved = units.copy()
    moved[[c for c in units.columns if c in METRICS or c.endswith("_seconds")]] = np.nan
    kept = pd.Series(False, index=units.index)
    datasets = set(units["dataset"])
    for cell in printed[printed["metric"].isin(metrics)].itertuples():
        where = "dataset" if cell.dataset in datasets or "group" not in units else "group"
        chosen = (units[where] == cell.dataset) & (units["method"] == cell.method)
        ours = units.loc[chosen, cell.metric].astype(float)
        if ours.empty:
            continue
        mean = float(ours.mean())
        if not cell.metric.endswith("_seconds"):
            moved.loc[chosen, cell.metric] = ours + (cell.value - mean)
        else:
            moved.loc[chosen, cell.metric] = ours * (cell.value / mean) if mean > 0 else cell.value
        kept |= chosen
    return moved[kept]


class PaperNumbers(StoredRuns):
    """The stored runs with each unit's values moved onto the paper's printed ones (see the module docstring).

    It shares ``runs``' folders and the results read so far (a copy of its state, whatever that holds),
    so each store is read once for both.
    """

    def __init__(self, runs: StoredRuns):
        vars(self).update(vars(runs))
        self._moved: dict[str, pd.DataFrame] = {}

    def __getitem__(self, name: str) -> RunResults | None:
        """The run as stored where the paper prints some of its tables (its units are moved by :meth:`ok_units`)."""
        return super().__getitem__(name) if self.key(name) in PRINTED_TABLES else None

    def ok_units(self, name: str) -> pd.DataFrame:
        key = self.key(name)
        if key not in self._moved:
            self._moved[key] = on_paper_numbers(super().ok_units(key), printed_cells(key))
        return self._moved[key]


def _chain_on_paper(runs: StoredRuns, sub: SubClaim) -> pd.DataFrame | str:
    """Our chains' per-split summaries moved onto the paper's: a rise onto its end minus its start, a mean
    onto their midpoint (the paper prints a chain's start and end only)."""
    ours = chain_accuracy(runs, sub)
    if isinstance(ours, str):
        return ours
    paper = reference_results()
    printed = paper[(paper["table"] == "medical_chain") & (paper["dataset"] == sub.params.get("dataset"))]
    values = printed.set_index("method")["value"]
    rows = []
    for method, group in ours.groupby("method", sort=False):
        start, end = values.get(f"{method} start"), values.get(f"{method} end")
        if start is None or end is None:
            continue
        value = end - start if sub.params.get("summary") == "rise" else (start + end) / 2
        rows.append(group.assign(value=group["value"] + (value - group["value"].mean())))
    return pd.concat(rows, ignore_index=True) if rows else f"the paper prints no chain of {sub.params.get('dataset')}"


def _no_gap_on_paper(runs: StoredRuns, sub: SubClaim) -> str:
    return "it compares our numbers with the paper's, which on the paper's own are equal by construction"


def _no_label_accuracy_on_paper(runs: StoredRuns, sub: SubClaim) -> str:
    return "the paper prints no per-label accuracy of these labels"


CALIBRATED_EXTRACTORS: Mapping[str, Extractor] = {
    "paper_gap": _no_gap_on_paper, "chain_accuracy": _chain_on_paper, "label_accuracy": _no_label_accuracy_on_paper,
}
"""Each of :data:`~mlhidden.paper.claim_evidence.EXTRACTORS` on the paper's own numbers."""


def calibration_checker(runs: StoredRuns, source: str | Path) -> Checker:
    """A checker of the claims file ``source`` on the paper's own numbers behind ``runs``."""
    return Checker(PaperNumbers(runs), source, CALIBRATED_EXTRACTORS, strict=False)
