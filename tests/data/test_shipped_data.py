"""The datasets the project ships: sizes, reproducible compression, identity checksums, Mulan's form."""

from __future__ import annotations

import bz2
import hashlib
import warnings

import numpy as np
import pytest
from click.testing import CliRunner

from mlhidden.cli import cli
from mlhidden.data import LabelsXmlWarning, catalog_entries, load_dataset, read_arff
from mlhidden.data.cache import cache_dir, load_arff_file
from mlhidden.data.catalog import SHIPPED_DIR
from mlhidden.errors import UserError
from mlhidden.experiment.config import parse_config
from mlhidden.experiment.runner import run_experiment

MIB = 1 << 20
SHIPPED = [entry for entry in catalog_entries() if entry.shipped_file]
# The upstream Mulan files (datasets/upstream/, as their repositories publish them) and the
# catalog dataset each must equal.
UPSTREAM = {
    "Medical": ("medical.arff.bz2", "medical.xml"),
    "Bibtex": ("bibtex.arff.bz2", "bibtex.xml"),
    "Corel5k": ("Corel5k-sparse.arff.bz2", "Corel5k.xml"),
    "OHSUMED": ("ohsumed.arff.bz2", "ohsumed.xml"),
    "Reuters": ("reuters-k500.arff.bz2", "reuters-k500.xml"),
}
MEKA_BZ2 = {"Scene", "Yeast", "Enron"}


def test_every_distributable_dataset_ships_small_and_byte_reproducible():
    assert [entry.name for entry in SHIPPED] == [
        "Music",
        "Scene",
        "Yeast",
        "Medical",
        "Enron",
        "Reuters",
        "OHSUMED",
        "Bibtex",
        "Corel5k",
    ]
    sizes = {}
    for entry in SHIPPED:
        stored = (SHIPPED_DIR / entry.shipped_file).read_bytes()
        sizes[entry.name] = len(stored)
        assert len(stored) < 2 * MIB, entry.shipped_file
        assert hashlib.sha256(stored).hexdigest() == entry.shipped_sha256
        content = bz2.decompress(stored)
        if entry.name in MEKA_BZ2:  # MEKA's own bz2 file, shipped byte for byte: identity and shipped checksums agree
            assert (entry.file, entry.sha256) == (entry.shipped_file, entry.shipped_sha256)
        else:  # compressed here at level 9: compressing the mirror file again gives the same bytes
            assert hashlib.sha256(content).hexdigest() == entry.sha256
            assert bz2.compress(content, 9) == stored
    assert 3.5e6 < sum(sizes.values()) < 4.5e6


def test_shipped_datasets_load_by_name_with_the_mirror_identity(mirror_dir, monkeypatch):
    """With no data folder given, the shipped bz2 copy is read, and carries the mirror file's checksum."""
    monkeypatch.delenv("MLHIDDEN_DATA", raising=False)
    for name in ("Music", "Medical"):
        entry = next(e for e in SHIPPED if e.name == name)
        shipped = load_dataset(name)
        assert shipped.source == str(SHIPPED_DIR / entry.shipped_file)
        assert shipped.identity == entry.sha256 == hashlib.sha256((mirror_dir / entry.file).read_bytes()).hexdigest()
        assert read_arff(SHIPPED_DIR / entry.shipped_file).identity == entry.shipped_sha256, "the file's own"


def test_a_store_made_from_the_mirror_form_resumes_from_the_shipped_form(tmp_path, mirror_dir, monkeypatch):
    monkeypatch.delenv("MLHIDDEN_DATA", raising=False)
    entry = {"datasets": ["Music"], "methods": ["BR"], "splits": 2}
    first = run_experiment(parse_config(entry, data_dir=mirror_dir), tmp_path, n_jobs=1)
    assert first.n_done == 2
    resumed = run_experiment(parse_config(entry), tmp_path, n_jobs=1)
    assert (resumed.n_skipped, resumed.n_done) == (2, 0)


@pytest.mark.parametrize("name", list(UPSTREAM))
def test_upstream_mulan_files_load_as_is_and_equal_the_meka_form(name):
    arff, xml = UPSTREAM[name]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        upstream = read_arff(SHIPPED_DIR / "upstream" / arff, labels_xml=SHIPPED_DIR / "upstream" / xml)
    meka = load_dataset(name)
    assert upstream.is_sparse and meka.is_sparse
    assert upstream.X.shape == meka.X.shape and (upstream.X != meka.X).nnz == 0
    np.testing.assert_array_equal(upstream.Y, meka.Y)
    assert (upstream.feature_names, upstream.label_names) == (meka.feature_names, meka.label_names)
    messages = [str(w.message) for w in caught if issubclass(w.category, LabelsXmlWarning)]
    if name == "Medical":  # its @relation says -C 45, its XML the last 45 attributes
        assert messages == [
            f"{SHIPPED_DIR / 'upstream' / arff}: @relation says -C 45 (the first 45 attributes), "
            "but medical.xml names the last 45 attributes as labels; using the XML"
        ]
    else:
        assert messages == []


def _mulan_pair(folder, relation="toy", xml_names=("b", "c")):
    (folder / "toy.arff").write_text(
        f"@relation {relation}\n@attribute a numeric\n@attribute b {{0,1}}\n@attribute c {{0,1}}\n"
        "@data\n0.5,1,0\n1.5,0,1\n2.5,1,1\n"
    )
    labels = "".join(f'<label name="{name}"></label>' for name in xml_names)
    (folder / "toy.xml").write_text(f'<?xml version="1.0"?>\n<labels xmlns="http://mulan.sourceforge.net/labels">{labels}</labels>\n')
    return folder / "toy.arff", folder / "toy.xml"


def test_an_xml_beside_the_arff_is_used_and_a_config_may_name_it(tmp_path):
    arff, xml = _mulan_pair(tmp_path)
    beside = load_dataset(arff)
    assert beside.label_names == ("b", "c") and beside.feature_names == ("a",)
    elsewhere = tmp_path / "labels.xml"
    xml.rename(elsewhere)
    with pytest.raises(UserError, match="does not say how many attributes are labels"):
        load_dataset(arff)
    config = parse_config(
        {"datasets": [{"path": str(arff), "labels_xml": str(elsewhere)}], "methods": ["BR"], "splits": 1}
    )
    assert config.datasets[0].name == str(arff) and config.datasets[0].params == {"labels_xml": str(elsewhere)}
    assert load_dataset(arff, params=config.datasets[0].params).label_names == ("b", "c")
    with pytest.raises(UserError, match="does not exist"):
        parse_config({"datasets": [{"path": str(arff), "labels_xml": str(tmp_path / "nope.xml")}], "methods": ["BR"]})


def test_mulan_errors_name_the_file(tmp_path):
    arff, xml = _mulan_pair(tmp_path, xml_names=("b", "zz"))
    with pytest.raises(UserError) as caught:
        read_arff(arff, labels_xml=xml)
    assert str(caught.value).startswith(f"{xml}: 1 label(s) of toy.xml are not attributes of toy.arff: zz")
    xml.write_text("<labels><label name='b'>")
    with pytest.raises(UserError, match=rf"^{xml}:1: not a well-formed XML file"):
        read_arff(arff, labels_xml=xml)
    with pytest.raises(UserError, match="not both"):
        load_dataset(arff, params={"labels": 1, "labels_xml": str(xml)})


def test_cli_prints_the_xml_disagreement_as_one_warning_line_when_parsing_and_from_the_cache(tmp_path):
    arff, _ = _mulan_pair(tmp_path, relation="'toy: -C 2'")
    expected = [
        f"warning: {arff}: @relation says -C 2 (the first 2 attributes), "
        "but toy.xml names the last 2 attributes as labels; using the XML"
    ]
    for parse_or_cache in range(2):
        load_arff_file.cache_clear()  # as a new process: the second load reads the disk cache
        result = CliRunner().invoke(cli, ["datasets", "info", str(arff)])
        assert result.exit_code == 0, result.output
        assert [line for line in result.stderr.splitlines() if "using the XML" in line] == expected, parse_or_cache
    assert len(list(cache_dir().glob("*.npz"))) >= 1
