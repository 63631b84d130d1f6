"""Evidence: what the reproduction's stores and refits say, as plain tables for claims and sections.

:class:`Runs` reads the run directories under one folder; the functions below turn them into the
numbers the paper's tables and figures hold (Table 3, Table 4, the sweeps, the chain accuracies),
and :func:`gather_evidence` collects what the claims decide on into one
:class:`~mlhidden.report.claims.Evidence`.

Every aggregate is taken over units in table order (configured datasets and methods, then split),
never in the order they arrived in the store, so a re-run writes the same bytes.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import pandas as pd

from mlhidden.experiment.record import RunRecord
from mlhidden.experiment.status import OK
from mlhidden.experiment.store import ResultStore, load_results, store_exists
from mlhidden.report.claims import RANKED_METRICS, Evidence, RankSummary
from mlhidden.report.paper import (
    LABEL_ACCURACY_FILE,
    LOGICAL_MODELS,
    SYNTHETIC_2D_BASE_CLASSIFIERS,
    SYNTHETIC_2D_METHODS,
    TRIVIAL_BASELINE_METHODS,
)
from mlhidden.report.tables import METRICS, metric_table, sort_units


class Runs:
    """The reproduction's run directories under one folder, each read on first use.

    ``runs[name]`` is the :class:`~mlhidden.experiment.store.RunResults` of ``<folder>/<name>``
    with its units in table order, or None when that run has no store.
    """

    def __init__(self, out_dir):
        self.out_dir = Path(out_dir)
        self._results = {}

    def __getitem__(self, name: str):
        if name not in self._results:
            run_dir = self.out_dir / name
            run = load_results(run_dir) if store_exists(run_dir) else None
            if run is not None:
                run = dataclasses.replace(run, units=sort_units(run.units, run.datasets, run.methods, run.unavailable))
            self._results[name] = run
        return self._results[name]

    def record(self, name: str) -> RunRecord:
        """The run's stored config, typed."""
        return RunRecord.from_record(self[name].config)

    def shapes(self, name: str) -> pd.DataFrame:
        """The run's datasets as stored: n_samples, n_labels, n_features, label_cardinality by name."""
        with ResultStore(self.out_dir / name, create=False) as store:
            return store.datasets().set_index("name")

    def label_accuracy(self, name: str) -> pd.DataFrame | None:
        """The run's refits (:mod:`mlhidden.report.refits`), or None when there are none."""
        path = self.out_dir / name / LABEL_ACCURACY_FILE
        return pd.read_csv(path) if path.is_file() else None


def ok_units(run) -> pd.DataFrame:
    return run.units[run.units["status"] == OK]


def logical_table(runs: Runs) -> pd.DataFrame | None:
    """Table 3: per paper model, mean exact match and Hamming score over its splits, and their count."""
    run = runs["logical"]
    if run is None:
        return None
    units = ok_units(run)
    rows = {}
    for model in LOGICAL_MODELS:
        chosen = units[units["method"] == model]
        rows[model] = {"exact_match": chosen["exact_match"].mean(), "hamming_score": chosen["hamming_score"].mean(), "n_splits": len(chosen)}
    return pd.DataFrame(rows).T.astype({"n_splits": int})


def dataset_means(run, record: RunRecord) -> pd.DataFrame:
    """Mean over the ok splits of every (dataset group, dataset, method), for all metrics."""
    groups = {spec.table_name: spec.group for spec in record.datasets}
    units = ok_units(run).assign(group=lambda u: u["dataset"].map(groups))
    return units.groupby(["group", "dataset", "method"], sort=False)[list(METRICS)].mean().reset_index()


def synthetic_table(runs: Runs, name: str = "synthetic") -> pd.DataFrame | None:
    """Table 4: per kind (dataset group) and method, the mean over datasets of exact match and Hamming score."""
    run = runs[name]
    if run is None:
        return None
    means = dataset_means(run, runs.record(name))
    table = means.groupby(["group", "method"], sort=False).agg(
        exact_match=("exact_match", "mean"), hamming_score=("hamming_score", "mean"), n_datasets=("dataset", "size")
    )
    return table.rename_axis(["kind", "method"])


def synthetic_2d_tables(runs: Runs) -> tuple | None:
    """Fig. "results_syn1": exact match per dataset and method (CC in each order) and base-classifier accuracies."""
    run = runs["synthetic_2d"]
    if run is None:
        return None
    units = ok_units(run)
    exact = {
        method: units[units["method"] == method].groupby("dataset", sort=False)["exact_match"].mean()
        for method in SYNTHETIC_2D_METHODS
    }
    exact = pd.DataFrame(exact).reindex([d for d in run.datasets if d in set(units["dataset"])])
    accuracy = runs.label_accuracy("synthetic_2d")
    if accuracy is None:
        return exact, None
    base = {}
    for column, (method, label) in SYNTHETIC_2D_BASE_CLASSIFIERS.items():
        chosen = accuracy[(accuracy["method"] == method) & (accuracy["label"] == label)]
        base[column] = chosen.groupby("dataset", sort=False)["accuracy"].mean()
    return exact, pd.DataFrame(base).reindex(list(dict.fromkeys(accuracy["dataset"])))


def chain_accuracy(runs: Runs, name: str = "paper", dataset: str = "Medical") -> pd.DataFrame | None:
    """Per method and chain position, the mean (and sd, count) over splits of the label's accuracy.

    In the shape of :func:`sweep_frame`, so that it plots the same way.
    """
    accuracy = runs.label_accuracy(name)
    if accuracy is None or dataset not in set(accuracy["dataset"]):
        return None
    chosen = accuracy[accuracy["dataset"] == dataset]
    frame = chosen.groupby(["method", "position"], sort=False)["accuracy"].agg(["mean", "std", "size"]).reset_index()
    frame = frame.rename(columns={"method": "line", "position": "x", "size": "n"})
    return frame.assign(panel=dataset, parameter="position", x=frame["x"] + 1)[["panel", "line", "parameter", "x", "mean", "std", "n"]]


def refit_check(runs: Runs, name: str) -> tuple | None:
    """How many refit units reproduce the exact match in the store: (matching, total)."""
    accuracy = runs.label_accuracy(name)
    if accuracy is None or runs[name] is None:
        return None
    refits = accuracy.drop_duplicates(["dataset", "method", "split"])
    stored = runs[name].units.set_index(["dataset", "method", "split"])["exact_match"]
    matching = sum(
        math.isclose(row.exact_match, stored.get((row.dataset, row.method, row.split), math.nan), abs_tol=1e-12)
        for row in refits.itertuples()
    )
    return matching, len(refits)


def sweep_frame(units: pd.DataFrame, record: RunRecord, metric: str) -> pd.DataFrame:
    """Mean and spread over the splits of each sweep point, from a run's units and stored config.

    Each (dataset, method) entry of the run must sit at a sweep point with exactly one swept
    value, from its dataset entry (e.g. ``first_labels``) or its method entry (e.g.
    ``n_synthetic``); that value is the x coordinate. Entries are grouped into lines by their
    method's group and into panels by their dataset's group (the config entries they came from).

    Parameters
    ----------
    units : pandas.DataFrame
        The run's units as :func:`~mlhidden.experiment.store.load_results` returns them.
    record : RunRecord
        The run's stored config.
    metric : str
        The metric column.

    Returns
    -------
    pandas.DataFrame
        Columns panel, line, parameter, x, mean, std (ddof=1, NaN for one split) and n (ok
        splits), in config order of panels and lines and ascending x.
    """
    datasets = {spec.table_name: spec for spec in record.datasets}
    methods = {spec.label: spec for spec in record.methods}
    rows = []
    for (dataset, method), group in units[units["status"] == OK].groupby(["dataset", "method"], sort=False):
        point = {**datasets[dataset].sweep, **methods[method].sweep}
        if len(point) != 1:
            raise ValueError(f"{method} on {dataset} has swept values {point}; a sweep plot needs exactly one")
        (parameter, x), = point.items()
        values = group[metric].astype(float)
        rows.append({
            "panel": datasets[dataset].group, "line": methods[method].group, "parameter": parameter, "x": x,
            "mean": values.mean(), "std": values.std(), "n": len(values),
        })
    frame = pd.DataFrame(rows, columns=["panel", "line", "parameter", "x", "mean", "std", "n"])
    panel_order = list(dict.fromkeys(spec.group for spec in record.datasets))
    line_order = list(dict.fromkeys(spec.group for spec in record.methods))
    frame["panel"] = pd.Categorical(frame["panel"], panel_order, ordered=True)
    frame["line"] = pd.Categorical(frame["line"], line_order, ordered=True)
    frame = frame.sort_values(["panel", "line", "x"]).reset_index(drop=True)
    return frame.astype({"panel": str, "line": str})


def run_sweep(runs: Runs, name: str, metric: str = "exact_match") -> pd.DataFrame | None:
    """The sweep frame of run ``name``, or None when it has no store."""
    run = runs[name]
    return None if run is None else sweep_frame(run.units, runs.record(name), metric)


def ranked_methods(run) -> list:
    """The methods of a paper run that the paper's rankings compare: all but the trivial baselines."""
    return [m for m in run.methods if m not in TRIVIAL_BASELINE_METHODS]


def gather_evidence(runs: Runs) -> Evidence:
    """Everything :mod:`mlhidden.report.claims` needs, read from the runs' stores and refits."""
    fields: dict[str, Any] = {
        "logical": logical_table(runs), "synthetic": synthetic_table(runs), "hidden_nodes": run_sweep(runs, "hidden_nodes"),
        "label_count": run_sweep(runs, "label_count"), "medical_chain": chain_accuracy(runs),
    }
    paper = runs["paper"]
    if paper is not None:
        ranks, methods = {}, ranked_methods(paper)
        for metric in RANKED_METRICS:
            table = metric_table(paper.units, metric, paper.datasets, methods, paper.unavailable)
            ranks[metric] = RankSummary(table.avg_rank.sort_values(kind="stable"), len(table.ranked_datasets))
        times = metric_table(paper.units, "total_seconds", paper.datasets, methods, paper.unavailable)
        fields.update(
            paper_ranks=ranks, paper_times=times.means.loc[times.ranked_datasets], paper_sizes=runs.shapes("paper")["n_samples"]
        )
    if runs["label_count"] is not None:
        fields["label_count_bases"] = {m.group: (m.base or {}).get("name") for m in runs.record("label_count").methods}
    return Evidence(**fields)
