"""A run directory's compact copy: what a clone without the git-ignored store reads, with the store's own numbers."""

from __future__ import annotations

import gzip
import shutil
import sqlite3
import warnings

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from mlhidden.cli import cli
from mlhidden.errors import InputWarning, UserError
from mlhidden.io import STORE_FILE
from mlhidden.runs.compact_results import COMPACT_FILES, DATASETS_FILE, LABEL_HITS_FILE, UNITS_FILE
from mlhidden.runs.store import (
    ResultStore,
    load_results,
    results_exist,
    stored_datasets,
    stored_label_accuracies,
)


@pytest.fixture(scope="module")
def stored_run(tmp_path_factory):
    """A tiny real run: BR and CC on Logical, 3 splits."""
    folder = tmp_path_factory.mktemp("compact")
    config = folder / "tiny.yaml"
    config.write_text("name: tiny\ndatasets: [Logical]\nmethods: [BR, CC]\nsplits: 3\nseed: 0\n")
    result = CliRunner().invoke(
        cli, ["run", "--config", str(config), "--out", str(folder / "tiny"), "--n-jobs", "1", "--quiet"]
    )
    assert result.exit_code == 0, result.output
    return folder / "tiny"


@pytest.fixture
def clone(stored_run, tmp_path):
    """The run directory as a clone has it: every file but the store."""
    copy = tmp_path / "tiny"
    shutil.copytree(stored_run, copy, ignore=shutil.ignore_patterns(f"{STORE_FILE}*"))
    return copy


def test_every_run_writes_its_compact_copy_small_and_compressed(stored_run):
    for name in COMPACT_FILES:
        path = stored_run / name
        assert path.is_file() and path.stat().st_size < 2 * 2**20, name
    assert gzip.decompress((stored_run / UNITS_FILE).read_bytes()).startswith(b"dataset,dataset_sha256,registry_name")


def test_a_run_without_its_store_reads_as_the_store_gives_it(stored_run, clone):
    assert results_exist(clone) and not (clone / STORE_FILE).exists()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the store and its copy agree: nothing to say
        from_store = load_results(stored_run)
    from_copy = load_results(clone)
    key = ["dataset", "method", "split"]
    numbers = [*key, "seed", "params_hash", "status", "exact_match", "hamming_score", "micro_f1", "macro_f1",
               "example_f1", "jaccard", "train_seconds", "test_seconds", "reused_seconds", "total_seconds"]
    pd.testing.assert_frame_equal(
        from_copy.units.sort_values(key).reset_index(drop=True)[numbers],
        from_store.units.sort_values(key).reset_index(drop=True)[numbers],
    )
    assert (from_copy.datasets, from_copy.methods, from_copy.checksums, from_copy.config, from_copy.missing,
            from_copy.left_out) == (from_store.datasets, from_store.methods, from_store.checksums,
                                    from_store.config, from_store.missing, from_store.left_out)
    pd.testing.assert_frame_equal(stored_datasets(clone), stored_datasets(stored_run), check_dtype=False)
    assert stored_datasets(clone).loc["Logical", "n_samples"] == 20


def test_label_accuracies_from_the_copy_are_those_of_the_stored_predictions(stored_run, clone):
    from_store, from_copy = stored_label_accuracies(stored_run), stored_label_accuracies(clone)
    assert from_store is not None and len(from_store) == 2 * 3 * 3  # methods x splits x labels
    pd.testing.assert_frame_equal(from_copy, from_store)
    units = load_results(stored_run).units.set_index(["method", "split"])["hamming_score"]
    mean_accuracy = from_store.groupby(["method", "split"])["accuracy"].mean()
    np.testing.assert_allclose(mean_accuracy.to_numpy(), units.reindex(mean_accuracy.index).to_numpy(), atol=1e-12)


def test_a_store_that_its_copy_does_not_match_wins_and_says_so(stored_run, tmp_path):
    run_dir = tmp_path / "tiny"
    shutil.copytree(stored_run, run_dir)
    with sqlite3.connect(run_dir / STORE_FILE) as conn:
        conn.execute("UPDATE units SET exact_match = 0.123 WHERE split = 0 AND method = 'BR'")
    with pytest.warns(InputWarning, match=f"{UNITS_FILE} differ from the store"):
        units = load_results(run_dir).units
    assert units.loc[(units["method"] == "BR") & (units["split"] == 0), "exact_match"].tolist() == [0.123]


def test_rerunning_a_finished_run_rewrites_its_copy(stored_run, tmp_path):
    run_dir = tmp_path / "tiny"
    shutil.copytree(stored_run, run_dir)
    for name in COMPACT_FILES:
        (run_dir / name).unlink()
    config = stored_run.parent / "tiny.yaml"
    result = CliRunner().invoke(cli, ["run", "--config", str(config), "--out", str(run_dir), "--quiet"])
    assert result.exit_code == 0, result.output
    for name in COMPACT_FILES:
        assert (run_dir / name).read_bytes() == (stored_run / name).read_bytes(), name


def test_a_copy_without_label_hits_has_no_label_accuracies(clone):
    (clone / LABEL_HITS_FILE).unlink()
    assert stored_label_accuracies(clone) is None


def test_an_unreadable_copy_is_one_line_naming_the_run(clone):
    (clone / DATASETS_FILE).write_bytes(b"\xff\xfe")
    with pytest.raises(UserError, match="the compact copy of the run cannot be read") as caught:
        load_results(clone)
    assert caught.value.path == str(clone)


def test_a_folder_with_neither_is_no_stored_run(tmp_path):
    assert not results_exist(tmp_path)
    with pytest.raises(UserError, match="no results store here"):
        load_results(tmp_path)
    with pytest.raises(UserError, match="no results store here"):
        ResultStore(tmp_path, create=False)
