"""The one fit path (``fit_unit``) and the typed record of a stored config (``RunRecord``)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from mlhidden.data import load_dataset
from mlhidden.experiment.config import parse_config
from mlhidden.experiment.parallel_units import run_unit
from mlhidden.methods import cc
from mlhidden.methods.inference import greedy_search
from mlhidden.runs.record import RunRecord
from mlhidden.runs.run_results import split_protocol
from mlhidden.runs.splits import Split, make_split
from mlhidden.runs.status import FAILED, OK
from mlhidden.runs.store_schema import KEY_FIELDS, UNIT_FIELDS
from mlhidden.runs.unit_fit import fit_unit
from mlhidden.runs.units import UnitResult


@pytest.fixture(scope="module")
def scene():
    data = load_dataset("SyntheticComplex", params={"n_samples": 300, "n_labels": 4, "random_state": 0})
    return data.X, data.Y


def method(name, **params):
    return parse_config({"datasets": ["Logical"], "methods": [{"name": name, "params": params}]}).methods[0]


def test_predictions_come_back_in_the_datasets_label_order(scene):
    X, Y = scene
    in_order = make_split(len(X), Y.shape[1], seed=3, shuffle_labels=False)
    split = Split(in_order.index, in_order.seed, in_order.train, in_order.test, np.array([2, 0, 3, 1]), 0)
    # BR fits each label on its own, so the label order it sees cannot change its predictions.
    shuffled, plain = fit_unit(X, Y, split, method("BR")), fit_unit(X, Y, in_order, method("BR"))
    np.testing.assert_array_equal(shuffled.predicted, plain.predicted)
    assert shuffled.predicted.shape == Y[split.test].shape
    assert shuffled.train_seconds > 0 and shuffled.test_seconds > 0 and shuffled.reused_seconds == 0.0


def test_missing_inputs_are_imputed_from_the_training_rows_only(scene):
    X, Y = scene
    split = dataclasses.replace(make_split(len(X), Y.shape[1], seed=1), method_seed=0)
    holes = X.copy()
    holes[split.test[:5], 0] = np.nan
    holes[split.train[:5], 1] = np.nan
    filled = X.copy()
    filled[split.test[:5], 0] = np.nanmean(holes[split.train, 0])
    filled[split.train[:5], 1] = np.nanmean(holes[split.train, 1])
    np.testing.assert_array_equal(
        fit_unit(holes, Y, split, method("CC")).predicted,
        fit_unit(filled, Y, split, method("CC")).predicted,
    )


def test_a_unit_fits_with_the_method_seed_its_split_carries(scene):
    """The split is the one carrier of a unit's seeds: another ``method_seed`` there, another fit."""
    X, Y = scene
    split = make_split(len(X), Y.shape[1], seed=4)
    mlp = method("MLP")
    first, again, other = (
        fit_unit(X, Y, dataclasses.replace(split, method_seed=seed), mlp).scores for seed in (1, 1, 2)
    )
    assert first is not None and other is not None
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)


def test_a_chains_unit_makes_its_greedy_pass_once_for_predictions_and_scores(scene, monkeypatch):
    X, Y = scene
    split = make_split(len(X), Y.shape[1], seed=2)
    passes = []

    def counted(models, X_test):
        passes.append(X_test.shape[0])
        return greedy_search(models, X_test)

    monkeypatch.setattr(cc, "greedy_search", counted)
    unit = fit_unit(X, Y, split, method("CC"))
    assert passes == [len(split.test)]
    fitted = method("CC").make(random_state=split.method_seed).fit(X[split.train], Y[split.train][:, split.label_order])
    back = np.argsort(split.label_order)
    np.testing.assert_array_equal(unit.predicted, fitted.predict(X[split.test])[:, back])
    np.testing.assert_array_equal(unit.scores, fitted.predict_proba(X[split.test]).astype(np.float32)[:, back])


def test_run_unit_scores_what_fit_unit_predicts_and_records_failures(scene):
    X, Y = scene
    split = dataclasses.replace(make_split(len(X), Y.shape[1], seed=2), method_seed=5)
    result = run_unit(X, Y, split, method("CC"))
    predicted = fit_unit(X, Y, split, method("CC")).predicted
    assert result.status == OK and result.method_seed == 5
    assert result.exact_match == np.mean(np.all(predicted == Y[split.test], axis=1))
    broken = run_unit(X, Y[:10], split, method("CC"))
    assert broken.status == FAILED and broken.error.startswith("IndexError")
    assert broken.exact_match is None and broken.predicted is None


def test_a_unit_result_and_its_key_are_a_row_of_the_store():
    """Every column of the store's units table but ``finished_at`` (which the store stamps) is a result field
    or a key column, so a unit's row is typed end to end."""
    result = UnitResult(label="BR", params_json="{}", method_seed=0, label_order="[0]", status=OK)
    row = result.row(("Logical", "sha", "BR", "p", 0, 7))
    assert set(row) == set(UNIT_FIELDS) - {"finished_at"}
    assert [row[c] for c in KEY_FIELDS] == ["Logical", "sha", "BR", "p", 0, 7]
    assert row["seed"] == 7 and row["status"] == OK


def test_run_record_reads_back_the_stored_config():
    config = parse_config(
        {
            "name": "r",
            "datasets": [{"name": "Logical", "label": "L"}, "Scene"],
            "methods": ["BR", {"name": "CC", "label": "CC (a)"}],
            "splits": 3,
            "seed": 7,
            "shuffle_labels": False,
        }
    )
    record = RunRecord.from_record(config.record())
    assert [spec.table_name for spec in record.datasets] == ["L", "Scene"]
    assert record.datasets[0] == config.datasets[0] and record.datasets[0].record() == config.datasets[0].record()
    assert record.method("CC (a)").name == "CC" and record.method("CC (a)").params_hash == config.methods[1].params_hash
    assert record.dataset("Scene").name == "Scene"
    assert (record.splits, record.seed, record.shuffle_labels) == (3, 7, False)
    assert record.record() == config.record() and record.config_hash == config.config_hash
    assert record.split_recipe == config.split_recipe


def test_a_stored_method_entry_records_itself_as_the_config_did():
    """A method read back from a store has no registry entry yet: recording it looks the entry up."""
    config = parse_config({"datasets": ["Logical"], "methods": ["BR", {"name": "CC", "label": "CC (a)"}]})
    record = RunRecord.from_record(config.record())
    assert [method.record() for method in record.methods] == [method.record() for method in config.methods]


def test_stores_written_before_shuffle_labels_existed_shuffled():
    stored = parse_config({"datasets": ["Logical"], "methods": ["BR"], "shuffle_labels": False}).record()
    assert split_protocol(stored).endswith("labels in file order")
    del stored["shuffle_labels"]
    assert RunRecord.from_record(stored).shuffle_labels is True
    assert split_protocol(stored).endswith("shuffled labels")
