"""Why a value differs from the paper's: every flagged table cell gets one diagnosis.

A cell is flagged when it is off by more than DEVIATION and the paper's value lies outside our 95 %
interval (``comparison.csv``'s ``flagged``; :func:`mlhidden.paper.sections.flag_counts`). The flag
already rules out sampling error: the paper's value is more than t(0.975, n - 1) >= 1.97 standard
errors from our mean, so no "within two standard errors" category is kept.

The categories, tried in this order (the first that applies is the cell's):

1. **paper's value defective**: the audit of the paper's numbers (:mod:`mlhidden.paper.audit`)
   found a defect of the value itself that explains the difference: it is outside [0, 1], below a
   trivial baseline (:func:`trivial_baselines`), part of a failed run, or printed elsewhere with a
   value ours is close to. An impossible pair (a Hamming score below its exact match) does not say
   which of its two values is wrong, and a finding on the run's other metric is about that value:
   both are noted in the evidence, and the cell goes on down the list;
2. **dataset version**: a measured difference between our file and the paper's table of
   datasets: N, L or D off by more than 5 %, or the label cardinality by more than 0.05. Every
   method scoring lower on a dataset is not such evidence (a weaker base learner does that too):
   it is noted in the cell's evidence, and the cell goes on down the list;
3. **synthetic generator differs**: a cell of the generated data's table whose family (complex,
   simple) gives our BR a value more than DEVIATION from the paper's BR under the same metric
   (:func:`_generator_gaps`): the same method on data of the same description scoring differently
   measures the data, not the method;
4. **setting-dependent**: under at least one finished setting of the sensitivity study the value
   is within DEVIATION of the paper's (:func:`settings_within_band` lists them all). Adding,
   removing or reordering a setting moves a cell into or out of this category only when that
   setting is one the cell lists, so no tie between settings decides a category;
5. **unexplained**.

:func:`diagnose` is a pure function of plain tables (comparisons, cell values per setting,
the audit, dataset shapes); :func:`cell_values` and :func:`trivial_baselines` make them from the
stores and the shipped datasets.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import sparse

from mlhidden.claims import StoredRuns
from mlhidden.paper.audit import Audit
from mlhidden.paper.evidence import dataset_means, ok_units
from mlhidden.paper.reference import LOGICAL_MODELS, TRIVIAL_BASELINE_METHODS
from mlhidden.paper.wording import DEVIATION
from mlhidden.runs import load_dataset_spec

DEFECTIVE, DATASET_VERSION, GENERATOR, SETTING_DEPENDENT, UNEXPLAINED = (
    "paper's value defective", "dataset version", "synthetic generator differs", "setting-dependent", "unexplained",
)
CATEGORIES = (DEFECTIVE, DATASET_VERSION, GENERATOR, SETTING_DEPENDENT, UNEXPLAINED)
SHAPE_TOLERANCE = 0.05
"""A file one column or row off the paper's (Music: D 71 against 72) is not taken to explain a deviation."""
CARDINALITY_TOLERANCE = 0.05
BASELINES = ("all-zero", "per-label majority", "most frequent label set")
STORED_BASELINES = dict(zip(TRIVIAL_BASELINE_METHODS, BASELINES))
"""The baseline methods of paper.yaml, by the names the report gives them."""
CELL_KEY = ["table", "metric", "dataset", "method"]
DIAGNOSED_TABLES = ("results", "logical", "synthetic")
SYNTHETIC_TABLE, GENERATOR_PROBE = "synthetic", "BR"
"""The generated data's table, and the method whose value there measures the data (no hidden nodes, no chain)."""
WITHIN_COLUMNS = ["settings_compared", "within_band_under"]
"""``comparison.csv``'s columns from the settings: how many finished settings have the cell, and the
names of those under which it lies within DEVIATION of the paper's ("; "-separated, sorted)."""


def _cells(units: pd.DataFrame, by: list, table: str) -> pd.DataFrame:
    """The mean over ``units`` of exact match and Hamming score, one row per cell."""
    frames = []
    for metric in ("exact_match", "hamming_score"):
        means = units.groupby(by, sort=False)[metric].mean().reset_index()
        means.columns = ["dataset", "method", "ours"]
        frames.append(means.assign(table=table, metric=metric))
    return pd.concat(frames)[[*CELL_KEY, "ours"]]


def cell_values(runs: StoredRuns) -> pd.DataFrame:
    """Our value for every cell of Tables 'results', 3 and 4 that ``runs`` hold.

    Columns table, metric, dataset, method, ours; keyed like ``comparison.csv``.
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
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=[*CELL_KEY, "ours"])


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


def trivial_baselines(runs: StoredRuns, name: str = "paper", data_dir=None) -> pd.DataFrame:
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


def _shifted_datasets(comparisons: pd.DataFrame, settings_cells: dict) -> dict:
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
    the mean absolute difference and the share within DEVIATION; the best match first. Shown for
    reference only: no category depends on this order."""
    rows = []
    paper = comparisons[comparisons["table"].isin(DIAGNOSED_TABLES)][CELL_KEY + ["paper"]].dropna()
    for name, cells in settings_cells.items():
        off = cells[CELL_KEY + ["ours"]].merge(paper, on=CELL_KEY).eval("abs(ours - paper)").dropna()
        if len(off):
            rows.append([name, float(off.mean()), float((off <= DEVIATION).mean()), len(off)])
    frame = pd.DataFrame(rows, columns=["setting", "mean_abs_difference", "share_within", "cells"])
    return frame.sort_values(
        ["mean_abs_difference", "share_within", "setting"], ascending=[True, False, True], kind="stable"
    ).reset_index(drop=True)


def _settings_off(comparisons: pd.DataFrame, settings_cells: dict) -> pd.DataFrame:
    """|ours - paper| of every comparison row under every setting: one column per setting, NaN where
    the setting's runs lack the cell; indexed like ``comparisons``."""
    keys = comparisons[CELL_KEY + ["paper"]]
    columns = {}
    for name, cells in settings_cells.items():
        merged = keys.merge(cells[CELL_KEY + ["ours"]].drop_duplicates(CELL_KEY), on=CELL_KEY, how="left")
        columns[name] = (merged["ours"] - merged["paper"]).abs().to_numpy()
    return pd.DataFrame(columns, index=comparisons.index, columns=sorted(settings_cells))


def settings_within_band(comparisons: pd.DataFrame, settings_cells: dict) -> pd.DataFrame:
    """:data:`WITHIN_COLUMNS` for every comparison row: a property of each setting alone, so a setting
    added, removed or reordered changes only the rows it is named in (or would be)."""
    off = _settings_off(comparisons, settings_cells)
    within = (off <= DEVIATION).to_numpy(dtype=bool)
    return pd.DataFrame(
        {
            "settings_compared": off.notna().sum(axis=1).astype(int),
            "within_band_under": ["; ".join(off.columns[row.nonzero()[0]]) for row in within],
        },
        index=comparisons.index,
    )


def _generator_gaps(comparisons: pd.DataFrame) -> dict:
    """(metric, family) of the generated data's table where our BR is off the paper's BR by more than
    DEVIATION -> the two values, read from the comparison rows."""
    probe = comparisons[(comparisons["table"] == SYNTHETIC_TABLE) & (comparisons["method"] == GENERATOR_PROBE)]
    return {
        (row.metric, row.dataset): (row.ours, row.paper)
        for row in probe.itertuples(index=False)
        if abs(row.ours - row.paper) > DEVIATION
    }


def _band_evidence(names: str, off: pd.Series, settings: int) -> str:
    """What the settings say about a cell: under how many it is within the band (the names are in
    :data:`WITHIN_COLUMNS`), or how close the nearest comes."""
    if names:
        return f"within {DEVIATION} under {len(names.split('; '))} of {settings} finished settings"
    if settings and off.notna().any():
        return f"within {DEVIATION} under none of {settings} finished settings (nearest {off.min():.3f} off)"
    return "no setting to compare"


def diagnose(comparisons: pd.DataFrame, settings_cells: dict, audit: Audit, mismatches: dict) -> pd.DataFrame:
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

    Returns
    -------
    pandas.DataFrame
        The cell's key, ours, paper, :data:`WITHIN_COLUMNS`, category and evidence.
    """
    chosen = comparisons["flagged"].astype(bool) & comparisons["table"].isin(DIAGNOSED_TABLES)
    flagged = comparisons[chosen]
    band = settings_within_band(flagged, settings_cells)
    off = _settings_off(flagged, settings_cells)
    shifted = _shifted_datasets(comparisons, settings_cells)
    gaps = _generator_gaps(comparisons)
    rows = []
    for index, row in zip(flagged.index, flagged.itertuples(index=False)):
        key = (row.table, row.metric, row.dataset, row.method)
        names, settings = band.at[index, "within_band_under"], len(settings_cells)
        defect = audit.explanation(key, row.ours, DEVIATION)
        shift = shifted.get((row.table, row.metric, row.dataset))
        gap = gaps.get((row.metric, row.dataset)) if row.table == SYNTHETIC_TABLE else None
        if defect:
            category, why = DEFECTIVE, defect
        elif row.dataset in mismatches:
            category, why = DATASET_VERSION, mismatches[row.dataset]
        elif gap:
            category, why = GENERATOR, (
                f"our {GENERATOR_PROBE} {gap[0]:.3f} against the paper's {gap[1]:.3f} on the {row.dataset} family "
                f"({row.metric.replace('_', ' ')}): the same method scores differently, so the data differ"
            )
        elif names:
            category, why = SETTING_DEPENDENT, _band_evidence(names, off.loc[index], settings)
        else:
            category, why = UNEXPLAINED, _band_evidence(names, off.loc[index], settings)
        if shift and category != DEFECTIVE:
            why += f"; {shift} (no file difference measured)"
        context = audit.context(key)
        if context and category != DEFECTIVE:
            why += f"; the paper's run: {context}"
        rows.append([*key, row.ours, row.paper, *band.loc[index], category, why])
    return pd.DataFrame(rows, columns=[*CELL_KEY, "ours", "paper", *WITHIN_COLUMNS, "category", "evidence"])


def category_counts(diagnoses: pd.DataFrame) -> pd.Series:
    """Cells per category, every category listed (zeros too), in :data:`CATEGORIES` order."""
    return diagnoses["category"].value_counts().reindex(list(CATEGORIES), fill_value=0)
