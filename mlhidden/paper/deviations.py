"""Why a value differs from the paper's: every flagged table cell gets one diagnosis.

A cell is flagged when it is off by more than DEVIATION and the paper's value lies outside our 95 %
interval (``comparison.csv``'s ``flagged``; :func:`mlhidden.paper.sections.flag_counts`).

The categories, tried in this order (the first that applies is the cell's):

1. **paper's value defective**: the audit of the paper's numbers (:mod:`mlhidden.paper.audit`)
   found a defect that explains the difference: the value is impossible, below a trivial
   baseline (:func:`trivial_baselines`), part of a failed run, printed elsewhere with a value
   ours is close to, or its run's other metric is impossible or below a baseline by more than
   DEVIATION;
2. **dataset version**: a measured difference between our file and the paper's table of
   datasets: N, L or D off by more than 5 %, or the label cardinality by more than 0.05. Every
   method scoring lower on a dataset is not such evidence (a weaker base learner does that too):
   it is noted in the cell's evidence, and the cell goes on down the list;
3. **small sample**: the difference is within two standard errors of our mean over the splits;
4. **setting-dependent**: under the one setting that matches the paper best over all compared
   cells (:func:`setting_agreement`: the least mean absolute difference), the value is within
   DEVIATION of the paper's; a setting picked cell by cell would explain anything;
5. **unexplained**.

:func:`diagnose` is a pure function of plain tables (comparisons, cell values per setting,
the audit, dataset shapes); :func:`cell_values` and :func:`trivial_baselines` make them from the
stores and the shipped datasets.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import sparse

from mlhidden.experiment.runner import load_dataset_spec
from mlhidden.paper.audit import Audit
from mlhidden.paper.claim_terms import DEVIATION
from mlhidden.paper.evidence import Runs, dataset_means, ok_units
from mlhidden.paper.reference import LOGICAL_MODELS, TRIVIAL_BASELINE_METHODS
from mlhidden.report.formats import markdown_frame

DEFECTIVE, DATASET_VERSION, SMALL_SAMPLE, SETTING_DEPENDENT, UNEXPLAINED = (
    "paper's value defective", "dataset version", "small sample", "setting-dependent", "unexplained",
)
CATEGORIES = (DEFECTIVE, DATASET_VERSION, SMALL_SAMPLE, SETTING_DEPENDENT, UNEXPLAINED)
SHAPE_TOLERANCE = 0.05
"""A file one column or row off the paper's (Music: D 71 against 72) is not taken to explain a deviation."""
CARDINALITY_TOLERANCE = 0.05
STANDARD_ERRORS = 2.0
BASELINES = ("all-zero", "per-label majority", "most frequent label set")
STORED_BASELINES = dict(zip(TRIVIAL_BASELINE_METHODS, BASELINES))
"""The baseline methods of paper.yaml, by the names the report gives them."""
CELL_KEY = ["table", "metric", "dataset", "method"]
DIAGNOSED_TABLES = ("results", "logical", "synthetic")


def _cells(units: pd.DataFrame, by: list, table: str) -> pd.DataFrame:
    """Mean and standard error over ``units`` of exact match and Hamming score, one row per cell."""
    frames = []
    for metric in ("exact_match", "hamming_score"):
        grouped = units.groupby(by, sort=False)[metric].agg(["mean", "std", "size"]).reset_index()
        grouped.columns = ["dataset", "method", "ours", "std", "n"]
        frames.append(grouped.assign(table=table, metric=metric, se=grouped["std"] / np.sqrt(grouped["n"])))
    return pd.concat(frames)[[*CELL_KEY, "ours", "se"]]


def cell_values(runs: Runs) -> pd.DataFrame:
    """Our value and its standard error for every cell of Tables 'results', 3 and 4 that ``runs`` hold.

    Columns table, metric, dataset, method, ours, se; keyed like ``comparison.csv``.
    """
    frames = []
    if runs["paper"] is not None:
        frames.append(_cells(ok_units(runs["paper"]), ["dataset", "method"], "results"))
    if runs["logical"] is not None:
        units = ok_units(runs["logical"])
        frames.append(_cells(units[units["method"].isin(LOGICAL_MODELS)], ["dataset", "method"], "logical"))
    if runs["synthetic"] is not None:
        means = dataset_means(runs["synthetic"], runs.record("synthetic"))
        frames.append(_cells(means, ["group", "method"], "synthetic"))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=[*CELL_KEY, "ours", "se"])


def _dense(Y) -> np.ndarray:
    return np.asarray(Y.toarray() if sparse.issparse(Y) else Y, dtype=np.int8)


def baseline_predictions(Y_train: np.ndarray, n_test: int) -> dict:
    """Each trivial baseline's prediction for ``n_test`` rows, learnt from the training labels only."""
    rows, counts = np.unique(Y_train, axis=0, return_counts=True)
    return {
        "all-zero": np.zeros((n_test, Y_train.shape[1]), dtype=np.int8),
        "per-label majority": np.tile((Y_train.mean(axis=0) > 0.5).astype(np.int8), (n_test, 1)),
        "most frequent label set": np.tile(rows[np.argmax(counts)], (n_test, 1)),
    }


def trivial_baselines(runs: Runs, name: str = "paper", data_dir=None) -> pd.DataFrame:
    """Exact match and Hamming score of the predictors that ignore x, on the run's own datasets and splits.

    One row per (dataset, baseline), the mean over the splits. A run that ran the baselines as
    methods (:data:`~mlhidden.paper.reference.TRIVIAL_BASELINE_METHODS`) is read from its store;
    an older one gets them computed (:func:`baseline_scores`).
    """
    run = runs[name]
    if run is None:
        return pd.DataFrame(columns=["dataset", "baseline", "exact_match", "hamming_score"])
    stored = ok_units(run)
    stored = stored[stored["method"].isin(STORED_BASELINES)]
    if set(stored["method"]) != set(STORED_BASELINES):
        return baseline_scores(runs.record(name), run.unavailable, data_dir)
    means = stored.groupby(["dataset", "method"], sort=False)[["exact_match", "hamming_score"]].mean().reset_index()
    return means.assign(baseline=means["method"].map(STORED_BASELINES))[
        ["dataset", "baseline", "exact_match", "hamming_score"]
    ]


def baseline_scores(config, unavailable=(), data_dir=None) -> pd.DataFrame:
    """The trivial baselines on a config's (or a stored run record's) datasets and splits.

    Computed from the datasets themselves, the splits those of the config's (or record's) split recipe,
    so they are the splits the methods saw, under any protocol.
    """
    rows = []
    for spec in config.datasets:
        if (spec.label or spec.name) in unavailable:
            continue
        data = load_dataset_spec(spec, data_dir)
        Y = _dense(data.Y)
        scores: dict[str, list] = {baseline: [] for baseline in BASELINES}
        for split in config.split_recipe.splits(data.name, data.Y):
            truth = Y[split.test]
            for baseline, predicted in baseline_predictions(Y[split.train], len(split.test)).items():
                scores[baseline].append(((predicted == truth).all(axis=1).mean(), (predicted == truth).mean()))
        rows += [[data.name, baseline, *np.mean(values, axis=0)] for baseline, values in scores.items()]
    return pd.DataFrame(rows, columns=["dataset", "baseline", "exact_match", "hamming_score"])


def version_mismatches(shapes: pd.DataFrame, paper_shapes: pd.DataFrame) -> dict:
    """Datasets whose file differs from the paper's table of datasets -> the differing numbers."""
    found = {}
    for dataset in shapes.index.intersection(paper_shapes.index):
        ours, theirs = shapes.loc[dataset], paper_shapes.loc[dataset]
        differing = [
            f"{key} {float(ours[key]):g} (paper {float(theirs[key]):g})"
            for key in ("n_samples", "n_labels", "n_features")
            if abs(float(ours[key]) - float(theirs[key])) > SHAPE_TOLERANCE * float(theirs[key])
        ]
        if abs(float(ours["label_cardinality"]) - float(theirs["label_cardinality"])) > CARDINALITY_TOLERANCE:
            differing.append(
                f"cardinality {float(ours['label_cardinality']):.2f} (paper {float(theirs['label_cardinality']):.2f})"
            )
        if differing:
            found[dataset] = ", ".join(differing)
    return found


def shifted_datasets(comparisons: pd.DataFrame, settings_cells: dict) -> dict:
    """(table, metric, dataset) where every method is off the paper's value in the same direction by more
    than DEVIATION under every setting -> the range of the differences."""
    found = {}
    frames = [comparisons[CELL_KEY + ["paper", "ours"]]]
    for cells in settings_cells.values():
        frames.append(cells[CELL_KEY + ["ours"]].merge(comparisons[CELL_KEY + ["paper"]], on=CELL_KEY))
    every = pd.concat(frames).dropna(subset=["paper", "ours"])
    every = every.assign(difference=every["ours"] - every["paper"])
    for key, group in every[every["table"] == "results"].groupby(["table", "metric", "dataset"], sort=False):
        low, high = group["difference"].min(), group["difference"].max()
        if len(group["method"].unique()) > 1 and (high < -DEVIATION or low > DEVIATION):
            found[key] = (
                f"all {group['method'].nunique()} methods off by {low:+.2f} to {high:+.2f} in the main run "
                f"and {len(frames) - 1} settings"
            )
    return found


def setting_agreement(comparisons: pd.DataFrame, settings_cells: dict) -> pd.DataFrame:
    """Per setting, how close its cells of :data:`DIAGNOSED_TABLES` are to the paper's over all of them:
    the mean absolute difference and the share within DEVIATION; the best match first."""
    rows = []
    paper = comparisons[comparisons["table"].isin(DIAGNOSED_TABLES)][CELL_KEY + ["paper"]].dropna()
    for name, cells in settings_cells.items():
        off = cells[CELL_KEY + ["ours"]].merge(paper, on=CELL_KEY).eval("abs(ours - paper)").dropna()
        if len(off):
            rows.append([name, float(off.mean()), float((off <= DEVIATION).mean()), len(off)])
    frame = pd.DataFrame(rows, columns=["setting", "mean_abs_difference", "share_within", "cells"])
    return frame.sort_values(
        ["mean_abs_difference", "share_within"], ascending=[True, False], kind="stable"
    ).reset_index(drop=True)


def diagnose(
    comparisons: pd.DataFrame, settings_cells: dict, audit: Audit, mismatches: dict, standard_errors: pd.DataFrame
) -> pd.DataFrame:
    """One category and its evidence per flagged cell of :data:`DIAGNOSED_TABLES`.

    Parameters
    ----------
    comparisons : pandas.DataFrame
        The report's comparison rows (``comparison.csv``).
    settings_cells : dict
        Setting name -> :func:`cell_values` of that setting's runs.
    audit : mlhidden.paper.audit.Audit
        The audit of the paper's numbers against :func:`trivial_baselines`.
    mismatches : dict
        :func:`version_mismatches`.
    standard_errors : pandas.DataFrame
        :func:`cell_values` of the primary runs (its ``se`` column is used).
    """
    flagged = comparisons[comparisons["flagged"] & comparisons["table"].isin(DIAGNOSED_TABLES)]
    se = standard_errors.set_index(CELL_KEY)["se"]
    shifted = shifted_datasets(comparisons, settings_cells)
    agreement = setting_agreement(comparisons, settings_cells)
    best, best_cells = "", pd.Series(dtype=float)
    if len(agreement):
        best = (
            f"{agreement.at[0, 'setting']}, the setting closest to the paper overall "
            f"(mean |Δ| {agreement.at[0, 'mean_abs_difference']:.3f})"
        )
        best_cells = (
            settings_cells[agreement.at[0, "setting"]].merge(comparisons[CELL_KEY + ["paper"]], on=CELL_KEY)
            .assign(off=lambda f: (f["ours"] - f["paper"]).abs()).set_index(CELL_KEY)["off"]
        )
    rows = []
    for row in flagged.itertuples(index=False):
        key = (row.table, row.metric, row.dataset, row.method)
        off = best_cells.get(key, np.nan)
        error = se.get(key, np.nan)
        defect = audit.explanation(key, row.ours, DEVIATION)
        shift = shifted.get((row.table, row.metric, row.dataset))
        if defect:
            category, why = DEFECTIVE, defect
        elif row.dataset in mismatches:
            category, why = DATASET_VERSION, mismatches[row.dataset]
        elif abs(row.difference) <= STANDARD_ERRORS * error:
            category, why = SMALL_SAMPLE, f"difference {row.difference:+.3f}, standard error {error:.3f}"
        elif off <= DEVIATION:
            category, why = SETTING_DEPENDENT, f"{off:.3f} off under {best}"
        else:
            category, why = (
                UNEXPLAINED,
                f"{off:.3f} off under {best}" if best and not np.isnan(off) else "no setting to compare",
            )
        if shift and category != DEFECTIVE:
            why += f"; {shift} (no file difference measured)"
        rows.append([*key, row.ours, row.paper, category, why])
    return pd.DataFrame(rows, columns=[*CELL_KEY, "ours", "paper", "category", "evidence"])


def category_counts(diagnoses: pd.DataFrame) -> pd.Series:
    """Cells per category, every category listed (zeros too), in :data:`CATEGORIES` order."""
    return diagnoses["category"].value_counts().reindex(list(CATEGORIES), fill_value=0)


def deviations_markdown(diagnoses: pd.DataFrame, baselines: pd.DataFrame, agreement: pd.DataFrame) -> str:
    """The counts per category, each setting's agreement with the paper, the trivial baselines and
    every diagnosed cell, as Markdown."""
    counts = category_counts(diagnoses)
    parts = [
        "## Every deviation, diagnosed\n\n",
        f"Each cell of Tables 'results', 3 and 4 that differs from the paper's by more than {DEVIATION}, "
        "with the paper's value outside our 95 % interval (a flagged cell), is put in the first category that applies "
        "(`mlhidden/paper/deviations.py` states the rules): the audit of the paper's numbers found a defect in the "
        "value or its run that explains the difference (see 'Audit of the paper's numbers'); our file differs from "
        "the paper's table of datasets (shape or label cardinality, measured); the difference is within two "
        f"standard errors of our mean; under the one setting of the sensitivity study ({len(agreement)} finished) "
        f"that matches the paper best overall, the value is within {DEVIATION}; or unexplained.\n\n",
        markdown_frame(counts.rename("cells").to_frame(), "Category"),
        f"\nIn all {len(diagnoses)} cells.\n\n",
    ]
    if len(agreement):
        shown = agreement.assign(
            mean_abs_difference=agreement["mean_abs_difference"].map(lambda v: f"{v:.3f}"),
            share_within=agreement["share_within"].map(lambda v: f"{v:.0%}"),
        ).rename(columns={"mean_abs_difference": "mean |ours - paper|", "share_within": f"cells within {DEVIATION}"})
        parts += [
            "How close each finished setting comes to the paper over every compared cell of Tables 'results', 3 and 4 "
            f"(best first; **{agreement.at[0, 'setting']}** is the one 'setting-dependent' refers to):\n\n",
            markdown_frame(shown.set_index("setting"), "Setting"), "\n",
        ]
    if not baselines.empty:
        shown = baselines.pivot_table(index="dataset", columns="baseline", values="hamming_score", sort=False).map(
            lambda v: f"{v:.3f}"
        )
        exact = baselines.pivot_table(index="dataset", columns="baseline", values="exact_match", sort=False).map(
            lambda v: f"{v:.3f}"
        )
        parts += [
            "Trivial baselines on the paper run's splits (Hamming score / exact match; the mean over the splits):\n\n",
            markdown_frame(shown + " / " + exact, "Dataset"), "\n",
        ]
    if not diagnoses.empty:
        shown = diagnoses.assign(
            ours=diagnoses["ours"].map(lambda v: f"{v:.2f}"), paper=diagnoses["paper"].map(lambda v: f"{v:.2f}")
        )
        parts += [
            "<details><summary>Every diagnosed cell</summary>\n\n",
            markdown_frame(shown.set_index("table"), "Table"),
            "\n</details>\n",
        ]
    return "".join(parts)
