"""The dataset catalog against the real mirror files: shapes, checksums, cache, copying, errors."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from mlhidden.data import (
    DatasetUnavailable,
    cache,
    catalog,
    catalog_entries,
    copy_from_mirror,
    dataset_table,
    load_dataset,
    resolve_data_dir,
    verify_datasets,
)
from mlhidden.data.cache import CACHE_ENV
from mlhidden.data.generators import GENERATORS
from mlhidden.errors import UserError
from mlhidden.experiment.config import parse_config
from mlhidden.experiment.runner import run_experiment

# Measured on the mirror (independently of the manifest): name -> file, N, L, D, LC, sha256 prefix, sparse.
EXPECTED = {
    "Music": ("Music.arff", 592, 6, 71, 1.87, "276be786e33b", False),
    "Scene": ("Scene.arff.bz2", 2407, 6, 294, 1.07, "f560b40697d8", False),
    "Yeast": ("Yeast.arff.bz2", 2417, 14, 103, 4.24, "98da124ba009", False),
    "Medical": ("Medical.arff", 978, 45, 1449, 1.25, "67f1e978c929", True),
    "Enron": ("Enron.arff.bz2", 1702, 53, 1001, 3.38, "d8e629fd9cfc", True),
    "Reuters": ("Reuters-K500.arff", 6000, 103, 500, 1.46, "a805128b5b94", True),
    "OHSUMED": ("OHSUMED.arff", 13929, 23, 1002, 1.66, "101c649ce2be", True),
    "Bibtex": ("Bibtex.arff", 7395, 159, 1836, 2.40, "777ac6b3b892", True),
    "Corel5k": ("Corel5k.arff", 5000, 374, 499, 3.52, "29aaf2582aaf", True),
}
MEDIAMILL_MESSAGE = "MediaMill: not available (put MediaMill.arff in the data path)"


@pytest.fixture(scope="module", autouse=True)
def cache_dir(tmp_path_factory):
    """A private parse cache for this module, and a cold in-process memo before and after it."""
    path = tmp_path_factory.mktemp("cache")
    cache.load_arff_file.cache_clear()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CACHE_ENV, str(path))
        patch.delenv(catalog.DATA_ENV, raising=False)
        yield path
    cache.load_arff_file.cache_clear()


@pytest.fixture(scope="module")
def mirror_datasets(mirror_dir):
    """Every mirror dataset parsed once for the module."""
    return {name: load_dataset(name, data_dir=mirror_dir) for name in EXPECTED}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_mirror_dataset_matches_measured_table(mirror_datasets, mirror_dir, name):
    file, n, labels, features, cardinality, sha_prefix, sparse = EXPECTED[name]
    data = mirror_datasets[name]
    assert data.name == name
    assert (data.n_samples, data.n_labels, data.n_features) == (n, labels, features)
    assert round(data.label_cardinality, 2) == cardinality
    assert data.identity.startswith(sha_prefix)
    assert data.identity == hashlib.sha256((mirror_dir / file).read_bytes()).hexdigest()
    assert data.source == str(mirror_dir / file)
    assert data.is_sparse == sparse
    if sparse:
        assert isinstance(data.X, sp.csr_matrix) and data.X.dtype == np.float64
    else:
        assert isinstance(data.X, np.ndarray) and data.X.dtype == np.float64
    assert data.Y.dtype == np.int8 and set(np.unique(data.Y)) <= {0, 1}
    assert len(data.feature_names) == features and len(data.label_names) == labels


def test_manifest_lists_the_paper_datasets():
    entries = {entry.name: entry for entry in catalog_entries()}
    assert list(entries) == [*EXPECTED, "MediaMill"]
    for name, (file, n, labels, features, cardinality, sha_prefix, _) in EXPECTED.items():
        entry = entries[name]
        assert (entry.file, entry.n_samples, entry.n_labels, entry.n_features, entry.label_cardinality) == (
            file,
            n,
            labels,
            features,
            cardinality,
        )
        assert entry.sha256.startswith(sha_prefix) and len(entry.sha256) == 64
        assert not entry.user_supplied and entry.source and entry.license
    mediamill = entries["MediaMill"]
    assert (
        mediamill.file,
        mediamill.n_samples,
        mediamill.n_labels,
        mediamill.n_features,
        mediamill.label_cardinality,
    ) == ("MediaMill.arff", 43907, 101, 120, 4.38)
    assert mediamill.user_supplied and mediamill.sha256 is None


def test_manifest_checksums_match_the_mirror_sources_list(mirror_dir):
    listed = dict(
        line.split()[::-1]
        for line in (mirror_dir / "SOURCES.md").read_text().splitlines()
        if len(line.split()) == 2 and len(line.split()[0]) == 64
    )
    assert {entry.file: entry.sha256 for entry in catalog_entries() if entry.sha256} == listed


def test_loaded_arrays_are_shared_read_only(mirror_datasets):
    with pytest.raises(ValueError):
        mirror_datasets["Music"].Y[0, 0] = 1
    with pytest.raises(ValueError):
        mirror_datasets["Medical"].X.data[0] = 5.0


def test_names_are_case_insensitive_and_paths_work(mirror_dir, mirror_datasets):
    assert load_dataset("mUSIC", data_dir=mirror_dir).name == "Music"
    by_path = load_dataset(mirror_dir / "Reuters-K500.arff")
    assert by_path.name == "Reuters-K500"
    np.testing.assert_array_equal(by_path.Y, mirror_datasets["Reuters"].Y)


def test_data_dir_resolution(monkeypatch, tmp_path):
    assert resolve_data_dir(tmp_path) == tmp_path
    monkeypatch.setenv("MLHIDDEN_DATA", str(tmp_path / "env"))
    assert resolve_data_dir() == tmp_path / "env"
    monkeypatch.delenv("MLHIDDEN_DATA")
    assert resolve_data_dir() == catalog.SHIPPED_DIR
    monkeypatch.setenv("MLHIDDEN_DATA", str(tmp_path / "env"))
    assert catalog.data_path(tmp_path) == [tmp_path, tmp_path / "env", catalog.SHIPPED_DIR]


@pytest.fixture
def nothing_shipped(monkeypatch, tmp_path):
    """A data path without the shipped datasets/ (as if the folder had been deleted)."""
    monkeypatch.setattr(catalog, "SHIPPED_DIR", tmp_path / "no-shipped-datasets")


def test_environment_data_dir_is_used(monkeypatch, mirror_dir):
    monkeypatch.setenv("MLHIDDEN_DATA", str(mirror_dir))
    assert load_dataset("corel5k").n_labels == 374


def test_mediamill_is_unavailable(tmp_path, mirror_dir):
    with pytest.raises(DatasetUnavailable) as caught:
        load_dataset("MediaMill", data_dir=mirror_dir)
    assert str(caught.value) == MEDIAMILL_MESSAGE
    assert isinstance(caught.value, UserError)


def test_mediamill_is_checked_by_shape(tmp_path):
    (tmp_path / "MediaMill.arff").write_text(
        "@relation 'MediaMill: -C 1'\n@attribute l {0,1}\n@attribute x numeric\n@data\n1,0.5\n"
    )
    with pytest.raises(UserError, match=r"expected N, L, D = \(43907, 101, 120\)"):
        load_dataset("MediaMill", data_dir=tmp_path)


def test_missing_catalog_file(tmp_path, nothing_shipped):
    with pytest.raises(UserError) as caught:
        load_dataset("Bibtex", data_dir=tmp_path)
    assert not isinstance(caught.value, DatasetUnavailable)
    assert str(caught.value).startswith(f"{tmp_path}: Bibtex: Bibtex.arff is in none of the data folders {tmp_path}, ")
    assert caught.value.hint == catalog.MISSING_HINT


def test_unknown_name_lists_valid_names():
    with pytest.raises(UserError) as caught:
        load_dataset("NoSuchData")
    assert "Music" in caught.value.hint and "Logical" in caught.value.hint and "MediaMill" in caught.value.hint


def test_checksum_mismatch(tmp_path, mirror_dir):
    content = bytearray((mirror_dir / "Music.arff").read_bytes())
    content[-3:-2] = b"9" if content[-3:-2] != b"9" else b"8"
    (tmp_path / "Music.arff").write_bytes(bytes(content))
    with pytest.raises(UserError) as caught:
        load_dataset("Music", data_dir=tmp_path)
    message = str(caught.value)
    assert "expected sha256 276be786e33b" in message and hashlib.sha256(bytes(content)).hexdigest() in message
    assert "the shipped copy is in the project's datasets/" in caught.value.hint


def test_parameters_are_checked(mirror_dir, tmp_path):
    with pytest.raises(UserError, match="no parameters"):
        load_dataset("Music", data_dir=mirror_dir, params={"jitter": 1})
    path = tmp_path / "plain.arff"
    path.write_text("@relation plain\n@attribute l {0,1}\n@attribute x numeric\n@data\n1,2\n0,3\n")
    with pytest.raises(UserError, match="-C N"):
        load_dataset(path)
    assert load_dataset(path, params={"labels": 1}).label_names == ("l",)
    with pytest.raises(UserError, match="labels"):
        load_dataset(path, params={"label": 1})


def test_parse_cache_is_written_once_and_reused(tmp_path, monkeypatch, mirror_dir):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    cache.load_arff_file.cache_clear()
    first = load_dataset("Medical", data_dir=mirror_dir)
    entries = list((tmp_path / "cache").iterdir())
    assert [entry.name for entry in entries] == [f"{first.identity}-r{cache.READER_VERSION}.npz"]

    def refuse_to_parse(*args, **kwargs):
        raise AssertionError("parsed although the cache holds the file")

    monkeypatch.setattr(cache, "read_arff", refuse_to_parse)
    cache.load_arff_file.cache_clear()
    second = load_dataset("Medical", data_dir=mirror_dir)
    assert second.is_sparse and second.name == "Medical"
    assert (second.X != first.X).nnz == 0
    np.testing.assert_array_equal(second.Y, first.Y)
    assert (second.feature_names, second.label_names, second.identity) == (
        first.feature_names,
        first.label_names,
        first.identity,
    )
    cache.load_arff_file.cache_clear()


def test_corrupt_cache_entry_is_ignored_and_rewritten(tmp_path, monkeypatch, mirror_dir):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    cache.load_arff_file.cache_clear()
    first = load_dataset("Music", data_dir=mirror_dir)
    entry = tmp_path / f"{first.identity}-r{cache.READER_VERSION}.npz"
    entry.write_bytes(entry.read_bytes()[:100])
    cache.load_arff_file.cache_clear()
    second = load_dataset("Music", data_dir=mirror_dir)
    np.testing.assert_array_equal(second.X, first.X)
    with np.load(entry) as stored:
        np.testing.assert_array_equal(stored["Y"], first.Y)
    assert list(tmp_path.iterdir()) == [entry]
    cache.load_arff_file.cache_clear()


def test_copy_from_mirror_verifies_and_skips(tmp_path, mirror_dir):
    target = tmp_path / "data"
    rows = copy_from_mirror(mirror_dir, target, names=["music", "Scene", "MediaMill"])
    assert [(row["name"], row["status"]) for row in rows] == [
        ("Music", "copied"),
        ("Scene", "copied"),
        ("MediaMill", "not available (put MediaMill.arff in the data path)"),
    ]
    assert (target / "Scene.arff.bz2").read_bytes() == (mirror_dir / "Scene.arff.bz2").read_bytes()
    assert [row["status"] for row in copy_from_mirror(mirror_dir, target, names=["Music"])] == ["already present"]
    assert sorted(path.name for path in target.iterdir()) == ["Music.arff", "Scene.arff.bz2"]


def test_copy_from_mirror_refuses_a_corrupt_mirror_copy(tmp_path, mirror_dir):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    shutil.copyfile(mirror_dir / "Music.arff", mirror / "Music.arff")
    with open(mirror / "Music.arff", "ab") as stream:
        stream.write(b"\n")
    target = tmp_path / "data"
    with pytest.raises(UserError, match="expected 276be786e33b"):
        copy_from_mirror(mirror, target, names=["Music"])
    assert not target.exists() or list(target.iterdir()) == []
    assert [row["status"] for row in copy_from_mirror(mirror, target, names=["Bibtex"])] == ["missing in mirror"]
    with pytest.raises(UserError, match="unknown dataset"):
        copy_from_mirror(mirror, target, names=["Nope"])
    with pytest.raises(UserError, match="does not exist"):
        copy_from_mirror(tmp_path / "absent", target)


def test_verify_datasets_reports_each_file(tmp_path, mirror_dir, nothing_shipped):
    shutil.copyfile(mirror_dir / "Yeast.arff.bz2", tmp_path / "Yeast.arff.bz2")
    (tmp_path / "Music.arff").write_text("not music")
    rows = {row["name"]: row for row in verify_datasets(tmp_path)}
    assert list(rows) == [*EXPECTED, "MediaMill"]
    assert rows["Yeast"]["status"] == "ok" and rows["Yeast"]["found"] == rows["Yeast"]["expected"]
    assert (
        rows["Music"]["status"] == "checksum mismatch"
        and rows["Music"]["found"] == hashlib.sha256(b"not music").hexdigest()
    )
    assert rows["Bibtex"]["status"] == "missing" and rows["Bibtex"]["found"] is None
    assert rows["MediaMill"]["status"] == "not available (put MediaMill.arff in the data path)"
    assert [row["status"] for row in verify_datasets(mirror_dir, names=["OHSUMED"])] == ["ok"]


def test_dataset_table_on_the_mirror(mirror_dir, mirror_datasets):
    rows = {row["name"]: row for row in dataset_table(mirror_dir)}
    assert list(rows) == [*EXPECTED, "MediaMill", *GENERATORS]
    for name, (file, n, labels, features, cardinality, sha_prefix, _) in EXPECTED.items():
        assert rows[name] == {
            "name": name,
            "file": file,
            "available": True,
            "N": n,
            "L": labels,
            "D": features,
            "LC": cardinality,
            "sha256": sha_prefix,
            "status": "ok",
        }
    assert rows["MediaMill"] == {
        "name": "MediaMill",
        "file": "MediaMill.arff",
        "available": False,
        "N": 43907,
        "L": 101,
        "D": 120,
        "LC": 4.38,
        "sha256": "",
        "status": "not available (put MediaMill.arff in the data path)",
    }
    assert rows["Logical"]["available"] and (
        rows["Logical"]["N"],
        rows["Logical"]["L"],
        rows["Logical"]["D"],
        rows["Logical"]["LC"],
    ) == (20, 3, 2, 1.5)


def test_dataset_table_reports_missing_and_mismatched_files(tmp_path, nothing_shipped):
    (tmp_path / "Scene.arff.bz2").write_bytes(b"junk")
    rows = {row["name"]: row for row in dataset_table(tmp_path)}
    assert (rows["Music"]["status"], rows["Music"]["available"], rows["Music"]["N"]) == ("missing", False, 592)
    assert (rows["Scene"]["status"], rows["Scene"]["available"]) == ("checksum mismatch", False)
    assert rows["Scene"]["sha256"] == hashlib.sha256(b"junk").hexdigest()[:12]


def test_a_run_parses_each_file_once_whatever_its_number_of_units(tmp_path, monkeypatch, mirror_dir):
    """Units get the parent's arrays; the file is read once per run, and not at all once cached."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    parsed = []
    real_read_arff = cache.read_arff

    def counting_read_arff(path, *args, **kwargs):
        parsed.append(Path(path).name)
        return real_read_arff(path, *args, **kwargs)

    monkeypatch.setattr(cache, "read_arff", counting_read_arff)
    config = parse_config({"datasets": ["Music", "Medical"], "methods": ["BR", "CC"], "splits": 2}, data_dir=mirror_dir)
    for run in ("first", "second"):
        cache.load_arff_file.cache_clear()
        summary = run_experiment(config, tmp_path / run, n_jobs=1)  # units in this process: all reads counted
        assert summary.n_done == 8 and summary.n_failed == 0
    assert sorted(parsed) == ["Medical.arff", "Music.arff"]
