"""One record of every unit's split and seeds, own and reused fit time apart, and stores of schema version 1.

``tests/fixtures/store_v1`` holds a run (``config.yaml``: Logical, BR/CC/PCC, 3 splits) stored by the
mlhidden of schema version 1 (its store as an SQL dump, ``run/store.sql``), and the tables
``mlhidden report --stats`` made of it then.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from mlhidden.claims.runs import StoredRuns
from mlhidden.cli import cli
from mlhidden.data import load_dataset
from mlhidden.experiment.config import load_config, parse_config
from mlhidden.experiment.runner import run_experiment
from mlhidden.paper.deviations import baseline_scores, trivial_baselines
from mlhidden.paper.parallel_jobs import run_jobs
from mlhidden.paper.reference import TRIVIAL_BASELINE_METHODS
from mlhidden.paper.refits import label_accuracy_job
from mlhidden.report.table_notes import OWN_WORK_NOTE
from mlhidden.runs.metrics import SCORES
from mlhidden.runs.record import RunRecord
from mlhidden.runs.splits import Protocol, SplitRecipe
from mlhidden.runs.store import STORE_FILE, ResultStore, load_results
from mlhidden.runs.store_schema import SCHEMA_VERSION

STORE_V1 = Path(__file__).resolve().parents[1] / "fixtures" / "store_v1"
OLD_COLUMNS = [
    "dataset",
    "dataset_sha256",
    "method",
    "params_hash",
    "split",
    "seed",
    "label",
    "params_json",
    "status",
    *SCORES,
]


def _schema_version(run_dir: Path) -> str:
    with sqlite3.connect(run_dir / STORE_FILE) as conn:
        return conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0]


@pytest.fixture
def store_v1(tmp_path) -> Path:
    """The schema-1 run directory, its store rebuilt from the committed SQL dump (a text fixture)."""
    run_dir = tmp_path / "store_v1"
    shutil.copytree(STORE_V1 / "run", run_dir, ignore=shutil.ignore_patterns("store.sql"))
    with sqlite3.connect(run_dir / STORE_FILE) as conn:
        conn.executescript((STORE_V1 / "run" / "store.sql").read_text(encoding="utf-8"))
    conn.close()
    return run_dir


def test_the_splits_and_seeds_of_every_protocol_are_those_of_schema_1():
    """A digest of every split, label order and seed that the mlhidden of schema version 1 derived."""
    digest = hashlib.sha256()
    for name in ("Logical", "Yeast"):
        Y = load_dataset(name).Y
        for protocol, n_splits in ((Protocol(), 4), (Protocol("kfold", 4), 4), (Protocol("stratified_kfold", 3), 3)):
            for shuffle in (True, False):
                for s in SplitRecipe(3, n_splits, protocol, 0.6, shuffle).splits(name, Y):
                    unit = (s.index, s.seed, s.method_seed, s.train.tolist(), s.test.tolist(), s.label_order.tolist())
                    digest.update(repr(unit).encode())
    assert digest.hexdigest() == "75d057ab86a3e05f337a73e6944af365d47ddd4dc67b366e75bf9d2b4eae5b77"


def test_a_run_stores_the_scores_and_predictions_schema_1_stored(store_v1, tmp_path):
    run_experiment(load_config(STORE_V1 / "config.yaml"), tmp_path / "new", n_jobs=1)
    columns = ", ".join(OLD_COLUMNS)
    order = "ORDER BY method, split"
    for query in (f"SELECT {columns} FROM units {order}", f"SELECT predicted, scores FROM predictions {order}"):
        with sqlite3.connect(store_v1 / STORE_FILE) as old, sqlite3.connect(tmp_path / "new" / STORE_FILE) as new:
            assert new.execute(query).fetchall() == old.execute(query).fetchall()


def test_the_store_keeps_each_units_method_seed_label_order_and_reused_time(tmp_path):
    config = load_config(STORE_V1 / "config.yaml")
    run_experiment(config, tmp_path / "run", n_jobs=1)
    units = load_results(tmp_path / "run").units
    recipe = RunRecord.from_record(load_results(tmp_path / "run").config).split_recipe
    splits = recipe.splits("Logical", load_dataset("Logical").Y)
    for row in units.itertuples():
        assert row.method_seed == splits[row.split].method_seed == recipe.method_seeds("Logical")[row.split]
        assert json.loads(row.label_order) == splits[row.split].label_order.tolist()
    assert (units.loc[units["method"] == "BR", "reused_seconds"] == 0).all()
    chain = units[units["method"].isin(["CC", "PCC"])].pivot(index="split", columns="method", values="reused_seconds")
    # On each split one of CC and PCC fits the chain (whichever is dispatched first) and the other reuses it.
    assert ((chain == 0).sum(axis=1) == 1).all() and ((chain > 0).sum(axis=1) == 1).all()
    result = CliRunner().invoke(cli, ["report", str(tmp_path / "run"), "--out", str(tmp_path / "tables")])
    assert result.exit_code == 0, result.output
    written = pd.read_csv(tmp_path / "tables" / "units.csv")
    assert {"train_seconds", "reused_seconds"} <= set(written.columns)
    assert OWN_WORK_NOTE.replace("_", "\\_") in (tmp_path / "tables" / "tables.md").read_text()


def test_method_is_the_table_label_and_registry_name_the_stored_keys_method(tmp_path):
    config = parse_config({"datasets": ["Logical"], "methods": [{"name": "BR", "label": "plain BR"}], "splits": 1})
    run_experiment(config, tmp_path, n_jobs=1)
    with sqlite3.connect(tmp_path / STORE_FILE) as conn:
        assert conn.execute("SELECT method, label FROM units").fetchall() == [("BR", "plain BR")], "the store as before"
    conn.close()
    with ResultStore(tmp_path, create=False) as store:
        stored = store.units()
    assert "method" not in stored and list(stored["registry_name"]) == ["BR"]
    units = load_results(tmp_path).units
    assert list(units["method"]) == ["plain BR"] and list(units["registry_name"]) == ["BR"]


def test_the_store_keeps_each_units_worker_time_and_a_store_without_it_gains_the_column(tmp_path):
    """``worker_seconds``: the unit's whole time on its worker, splitting, scoring and evaluating included."""
    config, run_dir = load_config(STORE_V1 / "config.yaml"), tmp_path / "run"
    run_experiment(config, run_dir, n_jobs=1)
    units = load_results(run_dir).units
    assert units["worker_seconds"].notna().all()
    assert (units["worker_seconds"] >= units["train_seconds"] + units["test_seconds"]).all()
    with sqlite3.connect(run_dir / STORE_FILE) as conn:  # the store as schema 2 wrote it, one unit not run yet
        conn.execute("ALTER TABLE units DROP COLUMN worker_seconds")
        conn.execute("UPDATE meta SET value='2' WHERE key='schema_version'")
        conn.execute("DELETE FROM units WHERE method='BR' AND split=0")
    conn.close()
    assert load_results(run_dir).units["worker_seconds"].isna().all()
    assert _schema_version(run_dir) == "2"  # reading never migrates
    summary = run_experiment(config, run_dir, n_jobs=1)
    assert (summary.n_skipped, summary.n_done) == (8, 1)
    assert _schema_version(run_dir) == str(SCHEMA_VERSION)
    after = load_results(run_dir).units.set_index(["method", "split"])["worker_seconds"]
    assert after.loc[("BR", 0)] > 0 and after.drop(index=("BR", 0)).isna().all()


def test_a_store_of_schema_1_reports_as_it_did(store_v1, tmp_path):
    result = CliRunner().invoke(cli, ["report", str(store_v1), "--out", str(tmp_path / "tables"), "--stats"])
    assert result.exit_code == 0, result.output
    for expected in (STORE_V1 / "report").iterdir():
        written = tmp_path / "tables" / expected.name
        if expected.name == "units.csv":  # the same units, with the columns schema 2 added left empty
            new = pd.read_csv(written)
            pd.testing.assert_frame_equal(new[pd.read_csv(expected).columns], pd.read_csv(expected))
            assert new[["reused_seconds", "worker_seconds", "method_seed", "label_order"]].isna().all().all()
        else:
            assert written.read_text() == expected.read_text(), expected.name
    assert _schema_version(store_v1) == "1"  # reading never migrates


def test_resuming_a_store_of_schema_1_migrates_it_and_keeps_its_units(store_v1, tmp_path):
    before = load_results(store_v1).units[OLD_COLUMNS]
    summary = run_experiment(load_config(STORE_V1 / "config.yaml"), store_v1, n_jobs=1)
    assert (summary.n_skipped, summary.n_done) == (9, 0)
    assert _schema_version(store_v1) == str(SCHEMA_VERSION)
    after = load_results(store_v1).units
    pd.testing.assert_frame_equal(after[OLD_COLUMNS], before)
    assert after["reused_seconds"].isna().all()  # unknown: these train times include the fits reused
    assert after["worker_seconds"].isna().all()
    with ResultStore(store_v1) as store:  # opening the migrated store again is a no-op
        assert len(store.units()) == 9
    assert _tables(store_v1) >= {"units", "leases"} and "claims" not in _tables(store_v1)


def _tables(run_dir: Path) -> set[str]:
    with sqlite3.connect(run_dir / STORE_FILE) as conn:
        names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    conn.close()
    return names


def test_a_store_of_schema_3_resumes_with_its_claims_table_renamed_leases(tmp_path):
    """Schema 3 named the units' leases ``claims``: a run resuming such a store renames the table, keeping its
    rows, and ``--fresh`` still sees the lease a live run of that version holds there."""
    config, run_dir = load_config(STORE_V1 / "config.yaml"), tmp_path / "run"
    run_experiment(config, run_dir, n_jobs=1)
    with sqlite3.connect(run_dir / STORE_FILE) as conn:  # the store as schema 3 wrote it, one unit not run yet
        conn.execute("ALTER TABLE leases RENAME TO claims")
        conn.execute("UPDATE meta SET value='3' WHERE key='schema_version'")
        conn.execute("DELETE FROM units WHERE method='BR' AND split=0")
        conn.execute(
            "INSERT INTO claims VALUES ('Logical', 'x', 'CC', 'y', 0, 1, 'gone:1:0', 'elsewhere', 1, 0.0)"
        )
        conn.execute(
            "INSERT INTO claims VALUES ('Logical', 'x', 'CC', 'y', 1, 1, ?, ?, ?, strftime('%s'))",
            (f"{socket.gethostname()}:{os.getpid()}:0", socket.gethostname(), os.getpid()),
        )
    conn.close()
    command = ["run", "--config", str(STORE_V1 / "config.yaml"), "--out", str(run_dir), "--fresh", "-q"]
    fresh = CliRunner().invoke(cli, command)
    assert fresh.exit_code == 2 and f"process {os.getpid()} on" in fresh.stderr, fresh.output
    with sqlite3.connect(run_dir / STORE_FILE) as conn:
        conn.execute("DELETE FROM claims WHERE pid=?", (os.getpid(),))
    conn.close()
    summary = run_experiment(config, run_dir, n_jobs=1)
    assert (summary.n_skipped, summary.n_done) == (8, 1)
    assert _schema_version(run_dir) == str(SCHEMA_VERSION)
    assert "leases" in _tables(run_dir) and "claims" not in _tables(run_dir)
    with sqlite3.connect(run_dir / STORE_FILE) as conn:  # the lapsed lease moved with its table, then was cleared
        assert conn.execute("SELECT COUNT(*) FROM leases").fetchone() == (0,)
    conn.close()


@pytest.fixture(scope="module")
def kfold_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("kfold")
    methods = ["BR", "CC", *TRIVIAL_BASELINE_METHODS]
    config = parse_config(
        {"name": "paper", "datasets": ["Logical"], "methods": methods, "protocol": {"kind": "kfold", "folds": 4}}
    )
    run_experiment(config, out / "paper", n_jobs=1)
    return out


def test_the_baselines_a_report_computes_use_the_methods_folds(kfold_run):
    runs = StoredRuns.under(kfold_run)
    stored = trivial_baselines(runs, "paper").set_index(["dataset", "baseline"]).sort_index()
    computed = baseline_scores(runs.record("paper")).set_index(["dataset", "baseline"]).sort_index()
    pd.testing.assert_frame_equal(computed, stored, check_exact=False, rtol=1e-12, check_dtype=False)


def test_refits_of_a_kfold_run_are_its_units(kfold_run):
    (path,) = run_jobs([label_accuracy_job(kfold_run / "paper", ["Logical"], ["CC"])])
    refits = pd.read_csv(path).groupby("split")["exact_match"].first()
    units = load_results(kfold_run / "paper").units
    stored = units[units["method"] == "CC"].set_index("split")["exact_match"].sort_index()
    assert np.array_equal(refits.sort_index().to_numpy(), stored.to_numpy())


@pytest.mark.parametrize("options", [[], ["--stats"], ["--html"]])
def test_every_report_of_a_kfold_run(kfold_run, tmp_path, options):
    result = CliRunner().invoke(cli, ["report", str(kfold_run / "paper"), "--out", str(tmp_path), *options])
    assert result.exit_code == 0, result.output
    assert "4-fold" in result.output or (tmp_path / "tables.md").is_file()
