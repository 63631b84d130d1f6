"""Stored predictions: every metric from the store alone (`report --metric`), n/a where there are no scores, old
stores."""

import sqlite3

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.metrics import coverage_error, label_ranking_loss, roc_auc_score

from mlhidden.cli import cli
from mlhidden.experiment.config import parse_config
from mlhidden.experiment.runner import run_experiment
from mlhidden.report.stored_metrics import (
    NO_PREDICTIONS,
    NO_SCORES,
    SCORE_METRICS_FILE,
    stored_metrics,
    write_score_metric_tables,
)
from mlhidden.runs.metrics import RANKING_METRICS, log_loss, macro_auc, micro_auc, one_error
from mlhidden.runs.predictions import pack_bits, pack_scores, unpack_bits, unpack_scores
from mlhidden.runs.store import STORE_FILE, ResultStore, load_results

METHODS = ["BR", "CC", {"name": "BR", "label": "BR-svm", "base": "sklearn.svm.LinearSVC"}]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("runs") / "logical"
    run_experiment(parse_config({"datasets": ["Logical"], "methods": METHODS, "splits": 2}), path, n_jobs=1)
    return path


@pytest.fixture
def old_store(run_dir, tmp_path):
    """The run's store as a version without predictions wrote it: no predictions tables."""
    path = tmp_path / "old"
    path.mkdir()
    with sqlite3.connect(run_dir / STORE_FILE) as source, sqlite3.connect(path / STORE_FILE) as copy:
        source.backup(copy)
        copy.execute("DROP TABLE predictions")
        copy.execute("DROP TABLE test_labels")
    return path


def test_packed_predictions_round_trip():
    rng = np.random.RandomState(0)
    bits, scores = rng.randint(0, 2, size=(13, 7)), rng.rand(13, 7).astype(np.float32)
    assert np.array_equal(unpack_bits(pack_bits(bits), bits.shape), bits)
    assert np.array_equal(unpack_scores(pack_scores(scores), scores.shape), scores)


def test_every_successful_unit_stores_its_predictions_and_the_truth(run_dir):
    units = load_results(run_dir).units
    with ResultStore(run_dir, create=False) as store:
        stored = dict(store.iter_predictions())
    labels = {(unit.registry_name, unit.params_hash): unit.method for unit in units.itertuples()}
    assert len(stored) == len(units) == 6
    for (_, _, name, params_hash, *_), predictions in stored.items():
        assert predictions.truth.shape == predictions.predicted.shape
        assert (predictions.scores is None) == (labels[name, params_hash] == "BR-svm")


def test_binary_metrics_from_predictions_equal_the_stored_unit_scores(run_dir):
    for metric in ("exact_match", "hamming_score", "macro_f1"):
        table = stored_metrics(run_dir, [metric])[metric].table
        stored = load_results(run_dir).units.groupby(["dataset", "method"])[metric].mean()
        for (dataset, method), value in stored.items():
            assert table.means.at[dataset, method] == pytest.approx(value, abs=1e-12)


def test_ranking_metrics_are_na_for_a_method_without_scores(run_dir):
    result = stored_metrics(run_dir, ["ranking_loss"])["ranking_loss"]
    assert result.not_available == {"BR-svm": NO_SCORES}
    assert list(result.table.methods) == ["BR", "CC"]
    assert result.table.means.notna().all().all()
    assert result.table.metric.higher_is_better is False


def test_report_metric_prints_a_table_from_the_store_alone(run_dir):
    result = CliRunner().invoke(cli, ["report", str(run_dir), "--metric", "macro_auc", "--metric", "coverage_error"])
    assert result.exit_code == 0, result.output
    assert "Macro ROC AUC" in result.output and "Coverage error" in result.output
    assert "macro_auc: n/a for BR-svm: the method (or its base learner) has no predict_proba" in result.output


def test_several_metrics_unpack_the_stored_predictions_once(run_dir, monkeypatch):
    reads = []
    iter_predictions = ResultStore.iter_predictions
    monkeypatch.setattr(ResultStore, "iter_predictions", lambda store: reads.append(store) or iter_predictions(store))
    tables = stored_metrics(run_dir, ["ranking_loss", "macro_auc", "exact_match"])
    assert len(reads) == 1
    for name, result in tables.items():
        assert result.table.means.equals(stored_metrics(run_dir, [name])[name].table.means)


def test_an_unknown_metric_is_one_line_with_a_suggestion(run_dir):
    result = CliRunner().invoke(cli, ["report", str(run_dir), "--metric", "ranking_los"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [result.output.strip()]
    assert "did you mean 'ranking_loss'?" in result.output and "macro_auc" in result.output


def test_an_old_store_loads_and_says_why_ranking_metrics_are_missing(old_store):
    result = CliRunner().invoke(cli, ["report", str(old_store), "--metric", "exact_match", "--metric", "log_loss"])
    assert result.exit_code == 0, result.output
    assert "Exact match" in result.output
    assert f"log_loss: n/a for BR, CC, BR-svm: {NO_PREDICTIONS}" in result.output
    assert stored_metrics(old_store, ["exact_match"])["exact_match"].table.means.notna().all().all()
    with sqlite3.connect(old_store / STORE_FILE) as store:  # reading adds no tables to an old store
        assert not {"predictions", "test_labels"} & {row[0] for row in store.execute("SELECT name FROM sqlite_master")}


def test_ranking_metrics_against_sklearn_and_by_hand():
    truth = np.array([[1, 0, 0], [0, 1, 1], [0, 0, 0], [1, 1, 0]])
    scores = np.array([[0.9, 0.2, 0.1], [0.8, 0.7, 0.6], [0.3, 0.2, 0.1], [0.4, 0.6, 0.5]], dtype=np.float32)
    assert RANKING_METRICS["ranking_loss"](truth, scores) == pytest.approx(label_ranking_loss(truth, scores))
    assert RANKING_METRICS["coverage_error"](truth, scores) == pytest.approx(coverage_error(truth, scores))
    assert one_error(truth, scores) == 0.25  # only row 2's top label (0) is wrong; row 3 has no label
    assert log_loss(truth, scores) == pytest.approx(-np.mean(np.where(truth, np.log(scores), np.log(1 - scores))))
    assert micro_auc(truth, scores) == pytest.approx(roc_auc_score(truth.ravel(), scores.ravel()))
    assert macro_auc(truth, scores) == pytest.approx(
        np.mean([roc_auc_score(truth[:, j], scores[:, j]) for j in range(3)])
    )
    one_class = truth.copy()
    one_class[:, 2] = 0  # label 2 has one class in this test part: left out of the macro mean
    assert macro_auc(one_class, scores) == pytest.approx(
        np.mean([roc_auc_score(one_class[:, j], scores[:, j]) for j in range(2)])
    )
    assert np.isnan(micro_auc(np.zeros_like(truth), scores)) and np.isnan(macro_auc(np.zeros_like(truth), scores))


def test_the_score_metric_file_has_every_ranking_measure_and_says_who_has_none(run_dir):
    path = write_score_metric_tables(run_dir)
    assert path == run_dir / SCORE_METRICS_FILE
    text = path.read_text()
    for title in (
        "Ranking loss",
        "Coverage error",
        "Label ranking average precision",
        "One-error",
        "Log-loss",
        "Micro ROC AUC",
        "Macro ROC AUC",
    ):
        assert f"## {title}" in text
    assert text.count("n/a for BR-svm: the method (or its base learner) has no predict\\_proba") == len(RANKING_METRICS)
