"""The protocol end to end on Logical: storing, resuming, failures, determinism, interrupts."""

import sqlite3

import pandas as pd
import pytest

from mlhidden.data import make_logical
from mlhidden.experiment.config import parse_config
from mlhidden.experiment.runner import run_experiment
from mlhidden.methods import CC
from mlhidden.runs.metrics import SCORES, evaluate
from mlhidden.runs.splits import SplitRecipe, method_seed
from mlhidden.runs.store import STORE_FILE, ResultStore, load_results

SCORE_COLUMNS = ["dataset", "method", "split", "status", *SCORES]


def logical_config(splits=4, methods=("BR", "CC")):
    return parse_config({"name": "t", "datasets": ["Logical"], "methods": list(methods), "splits": splits})


def scores(run_dir):
    units = load_results(run_dir).units
    return units[SCORE_COLUMNS].sort_values(["dataset", "method", "split"]).reset_index(drop=True)


def test_run_stores_every_unit_and_resume_skips_them(tmp_path):
    config = logical_config()
    first = run_experiment(config, tmp_path, n_jobs=1)
    assert (first.n_units, first.n_done, first.n_skipped, first.n_failed) == (8, 8, 0, 0)
    assert 0 <= first.worker_start_seconds < first.unit_phase_seconds < first.seconds
    second = run_experiment(config, tmp_path, n_jobs=1)
    assert (second.n_done, second.n_skipped) == (0, 8)
    assert second.unit_phase_seconds == 0
    units = load_results(tmp_path).units
    assert len(units) == 8 and set(units["method"]) == {"BR", "CC"}
    assert units["exact_match"].between(0, 1).all()
    assert (units["train_seconds"] > 0).all()


def test_results_do_not_depend_on_n_jobs(tmp_path):
    config = logical_config(splits=6)
    run_experiment(config, tmp_path / "one", n_jobs=1)
    run_experiment(config, tmp_path / "two", n_jobs=2)
    pd.testing.assert_frame_equal(scores(tmp_path / "one"), scores(tmp_path / "two"))


def test_br_cannot_solve_logical(tmp_path):
    """XOR is not linearly separable, so independent logistic models miss about half the examples."""
    run_experiment(logical_config(splits=10, methods=("BR",)), tmp_path, n_jobs=1)
    units = load_results(tmp_path).units
    assert units["exact_match"].mean() <= 0.6 and units["hamming_score"].mean() < 0.9


def test_failing_unit_is_stored_and_others_go_on(tmp_path):
    config = parse_config(
        {
            "datasets": ["Logical"],
            "splits": 2,
            "methods": [
                "BR",
                {"name": "PCC", "params": {"inference": "exact", "max_exact_labels": 2}},
            ],  # L = 3: fit refuses
        }
    )
    summary = run_experiment(config, tmp_path, n_jobs=1)
    assert summary.n_failed == 2 and summary.n_done == 4
    units = load_results(tmp_path).units
    failed = units[units.status == "failed"]
    assert (
        set(failed["method"]) == {"PCC"}
        and failed["error"].str.startswith("ValueError: exact inference enumerates 2^3").all()
    )
    assert (failed["worker_seconds"] > 0).all()
    assert units[units.status == "ok"]["exact_match"].notna().all()
    rerun = run_experiment(config, tmp_path, n_jobs=1)
    assert rerun.n_skipped == 2 and rerun.n_done == 2, "failed units are retried, ok ones kept"


def test_fresh_discards_stored_units(tmp_path):
    config = logical_config(splits=2)
    run_experiment(config, tmp_path, n_jobs=1)
    again = run_experiment(config, tmp_path, n_jobs=1, fresh=True)
    assert again.n_done == 4 and again.n_skipped == 0


def test_changed_parameters_are_new_units_and_old_ones_are_not_reported(tmp_path):
    run_experiment(logical_config(splits=2), tmp_path, n_jobs=1)
    changed = parse_config(
        {"datasets": ["Logical"], "splits": 2, "methods": ["BR", {"name": "CC", "params": {"order": [2, 1, 0]}}]}
    )
    summary = run_experiment(changed, tmp_path, n_jobs=1)
    assert summary.n_skipped == 2 and summary.n_done == 2
    with ResultStore(tmp_path) as store:
        assert len(store.units()) == 6
    assert len(load_results(tmp_path).units) == 4


def test_store_from_another_schema_is_refused(tmp_path):
    from mlhidden.errors import UserError

    ResultStore(tmp_path).close()
    with sqlite3.connect(tmp_path / STORE_FILE) as conn:
        conn.execute("UPDATE meta SET value='99' WHERE key='schema_version'")
    with pytest.raises(UserError, match="schema version 99"):
        ResultStore(tmp_path)


def test_with_shuffle_labels_false_a_chain_follows_its_own_order(tmp_path):
    """Table 3's models: the labels stay in file order, so a CC ``order`` is the chain the paper names."""
    methods = [{"name": "CC", "label": f"CC {order}", "params": {"order": order}} for order in ([0, 1, 2], [2, 0, 1])]
    config = parse_config({"datasets": ["Logical"], "methods": methods, "splits": 3, "shuffle_labels": False})
    run_experiment(config, tmp_path / "run", n_jobs=1)
    stored = load_results(tmp_path / "run").units.set_index(["method", "split"])["exact_match"]
    data = make_logical()
    for order in ([0, 1, 2], [2, 0, 1]):
        for index in range(3):
            split = SplitRecipe(0, 3, shuffle_labels=False).splits("Logical", data.Y)[index]
            model = CC(order=order, random_state=method_seed(0, "Logical", index)).fit(
                data.X[split.train], data.Y[split.train]
            )
            assert (
                stored[f"CC {order}", index]
                == evaluate(data.Y[split.test], model.predict(data.X[split.test]))["exact_match"]
            )


def test_on_unit_gets_each_stored_unit_as_planned_and_its_typed_result(tmp_path):
    from mlhidden.runs.units import PlannedUnit, UnitResult

    seen = []
    run_experiment(logical_config(splits=2), tmp_path, n_jobs=1, on_unit=lambda *args: seen.append(args))
    assert [(done, total) for *_, done, total in seen] == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert all(isinstance(unit, PlannedUnit) and isinstance(result, UnitResult) for unit, result, *_ in seen)
    units = load_results(tmp_path).units
    stored = set(units[["dataset", "method", "split", "exact_match"]].itertuples(index=False, name=None))
    assert {(u.data.name, r.label, u.split.index, r.exact_match) for u, r, *_ in seen} == stored
