"""`mlhidden report RUN_DIR...`: runs made separately merge into one table, unless their splits differ."""

import sqlite3

import pandas as pd
import pytest
from click.testing import CliRunner

from mlhidden.cli import cli
from mlhidden.errors import UserError
from mlhidden.experiment.config import parse_config
from mlhidden.experiment.runner import run_experiment
from mlhidden.runs.store import STORE_FILE, load_results

SCORE_COLUMNS = ["dataset", "method", "split", "status", "exact_match", "hamming_score", "micro_f1", "macro_f1"]


def run(run_dir, methods, datasets=("Logical",), data_dir=None, **settings):
    config = parse_config(
        {"datasets": list(datasets), "methods": list(methods), "splits": 3, **settings}, data_dir=data_dir
    )
    run_experiment(config, run_dir, n_jobs=1)
    return run_dir


def scores(units):
    return units[SCORE_COLUMNS].sort_values(["dataset", "method", "split"]).reset_index(drop=True)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """BR and CC on Logical run separately (as on two days), and together as the reference."""
    root = tmp_path_factory.mktemp("runs")
    return run(root / "br", ["BR"]), run(root / "cc", ["CC"]), run(root / "both", ["BR", "CC"])


def test_merged_runs_equal_one_run_of_both_methods(runs, tmp_path):
    br, cc, both = runs
    merged = load_results([br, cc])
    reference = load_results(both)
    assert merged.methods == ["BR", "CC"] and merged.datasets == ["Logical"] and merged.missing == 0
    pd.testing.assert_frame_equal(scores(merged.units), scores(reference.units))
    assert list(merged.provenance) == [str(br), str(cc)]

    result = CliRunner().invoke(cli, ["report", str(br), str(cc), "--out", str(tmp_path / "merged")])
    assert result.exit_code == 0, result.output
    CliRunner().invoke(cli, ["report", str(both)])
    for table in ("exact_match.csv", "hamming_score.csv"):
        assert (tmp_path / "merged" / table).read_text() == (both / table).read_text()
    footer = [line for line in result.output.splitlines() if line.startswith("provenance: ")]
    assert [line.split(": ")[1] for line in footer] == [str(br), str(cc)]
    tex = (tmp_path / "merged" / "exact_match.tex").read_text().splitlines()
    assert [line.startswith(f"% {run_dir}: run ") for line, run_dir in zip(tex, (br, cc))] == [True, True]
    assert tex[2] == "\\begin{table}"


def test_a_unit_stored_by_several_runs_is_kept_once(runs):
    br, _, both = runs
    merged = load_results([both, br])
    assert len(merged.units) == 6 and merged.methods == ["BR", "CC"]
    assert not merged.units.duplicated(["dataset", "method", "split"]).any()


def test_missing_units_are_counted_across_the_merge(runs, tmp_path):
    _, cc, _ = runs
    partial = run(tmp_path / "partial", ["BR"])
    with sqlite3.connect(partial / STORE_FILE) as conn:
        conn.execute("DELETE FROM units WHERE split = 2")
    assert load_results([partial, cc]).missing == 1


def test_runs_on_different_datasets_merge_whatever_their_seeds(runs, tmp_path, mirror_dir):
    br, _, _ = runs
    music = run(tmp_path / "music", ["CC"], datasets=["Music"], data_dir=mirror_dir, seed=5, splits=1)
    merged = load_results([br, music])
    assert merged.datasets == ["Logical", "Music"] and merged.methods == ["BR", "CC"]
    assert merged.missing == 0 and len(merged.units) == 4


@pytest.mark.parametrize(
    "settings, differs",
    [
        ({"seed": 1}, r"seed 0, 3 splits, train fraction 0.6, shuffled labels, data sha256 \w+ vs seed 1, 3 splits"),
        (
            {"train_fraction": 0.5},
            r"seed 0, 3 splits, train fraction 0.6, shuffled labels, data sha256 \w+ "
            r"vs seed 0, 3 splits, train fraction 0.5,",
        ),
        (
            {"shuffle_labels": False},
            r"seed 0, 3 splits, train fraction 0.6, shuffled labels, .* vs "
            r"seed 0, 3 splits, train fraction 0.6, labels in file order,",
        ),
        ({"splits": 2}, r"seed 0, 3 splits, .* vs seed 0, 2 splits"),
        (
            {"datasets": [{"name": "Logical", "params": {"jitter": 0.1}, "label": "Logical"}]},
            r"seed 0, 3 splits, train fraction 0.6, shuffled labels, data sha256 (\w+) vs "
            r"seed 0, 3 splits, train fraction 0.6, shuffled labels, data sha256 (?!\1)\w+\)",
        ),
    ],
    ids=["seed", "train_fraction", "shuffle_labels", "splits", "data"],
)
def test_runs_that_split_a_dataset_differently_are_refused(runs, tmp_path, settings, differs):
    br, _, _ = runs
    config = {"datasets": ["Logical"], "methods": ["CC"], "splits": 3, **settings}
    other = tmp_path / "other"
    run_experiment(parse_config(config), other, n_jobs=1)
    with pytest.raises(UserError, match=f"cannot merge {br} and {other}: they split Logical differently \\({differs}"):
        load_results([br, other])
    result = CliRunner().invoke(cli, ["report", str(br), str(other), "--out", str(tmp_path / "merged")])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "merged").exists()


def test_a_label_meaning_different_settings_is_refused(runs, tmp_path):
    _, cc, _ = runs
    reordered = run(tmp_path / "reordered", [{"name": "CC", "label": "CC", "params": {"order": [2, 1, 0]}}])
    with pytest.raises(UserError, match="method 'CC' has different settings in each"):
        load_results([cc, reordered])


def test_merging_needs_an_output_directory(runs):
    br, cc, _ = runs
    result = CliRunner().invoke(cli, ["report", str(br), str(cc)])
    assert result.exit_code == 2 and "merging several runs needs --out DIR" in result.output
