"""Deviation categories: each reachable, each from a computed statistic, none moved by a tie between settings."""

from __future__ import annotations

import pandas as pd

from mlhidden.paper.audit import audit_paper
from mlhidden.paper.deviations import (
    CATEGORIES,
    DATASET_VERSION,
    DEFECTIVE,
    GENERATOR,
    SETTING_DEPENDENT,
    UNEXPLAINED,
    category_counts,
    diagnose,
    setting_agreement,
    settings_within_band,
    version_mismatches,
)
from mlhidden.paper.deviations_section import deviations_markdown

KEY = ["table", "metric", "dataset", "method"]


def row(dataset, method, ours, paper, table="results", metric="hamming_score"):
    return {
        "table": table, "metric": metric, "dataset": dataset, "method": method, "ours": ours, "paper": paper,
        "difference": ours - paper, "flagged": abs(ours - paper) > 0.05,
    }


def setting(comparisons, **values):
    """A setting's cells: ours as in ``comparisons`` but for the (dataset_method) cells named."""
    cells = comparisons[KEY].assign(ours=comparisons["ours"])
    for name, value in values.items():
        dataset, method = name.split("_")
        cells.loc[(cells["dataset"] == dataset) & (cells["method"] == method), "ours"] = value
    return cells


def categories(comparisons, settings_cells, audit, mismatches=None) -> dict:
    frame = diagnose(comparisons, settings_cells, audit, mismatches or {})
    return dict(zip(zip(frame["dataset"], frame["method"]), frame["category"]))


def no_audit(comparisons):
    return audit_paper(comparisons.rename(columns={"paper": "value"}), pd.DataFrame(
        columns=["dataset", "baseline", "exact_match", "hamming_score"]
    ))


def test_every_category_is_reachable_and_counted():
    comparisons = pd.DataFrame([
        row("Medical", "BR", 0.99, 0.70),      # below predicting no label
        row("Music", "BR", 0.70, 0.80),        # our file differs
        row("Reuters", "BR", 0.60, 0.80), row("Reuters", "CC", 0.61, 0.80),  # every method off, every setting
        row("Scene", "BR", 0.80, 0.90),        # another setting comes close
        row("Scene", "CC", 0.80, 0.95),        # nothing explains it
        row("Yeast", "BR", 0.80, 0.81),        # not flagged
        row("complex", "BR", 0.18, 0.56, "synthetic", "exact_match"),    # our BR is off the paper's BR: the data
        row("complex", "CCASL", 0.18, 0.65, "synthetic", "exact_match"),
        row("complex", "CCASL", 0.78, 0.87, "synthetic"),  # our BR's Hamming score agrees: not the data
        row("complex", "BR", 0.83, 0.84, "synthetic"),
    ])
    baselines = pd.DataFrame(
        {"dataset": ["Medical"], "baseline": ["all-zero"], "exact_match": [0.2], "hamming_score": [0.97]}
    )
    audit = audit_paper(comparisons.rename(columns={"paper": "value"}), baselines)
    shapes = pd.DataFrame(
        {"n_samples": [592.0], "n_labels": [6.0], "n_features": [71.0], "label_cardinality": [1.87]}, index=["Music"]
    )
    assert version_mismatches(shapes, shapes.assign(n_features=[72.0])) == {}  # one column off explains nothing
    mismatches = version_mismatches(shapes, shapes.assign(n_features=[80.0]))
    assert mismatches == {"Music": "n_features 71 (paper 80)"}
    near = setting(comparisons, Scene_BR=0.88)
    far = setting(comparisons, Scene_BR=0.60)
    frame = diagnose(comparisons, {"near": near, "far": far}, audit, mismatches).set_index(["dataset", "method"])
    found = dict(zip(zip(frame.index, frame["metric"]), frame["category"]))
    assert found == {
        (("Medical", "BR"), "hamming_score"): DEFECTIVE,
        (("Music", "BR"), "hamming_score"): DATASET_VERSION,
        (("Reuters", "BR"), "hamming_score"): UNEXPLAINED,
        (("Reuters", "CC"), "hamming_score"): UNEXPLAINED,
        (("Scene", "BR"), "hamming_score"): SETTING_DEPENDENT,
        (("Scene", "CC"), "hamming_score"): UNEXPLAINED,
        (("complex", "BR"), "exact_match"): GENERATOR,
        (("complex", "CCASL"), "exact_match"): GENERATOR,
        (("complex", "CCASL"), "hamming_score"): UNEXPLAINED,
    }
    assert set(frame["category"]) == set(CATEGORIES), "every category is reached"
    assert frame.loc[("Medical", "BR"), "evidence"] == "below the all-zero baseline (0.970) by 0.270"
    scene = frame.loc[("Scene", "BR")]
    assert (scene["within_band_under"], scene["settings_compared"]) == ("near", 2)
    assert scene["evidence"] == "within 0.05 under 1 of 2 finished settings"
    assert frame.loc[("Scene", "CC"), "evidence"] == "within 0.05 under none of 2 finished settings (nearest 0.150 off)"
    generator = frame[frame["category"] == GENERATOR].loc[("complex", "CCASL")]
    assert generator["evidence"].startswith("our BR 0.180 against the paper's 0.560 on the complex family")
    shifted = "all 2 methods off by -0.20 to -0.19 in the main run and 2 settings"
    assert shifted in frame.loc[("Reuters", "BR"), "evidence"]
    counts = category_counts(frame.reset_index())
    assert list(counts.index) == list(CATEGORIES) and counts.sum() == 9 and counts[GENERATOR] == 2
    agreement = setting_agreement(comparisons, {"near": near, "far": far})
    markdown = deviations_markdown(frame.reset_index(), baselines, agreement)
    assert "| near " in markdown and "no category depends on this order" in markdown


def test_adding_a_setting_that_ties_the_closest_one_moves_no_cells_category():
    """Setting 'tie' is as close to the paper over all cells as 'closest' (the same mean |ours - paper|),
    with more cells within the band, so it sorts first; it brings no flagged cell within the band.
    The closest-setting rule moved Scene BR from setting-dependent to unexplained here."""
    comparisons = pd.DataFrame([  # binary fractions, so that the tie is exact
        row("Scene", "BR", 0.75, 0.875), row("Scene", "CC", 0.75, 0.9375), row("Yeast", "BR", 0.75, 0.75),
        row("Yeast", "CC", 0.625, 0.625),
    ])
    audit = no_audit(comparisons)
    closest = setting(comparisons, Scene_BR=0.84375, Yeast_BR=0.625, Yeast_CC=0.5625)  # 1 cell within the band
    tie = setting(comparisons, Scene_BR=0.6875, Scene_CC=0.71875)  # the same mean |Δ|, 2 cells within the band
    agreement = setting_agreement(comparisons, {"closest": closest, "tie": tie})
    assert agreement["mean_abs_difference"].nunique() == 1 and agreement.at[0, "setting"] == "tie"
    before = categories(comparisons, {"closest": closest}, audit)
    assert before == {("Scene", "BR"): SETTING_DEPENDENT, ("Scene", "CC"): UNEXPLAINED}
    assert categories(comparisons, {"closest": closest, "tie": tie}, audit) == before
    assert categories(comparisons, {"tie": tie, "closest": closest}, audit) == before, "order plays no part"


def test_a_setting_moves_only_the_cells_that_name_it():
    comparisons = pd.DataFrame([row("Scene", "BR", 0.80, 0.90), row("Scene", "CC", 0.80, 0.95),
                                row("Enron", "BR", 0.50, 0.70)])
    audit = no_audit(comparisons)
    settings = {
        "a": setting(comparisons, Scene_BR=0.88), "b": setting(comparisons, Scene_CC=0.93),
        "c": setting(comparisons, Scene_BR=0.86, Scene_CC=0.91),
    }
    every = diagnose(comparisons, settings, audit, {}).set_index(["dataset", "method"])
    for left_out in settings:
        fewer = categories(comparisons, {k: v for k, v in settings.items() if k != left_out}, audit)
        for cell, category in fewer.items():
            if category != every.at[cell, "category"]:
                assert left_out in every.at[cell, "within_band_under"].split("; ")
    assert every.at[("Scene", "CC"), "within_band_under"] == "b; c"
    assert every.at[("Enron", "BR"), "category"] == UNEXPLAINED


def test_settings_within_band_is_a_column_for_every_compared_row():
    comparisons = pd.DataFrame([row("Scene", "BR", 0.80, 0.90), row("Yeast", "BR", 0.80, 0.81),
                                row("Logical", "BR", 0.5, 0.6, "hidden_nodes")])
    settings = {"z": setting(comparisons, Scene_BR=0.86), "a": setting(comparisons).iloc[:2]}
    band = settings_within_band(comparisons, settings)
    assert list(band["within_band_under"]) == ["z", "a; z", ""]
    assert list(band["settings_compared"]) == [2, 2, 1]
    none = settings_within_band(comparisons, {})
    assert list(none["within_band_under"]) == ["", "", ""] and list(none["settings_compared"]) == [0, 0, 0]
