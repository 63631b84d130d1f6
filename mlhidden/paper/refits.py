"""Refits of stored units, for the per-label accuracies the store does not keep.

The store keeps a unit's scores, not its predictions, but the paper also reads the accuracy of
single labels (Fig. "results_syn1", the Medical chain). A refit takes the unit's own split,
label order and method seed through the runner's own :func:`~mlhidden.runs.unit_fit.fit_unit`,
so it is the stored unit again; its exact match is written too, for the report to check against
the store. Its warnings are the stored unit's, kept in the store, so the refit does not repeat them.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from mlhidden.paper.parallel_jobs import Job
from mlhidden.paper.reference import LABEL_ACCURACY_FILE
from mlhidden.report import write_frame
from mlhidden.runs import RunRecord, fit_unit, load_dataset_spec, load_results

LABEL_ACCURACY_COLUMNS = ["dataset", "method", "split", "position", "label", "accuracy", "exact_match"]


def label_accuracy_job(run_dir, groups, methods, data_dir=None) -> Job:
    """Refit some units of a run and write each label's test accuracy to ``label_accuracy.csv``, as a
    :class:`~mlhidden.paper.parallel_jobs.Job`: one call per unit refitted, each with its own split and
    method seed, and a finish that writes the CSV.

    Parameters
    ----------
    run_dir : str or os.PathLike
    groups : sequence of str
        Dataset groups (config entries) of the run to refit.
    methods : sequence of str
        Method labels to refit.
    data_dir : str or os.PathLike, optional

    Returns
    -------
    Job
        Its finish returns the CSV's path: one row per (dataset, method, split, chain position) with
        the label's index in the dataset, its accuracy, and the unit's exact match.
    """
    run_dir = Path(run_dir)
    results = load_results(run_dir)
    record = RunRecord.from_record(results.config)
    calls = []
    for spec in record.datasets:
        name = spec.table_name
        if spec.group not in groups or name not in results.checksums:
            continue
        data = load_dataset_spec(spec, data_dir)
        splits = record.split_recipe.splits(name, data.Y)
        for method in (m for m in record.methods if m.label in methods):
            calls += [(_refit_rows, name, data.X, data.Y, split, method) for split in splits]

    def write(rows: list) -> Path:
        frame = pd.DataFrame([row for unit_rows in rows for row in unit_rows], columns=LABEL_ACCURACY_COLUMNS)
        return write_frame(run_dir / LABEL_ACCURACY_FILE, frame)

    return Job(calls, write)


def _refit_rows(name: str, X, Y, split, method) -> list:
    """One stored unit fitted again: a row per chain position with its label's test accuracy."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = fit_unit(X, Y, split, method, with_scores=False)
    correct = fitted.predicted == Y[split.test]
    exact = float(np.mean(np.all(correct, axis=1)))
    return [
        {
            "dataset": name, "method": method.label, "split": split.index, "position": position,
            "label": int(label), "accuracy": float(np.mean(correct[:, label])), "exact_match": exact,
        }
        for position, label in enumerate(split.label_order)
    ]
