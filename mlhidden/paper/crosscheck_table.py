"""The report's cross-check table: per setting, method and other implementation, the largest
disagreement per metric, the mean agreement of predictions, and why they differ where they do.

Every reason is computed from the cells' own numbers (:mod:`mlhidden.paper.crosscheck`): how
many entries flip, how close to the decision boundary the flips start, and whether a refit of
both sides far below the default solver tolerance makes them agree.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from tabulate import tabulate

from mlhidden.runs import blas_architectures, blas_description, field_readable, read_run_json

STORED_UNITS = Path("results/paper/units.csv")
"""The paper run's store export, whose units the cross-check's refits are put beside."""
METRICS = ("exact_match", "hamming_score")
TOLERANCE = 0.002
"""The largest |ours − theirs| on a metric that solver tolerance is taken to explain; above it, the cell is refitted
tightly."""
TIGHT = {"tol": 1e-10, "max_iter": 10_000}
"""Base-learner parameters of the tight refit: both sides solved far below the default tolerance."""


def with_gaps(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with |ours − theirs| and |ours − stored| per metric."""
    frame = frame.copy()
    for metric in METRICS:
        frame[f"gap_{metric}"] = (frame[f"ours_{metric}"] - frame[f"theirs_{metric}"]).abs()
        frame[f"stored_gap_{metric}"] = (frame[f"ours_{metric}"] - frame[f"stored_{metric}"]).abs()
    frame["gap"] = frame[[f"gap_{m}" for m in METRICS]].max(axis=1)
    return frame


def disagreement_reason(group: pd.DataFrame, tolerance: float = TOLERANCE) -> str:
    """Why one method's cells differ from another implementation's, in numbers."""
    beyond = group[group["gap"] > tolerance]
    if beyond.empty:
        return f"within {tolerance}: ≤ {int(group['flipped_entries'].max())} flipped entries per cell"
    worst = beyond.loc[beyond["gap"].idxmax()]
    rows = int(round((1 - worst["rows_agreement"]) * worst["test_rows"]))
    text = (
        f"{len(beyond)} cells > {tolerance}, ≤ {int(beyond['flipped_entries'].max())} flipped entries each "
        f"(worst {worst['dataset']} split {worst['split']}: {rows} of {int(worst['test_rows'])} rows)"
    )
    if beyond["boundary_margin"].notna().any():
        text += f"; flips start with p within {beyond['boundary_margin'].max():.4f} of 0.5"
    unconverged = beyond["unconverged_models"].fillna(0)
    if unconverged.any():
        text += f"; ≤ {int(unconverged.max())} of their models at max_iter"
    tight = beyond["tight_agreement"].min()
    if tight == 1.0:
        return f"solver tolerance: {text}; at tol {TIGHT['tol']:g} all entries agree"
    return f"NOT solver tolerance: {text}; at tol {TIGHT['tol']:g} agreement {tight:.4f}"


def stored_blas_note(frame: pd.DataFrame, run_dir=STORED_UNITS.parent) -> str:
    """How far our refits are from the stored units, and the BLAS kernels of the stored run and of today's."""
    units = with_gaps(frame).drop_duplicates(["setting", "dataset", "split", "method"])
    gaps = units[[f"stored_gap_{m}" for m in METRICS]].max(axis=1).dropna()
    if gaps.empty:
        return "No cell has a stored unit to compare the refit with."
    text = (
        f"Our refit vs the stored unit ({STORED_UNITS}): {len(gaps)} units, {int((gaps > 0).sum())} differ, "
        f"by at most {gaps.max():.4f}"
    )
    run_json = read_run_json(run_dir)
    if run_json is not None and field_readable(run_json, "backend"):
        stored = blas_architectures((run_json["backend"].get("blas") or {}).get("libraries") or [])
        today = blas_architectures(blas_description().get("libraries", []))
        if stored and stored != today:
            text += f"; the stored run's OpenBLAS ran {stored} kernels, this refit {today}, which sum in another order"
    return text + "."


def crosscheck_table(
    frame: pd.DataFrame, tolerance: float = TOLERANCE, wall_seconds: float | None = None, machine_note: str = ""
) -> str:
    """The Markdown table: one row per setting, method and other implementation, then notes.

    ``machine_note`` (:func:`stored_blas_note`, made when the cross-check runs) compares the
    stored run's machine with the cross-check's; the table itself is a function of ``frame`` only.
    """
    frame = with_gaps(frame)
    rows = []
    for (setting, method, implementation), group in frame.groupby(["setting", "method", "implementation"], sort=False):
        rows.append(
            [
                setting,
                method,
                implementation,
                len(group),
                group["gap_exact_match"].max(),
                group["gap_hamming_score"].max(),
                group["agreement"].mean(),
                group["agreement"].min(),
                disagreement_reason(group, tolerance),
            ]
        )
    headers = [
        "setting",
        "ours",
        "theirs",
        "cells",
        "max |Δ| exact match",
        "max |Δ| Hamming",
        "mean agreement",
        "min agreement",
        "why",
    ]
    notes = [machine_note] if machine_note else []
    datasets = ", ".join(frame["dataset"].unique())
    splits = frame.groupby("dataset")["split"].nunique()
    notes.append(f"Datasets: {datasets}; splits per dataset: {', '.join(f'{d} {n}' for d, n in splits.items())}. "
                 f"Agreement: the share of identical predicted label entries on the test rows.")
    constant = frame.groupby("dataset")["constant_labels"].max()
    if constant.any():
        notes.append("Labels constant in a training part (both sides predict the one value): "
                     + ", ".join(f"{d} up to {int(n)}" for d, n in constant.items() if n))
    if wall_seconds is not None:
        ours = frame.drop_duplicates(["setting", "dataset", "split", "method"])["ours_seconds"].sum()
        notes.append(
            f"Run time: {wall_seconds:.0f} s wall; fits at the default tolerance: ours {ours:.0f} s, "
            f"theirs {frame['theirs_seconds'].sum():.0f} s."
        )
    return (
        tabulate(rows, headers=headers, tablefmt="github", floatfmt=".4f") + "\n\n" + "\n".join(f"- {n}" for n in notes)
    )
