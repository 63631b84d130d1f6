"""Evidence: what the reproduction's stores and refits say, as plain tables for claims and sections.

The run directories under one folder are read as the claims checker reads them
(:class:`~mlhidden.claims.runs.StoredRuns`); the functions below turn them into the numbers the
paper's tables and figures hold (Table 3, Table 4, the sweeps, the chain accuracies), and
:func:`gather_evidence` collects what the sections draw into one
:class:`~mlhidden.paper.claim_inputs.Evidence`.

Every aggregate is taken over units in table order (configured datasets and methods, then split),
never in the order they arrived in the store, so a re-run writes the same bytes.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from mlhidden.claims import StoredRuns
from mlhidden.paper.claim_inputs import Evidence
from mlhidden.paper.reference import (
    LABEL_ACCURACY_FILE,
    LOGICAL_MODELS,
    SYNTHETIC_2D_BASE_CLASSIFIERS,
    SYNTHETIC_2D_METHODS,
)
from mlhidden.report import unranked_methods
from mlhidden.runs import OK, UNIT_METRICS, RunRecord
from mlhidden.stats import t_interval


def label_accuracy(runs: StoredRuns, name: str) -> pd.DataFrame | None:
    """Run ``name``'s refits (:mod:`mlhidden.paper.refits`), or None when there are none."""
    folder = runs.paths.get(name)
    path = folder / LABEL_ACCURACY_FILE if folder is not None else None
    return pd.read_csv(path) if path is not None and path.is_file() else None


def ok_units(run) -> pd.DataFrame:
    return run.units[run.units["status"] == OK]


def logical_splits(runs: StoredRuns) -> pd.DataFrame | None:
    """Table 3's units: per paper model and ok split, exact match and Hamming score."""
    run = runs["logical"]
    if run is None:
        return None
    units = ok_units(run)
    return units[units["method"].isin(LOGICAL_MODELS)][["method", "split", "exact_match", "hamming_score"]].reset_index(
        drop=True
    )


def logical_table(runs: StoredRuns) -> pd.DataFrame | None:
    """Table 3: per paper model, mean exact match and Hamming score over its splits, and their count."""
    splits = logical_splits(runs)
    if splits is None:
        return None
    rows = {}
    for model in LOGICAL_MODELS:
        chosen = splits[splits["method"] == model]
        rows[model] = {
            "exact_match": chosen["exact_match"].mean(),
            "hamming_score": chosen["hamming_score"].mean(),
            "n_splits": len(chosen),
        }
    return pd.DataFrame(rows).T.astype({"n_splits": int})


def dataset_means(run, record: RunRecord) -> pd.DataFrame:
    """Mean over the ok splits of every (dataset group, dataset, method), for all metrics."""
    groups = {spec.table_name: spec.group for spec in record.datasets}
    units = ok_units(run).assign(group=lambda u: u["dataset"].map(groups))
    return units.groupby(["group", "dataset", "method"], sort=False)[list(UNIT_METRICS)].mean().reset_index()


def synthetic_datasets(runs: StoredRuns, name: str = "synthetic") -> pd.DataFrame | None:
    """Table 4's datasets: per kind (dataset group), dataset and method, the means over its splits."""
    run = runs[name]
    if run is None:
        return None
    return dataset_means(run, runs.record(name)).rename(columns={"group": "kind"})


def synthetic_table(runs: StoredRuns, name: str = "synthetic") -> pd.DataFrame | None:
    """Table 4: per kind (dataset group) and method, the mean over datasets of exact match and Hamming score."""
    means = synthetic_datasets(runs, name)
    if means is None:
        return None
    table = means.groupby(["kind", "method"], sort=False).agg(
        exact_match=("exact_match", "mean"), hamming_score=("hamming_score", "mean"), n_datasets=("dataset", "size")
    )
    return table.rename_axis(["kind", "method"])


def synthetic_2d_tables(runs: StoredRuns) -> tuple | None:
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
    accuracy = label_accuracy(runs, "synthetic_2d")
    if accuracy is None:
        return exact, None
    base = {}
    for column, (method, label) in SYNTHETIC_2D_BASE_CLASSIFIERS.items():
        chosen = accuracy[(accuracy["method"] == method) & (accuracy["label"] == label)]
        base[column] = chosen.groupby("dataset", sort=False)["accuracy"].mean()
    return exact, pd.DataFrame(base).reindex(list(dict.fromkeys(accuracy["dataset"])))


def _chain_splits(runs: StoredRuns, name: str = "paper", dataset: str = "Medical") -> pd.DataFrame | None:
    """Per method (line), split and chain position (x, from 1), the label's test accuracy."""
    accuracy = label_accuracy(runs, name)
    if accuracy is None or dataset not in set(accuracy["dataset"]):
        return None
    chosen = accuracy[accuracy["dataset"] == dataset]
    return pd.DataFrame(
        {"line": chosen["method"], "split": chosen["split"], "x": chosen["position"] + 1, "value": chosen["accuracy"]}
    )


def chain_accuracy(runs: StoredRuns, name: str = "paper", dataset: str = "Medical") -> pd.DataFrame | None:
    """Per method and chain position, the mean (and sd, count) over splits of the label's accuracy.

    In the shape of :func:`sweep_frame`, so that it plots the same way.
    """
    splits = _chain_splits(runs, name, dataset)
    if splits is None:
        return None
    frame = splits.groupby(["line", "x"], sort=False)["value"].agg(["mean", "std", "size"]).reset_index()
    frame = frame.rename(columns={"size": "n"}).assign(panel=dataset, parameter="position")
    return _with_intervals(frame[["panel", "line", "parameter", "x", "mean", "std", "n"]])


def _with_intervals(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` (columns mean, std, n) with the 95 % t-interval of each mean as ci_low, ci_high."""
    bounds = [t_interval(mean, std, int(n)) for mean, std, n in zip(frame["mean"], frame["std"], frame["n"])]
    return frame.assign(ci_low=[low for low, _ in bounds], ci_high=[high for _, high in bounds])


def refit_check(runs: StoredRuns, name: str) -> tuple | None:
    """How many refit units reproduce the exact match in the store: (matching, total)."""
    accuracy, run = label_accuracy(runs, name), runs[name]
    if accuracy is None or run is None:
        return None
    refits = accuracy.drop_duplicates(["dataset", "method", "split"])
    stored = run.units.set_index(["dataset", "method", "split"])["exact_match"]
    matching = sum(
        math.isclose(row.exact_match, stored.get((row.dataset, row.method, row.split), math.nan), abs_tol=1e-12)
        for row in refits.itertuples()
    )
    return matching, len(refits)


def _sweep_splits(units: pd.DataFrame, record: RunRecord, metric: str) -> pd.DataFrame:
    """A sweep's ok units: panel, line, parameter, x, split and the metric's value, in table order.

    Each (dataset, method) entry of the run must sit at a sweep point with exactly one swept
    value, from its dataset entry (e.g. ``first_labels``) or its method entry (e.g.
    ``n_synthetic``); that value is the x coordinate. Entries are grouped into lines by their
    method's group and into panels by their dataset's group (the config entries they came from).
    """
    datasets = {spec.table_name: spec for spec in record.datasets}
    methods = {spec.label: spec for spec in record.methods}
    frames = []
    for (dataset, method), group in units[units["status"] == OK].groupby(["dataset", "method"], sort=False):
        point = {**datasets[dataset].sweep, **methods[method].sweep}
        if len(point) != 1:
            raise ValueError(f"{method} on {dataset} has swept values {point}; a sweep plot needs exactly one")
        (parameter, x), = point.items()
        frames.append(pd.DataFrame({
            "panel": datasets[dataset].group, "line": methods[method].group, "parameter": parameter, "x": x,
            "split": group["split"].to_numpy(), "value": group[metric].astype(float).to_numpy(),
        }))
    columns = ["panel", "line", "parameter", "x", "split", "value"]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)


def sweep_frame(units: pd.DataFrame, record: RunRecord, metric: str) -> pd.DataFrame:
    """Mean and spread over the splits of each sweep point, from a run's units and stored config.

    Parameters
    ----------
    units : pandas.DataFrame
        The run's units as :func:`~mlhidden.runs.store.load_results` returns them.
    record : RunRecord
        The run's stored config.
    metric : str
        The metric column.

    Returns
    -------
    pandas.DataFrame
        Columns panel, line, parameter, x, mean, std (ddof=1, NaN for one split), n (ok splits)
        and the 95 % t-interval ci_low, ci_high, in config order of panels and lines and ascending
        x (see :func:`_sweep_splits` for how points are found).
    """
    splits = _sweep_splits(units, record, metric)
    keys = ["panel", "line", "parameter", "x"]
    frame = (
        splits.groupby(keys, sort=False)["value"]
        .agg(["mean", "std", "size"])
        .reset_index()
        .rename(columns={"size": "n"})
    )
    frame = frame.astype({"mean": float, "std": float, "n": int})
    panel_order = list(dict.fromkeys(spec.group for spec in record.datasets))
    line_order = list(dict.fromkeys(spec.group for spec in record.methods))
    frame["panel"] = pd.Categorical(frame["panel"], panel_order, ordered=True)
    frame["line"] = pd.Categorical(frame["line"], line_order, ordered=True)
    frame = frame.sort_values(["panel", "line", "x"]).reset_index(drop=True)
    return _with_intervals(frame.astype({"panel": str, "line": str}))


def _run_sweep(runs: StoredRuns, name: str, metric: str = "exact_match") -> pd.DataFrame | None:
    """The sweep frame of run ``name``, or None when it has no store."""
    run = runs[name]
    if run is None:
        return None
    return sweep_frame(run.units, runs.record(name), metric)


def ranked_methods(run) -> list:
    """The methods of a paper run that the paper's rankings compare: those the general ranking rule ranks."""
    unranked = unranked_methods(run.methods)
    return [m for m in run.methods if m not in unranked]


def gather_evidence(runs: StoredRuns) -> Evidence:
    """The tables the report's sections draw, read from the runs' stores and refits."""
    fields: dict[str, Any] = {
        "logical": logical_table(runs),
        "logical_splits": logical_splits(runs),
        "synthetic": synthetic_table(runs),
        "synthetic_datasets": synthetic_datasets(runs),
        "hidden_nodes": _run_sweep(runs, "hidden_nodes"),
        "label_count": _run_sweep(runs, "label_count"),
        "medical_chain": chain_accuracy(runs),
    }
    return Evidence(**fields)
