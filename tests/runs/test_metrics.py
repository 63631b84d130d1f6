import re
import subprocess
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

import mlhidden
from mlhidden.runs.metrics import METRICS, RANKING_METRICS, SCORES, evaluate, get_metric
from mlhidden.runs.store import ResultStore
from mlhidden.runs.store_schema import METRIC_COLUMNS
from mlhidden.runs.units import UnitResult

Y_TRUE = np.array([[1, 0, 1], [0, 1, 0], [0, 0, 0], [1, 1, 0]])
Y_PRED = np.array([[1, 0, 1], [0, 0, 0], [0, 0, 0], [1, 0, 1]])


def test_scores_match_hand_computation():
    scores = evaluate(Y_TRUE, Y_PRED)
    assert scores["exact_match"] == pytest.approx(2 / 4)
    assert scores["hamming_score"] == pytest.approx(9 / 12)
    # pooled: tp=3, fp=1, fn=2
    assert scores["micro_f1"] == pytest.approx(6 / 9)
    # per label: (tp, fp, fn) = (2,0,0), (0,0,2), (1,1,0) -> F1 = 1, 0, 2/3
    assert scores["macro_f1"] == pytest.approx((1 + 0 + 2 / 3) / 3)
    # per example: F1 = 1, 0, 1 (both empty), 2/4 ; Jaccard = 1, 0, 1, 1/3
    assert scores["example_f1"] == pytest.approx((1 + 0 + 1 + 0.5) / 4)
    assert scores["jaccard"] == pytest.approx((1 + 0 + 1 + 1 / 3) / 4)


def test_perfect_prediction_scores_one_everywhere():
    assert all(v == 1.0 for v in evaluate(Y_TRUE, Y_TRUE).values())


def test_shape_mismatch_is_an_error():
    with pytest.raises(ValueError):
        evaluate(Y_TRUE, Y_PRED[:, :2])


PACKAGE = Path(mlhidden.__file__).parent
CATALOGUE = PACKAGE / "runs" / "metrics.py"
SENTENCE_NAMES = PACKAGE / "paper" / "audit.py"
"""The audit names the paper's measures in its sentences ('exact match', 'Hamming score', 'label accuracy', which
is no metric of ours): words of a sentence, of which one reads as a title."""


def _grep(pattern: str) -> list[str]:
    """``path:line:text`` of each line of the package's modules matching the extended regular expression."""
    found = subprocess.run(["grep", "-rnE", "--include=*.py", pattern, str(PACKAGE)], capture_output=True, text=True)
    return found.stdout.splitlines()


def _files(lines: list[str]) -> list[Path]:
    return [Path(line.split(":", 1)[0]) for line in lines]


def test_each_metric_is_defined_once_in_the_catalogue():
    """Each built-in metric's name is paired with its title once in the package, its title is typed nowhere
    else, and no other module builds a Metric from a name or states a direction."""
    assert len(METRICS) == 16
    for metric in METRICS.values():
        paired = _grep(rf"\(\s*\"{metric.name}\", \"{re.escape(metric.title)}\"")
        assert _files(paired) == [CATALOGUE], (metric.name, paired)
        titled = [p for p in _files(_grep(rf"[\"']{re.escape(metric.title)}[\"']")) if p != SENTENCE_NAMES]
        assert titled == [CATALOGUE], (metric.title, titled)
    for pattern in (r"Metric\(\s*[\"']", r"higher_is_better\s*=\s*(True|False)", r"(LOWER|HIGHER)_IS_BETTER"):
        assert set(_files(_grep(pattern))) <= {CATALOGUE}, pattern


def test_unit_result_fields_and_store_columns_are_the_catalogues_stored_metrics(tmp_path):
    stored = tuple(name for name, metric in METRICS.items() if metric.stored)
    assert stored == (*SCORES, "train_seconds", "test_seconds")
    assert tuple(f.name for f in fields(UnitResult) if f.name in METRICS) == stored
    assert METRIC_COLUMNS == stored
    with ResultStore(tmp_path) as store:
        columns = [row[1] for row in store._conn.execute("PRAGMA table_info(units)")]
    assert tuple(column for column in columns if column in METRICS) == stored


def test_reused_seconds_is_named_once():
    assert _files(_grep(r"^REUSED_SECONDS\s*=")) == [PACKAGE / "runs" / "store_schema.py"]


def test_a_metric_is_looked_up_in_any_case_and_computed_from_a_test_part():
    assert get_metric("Exact_Match") is METRICS["exact_match"]
    assert METRICS["exact_match"](Y_TRUE, Y_PRED) == evaluate(Y_TRUE, Y_PRED)["exact_match"]
    assert np.isnan(METRICS["ranking_loss"](Y_TRUE, Y_PRED, None))
    scores = np.where(Y_TRUE == 1, 0.9, 0.1)
    assert METRICS["ranking_loss"](Y_TRUE, Y_PRED, scores) == RANKING_METRICS["ranking_loss"](Y_TRUE, scores) == 0.0
    plugin = get_metric("mlhidden.runs.metrics:example_f1")
    assert plugin.plugin and plugin.title == plugin.name and not plugin.needs_scores
    assert plugin(Y_TRUE, Y_PRED) == METRICS["example_f1"](Y_TRUE, Y_PRED)
