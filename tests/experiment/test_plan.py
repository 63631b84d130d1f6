"""What a run will do, planned without a run directory: every unit, in order, with its store key."""

from __future__ import annotations

import ast
from pathlib import Path

from mlhidden.data import load_dataset
from mlhidden.experiment import parallel_units
from mlhidden.experiment.config import parse_config
from mlhidden.experiment.runner import execute_plan, plan_run
from mlhidden.runs.splits import split_seed
from mlhidden.runs.store import load_results


def test_plan_lists_every_unit_method_major_with_its_store_key(tmp_path):
    config = parse_config(
        {"datasets": ["Logical", "Music", "MediaMill"], "methods": ["BR", "CC"], "splits": 3, "seed": 4}
    )
    plan = plan_run(config)
    assert list(tmp_path.iterdir()) == []
    assert [d.name for d in plan.datasets] == ["Logical", "Music"]
    assert plan.unavailable == {
        "MediaMill": "not available (put MediaMill.arff in the data path)"
    }  # the row names the dataset
    assert plan.checksums["Music"] == load_dataset("Music").identity
    order = [(unit.data.name, unit.method.name, unit.split.index) for unit in plan.units]
    assert order == [(d, m, s) for d in ("Logical", "Music") for m in ("BR", "CC") for s in range(3)]
    for unit in plan.units:
        dataset, split, method = unit.data, unit.split, unit.method
        assert unit.key_columns() == {
            "dataset": dataset.name, "dataset_sha256": plan.checksums[dataset.name], "registry_name": method.name,
            "params_hash": method.params_hash, "split": split.index, "seed": split_seed(4, dataset.name, split.index),
        }


def test_executing_a_plan_stores_exactly_its_units(tmp_path):
    plan = plan_run(parse_config({"datasets": ["Logical"], "methods": ["BR"], "splits": 2}, n_jobs=1))
    summary = execute_plan(plan, tmp_path)
    assert (summary.n_units, summary.n_done) == (2, 2)
    stored = load_results(tmp_path).units
    assert sorted(stored.split) == [0, 1] and set(stored.seed) == {unit.split.seed for unit in plan.units}


def test_the_executor_imports_nothing_of_the_runner():
    """The runner imports its executor; the types both fill (planned units, their results, the run's summary)
    sit below both, so the executor never imports the runner back, not even for type checking."""
    tree = ast.parse(Path(parallel_units.__file__).read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert "mlhidden.experiment.runner" not in imported
    assert "mlhidden.experiment.parallel_units" in {
        node.module for node in ast.walk(ast.parse(Path(parallel_units.__file__).with_name("runner.py").read_text()))
        if isinstance(node, ast.ImportFrom)
    }


def test_datasets_loaded_once_for_many_plans_plan_what_loading_each_alone_plans():
    """The multiverse's dry run plans hundreds of configs over the same datasets through one LoadedDatasets."""
    from mlhidden.experiment.runner import LoadedDatasets

    configs = [
        parse_config({"name": f"r{seed}", "datasets": ["Logical", "SyntheticSimple", "MediaMill"],
                      "methods": methods, "splits": 3, "seed": seed})
        for seed in (0, 1) for methods in (["BR"], ["BR", "CC"])
    ]
    loaded = LoadedDatasets()
    for config in configs:
        shared, alone = plan_run(config, loaded), plan_run(config)
        assert [u.key for u in shared.units] == [u.key for u in alone.units]
        assert [(u.split.train.tolist(), u.split.label_order.tolist(), u.split.method_seed) for u in shared.units] == [
            (u.split.train.tolist(), u.split.label_order.tolist(), u.split.method_seed) for u in alone.units
        ]
        assert shared.unavailable == alone.unavailable
    assert plan_run(configs[3], loaded).datasets[0].dataset is plan_run(configs[2], loaded).datasets[0].dataset
