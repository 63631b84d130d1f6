"""Evaluation protocols: holdout (unchanged), k-fold and iteratively stratified k-fold, in configs, runs, resume and
merges."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from mlhidden.cli import cli
from mlhidden.data import load_dataset
from mlhidden.errors import UserError
from mlhidden.experiment.config import parse_config
from mlhidden.experiment.runner import plan_run, run_experiment
from mlhidden.runs.splits import KFOLD, STRATIFIED_KFOLD, Protocol, SplitRecipe, label_coverage, make_split, split_seed
from mlhidden.runs.store import load_results


def config(protocol=None, methods=("BR",), **settings):
    data = {"datasets": ["Logical"], "methods": list(methods), **settings}
    return parse_config({**data, "protocol": protocol} if protocol else data)


@pytest.fixture(scope="module")
def yeast():
    return load_dataset("Yeast")


@pytest.mark.parametrize("kind", [KFOLD, STRATIFIED_KFOLD])
def test_folds_partition_the_rows(yeast, kind):
    splits = SplitRecipe(0, 5, Protocol(kind, 5)).splits("Yeast", yeast.Y)
    tests = np.concatenate([s.test for s in splits])
    assert sorted(tests) == list(range(yeast.n_samples))  # every row tested exactly once
    for s in splits:
        assert not set(s.train) & set(s.test) and len(s.train) + len(s.test) == yeast.n_samples
    assert len({s.seed for s in splits}) == 5


def test_stratification_spreads_the_rarest_label_evenly_over_the_folds(yeast):
    counts = {}
    for kind in (KFOLD, STRATIFIED_KFOLD):
        rows = label_coverage(SplitRecipe(0, 10, Protocol(kind, 10)).splits("Yeast", yeast.Y), yeast.Y)
        counts[kind] = [row["rarest_label_positives"] for row in rows]
    assert sum(counts[KFOLD]) == sum(counts[STRATIFIED_KFOLD]) == yeast.Y.sum(axis=0).min()
    assert min(counts[STRATIFIED_KFOLD]) > 0
    assert np.ptp(counts[STRATIFIED_KFOLD]) < np.ptp(counts[KFOLD])


def test_holdout_splits_and_seeds_are_those_stored_before_protocols(yeast):
    for index in range(3):
        assert SplitRecipe(7, 3).split_seed("Yeast", index) == split_seed(7, "Yeast", index)
        assert SplitRecipe(7, 3, Protocol(KFOLD, 3)).split_seed("Yeast", index) != split_seed(7, "Yeast", index)
    new = SplitRecipe(7, 3).splits("Yeast", yeast.Y)
    for index, split in enumerate(new):
        old = make_split(yeast.n_samples, yeast.n_labels, split_seed(7, "Yeast", index), index)
        assert np.array_equal(split.train, old.train) and np.array_equal(split.label_order, old.label_order)
    assert "protocol" not in config().to_dict()  # so a holdout config's hash is unchanged too


def test_the_protocol_is_part_of_the_unit_identity():
    def keys(run_config):
        return {unit.key for unit in plan_run(run_config).units}

    holdout, kfold, stratified = (
        keys(config(splits=3)),
        keys(config({"kind": KFOLD, "folds": 3})),
        keys(config({"kind": STRATIFIED_KFOLD, "folds": 3})),
    )
    assert len(holdout) == len(kfold) == len(stratified) == 3
    assert not holdout & kfold and not kfold & stratified and not holdout & stratified


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"protocol": {"kind": "loo"}}, "unknown protocol kind 'loo'"),
        ({"protocol": {"kind": "kfold", "folds": 1}}, "'folds' must be an integer >= 2"),
        ({"protocol": {"kind": "kfold", "k": 3}}, "unknown key 'k' in a kfold protocol"),
        ({"protocol": {"kind": "kfold"}, "splits": 3}, "'splits' applies to the holdout protocol"),
        (
            {"protocol": {"kind": "stratified_kfold"}, "train_fraction": 0.5},
            "'train_fraction' applies to the holdout protocol",
        ),
    ],
)
def test_bad_protocols_are_refused_in_one_line(settings, message):
    with pytest.raises(UserError, match=message):
        parse_config({"datasets": ["Logical"], "methods": ["BR"], **settings})


def test_kfold_runs_resume_and_refuse_merging_with_another_protocol(tmp_path):
    kfold = config({"kind": KFOLD, "folds": 4}, methods=("BR", "CC"))
    assert kfold.splits == 4
    first = run_experiment(kfold, tmp_path / "kfold", n_jobs=1)
    again = run_experiment(kfold, tmp_path / "kfold", n_jobs=1)
    assert (first.n_done, again.n_done, again.n_skipped) == (8, 0, 8)
    assert load_results(tmp_path / "kfold").missing == 0
    seeds = json.loads((tmp_path / "kfold" / "run.json").read_text())["seeds"]["split_seeds"]["Logical"]
    assert seeds == kfold.split_recipe.split_seeds("Logical")
    with pytest.raises(UserError, match="5-fold cross-validation"):
        run_experiment(config({"kind": KFOLD, "folds": 5}), tmp_path / "kfold", n_jobs=1)
    run_experiment(config({"kind": STRATIFIED_KFOLD, "folds": 4}), tmp_path / "stratified", n_jobs=1)
    with pytest.raises(UserError, match="they split Logical differently"):
        load_results([tmp_path / "kfold", tmp_path / "stratified"])


def test_splits_command_shows_the_rarest_label_per_fold(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("datasets: [Logical]\nmethods: [BR]\nprotocol: {kind: stratified_kfold, folds: 3}\n")
    result = CliRunner().invoke(cli, ["splits", "--config", str(path)])
    assert result.exit_code == 0, result.output
    assert "3-fold cross-validation (iteratively stratified); rarest label" in result.output
    assert "rarest label per test part: min" in result.output
