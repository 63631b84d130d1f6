"""Mulan datasets are pairs, an ARFF file and its XML label file: each pair loads as it is published.

The hand-made corpus (tests/fixtures/mulan/) carries the quirks of Mulan's published files: label
names with escaped quotes and backslashes, spaces and non-ASCII (delicious), labels nested in a
hierarchy (enron), CRLF line ends, sparse rows, names starting with digits (medical), split files
named apart from their XML (scene-train.arff with scene.xml, tmc2007-500-train.arff with
tmc2007.xml). The real pairs are read through ``mlhidden datasets info``: the upstream copies the
project ships, and the shared mirror's when this checkout has one (CI has not).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from mlhidden.cli import cli
from mlhidden.data import read_arff
from mlhidden.data.arff.mulan import ARFF_SUFFIXES, read_label_names, xml_beside
from mlhidden.data.catalog import SHIPPED_DIR

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "mulan"
SHARED_UPSTREAM = SHIPPED_DIR.parents[1] / "shared" / "datasets" / "upstream"
CORPUS_LABELS = {
    "escaped.arff": (
        ("TAG_m'usica", "TAG_dise\\~no", "back\\slash", "two words", "naïve ünïcode", "TAG_日本", 'say "hi"',
         "TAG_??", "it's"),
        [[1, 0, 1, 0, 1, 0, 1, 0, 1], [0, 1, 0, 1, 0, 1, 0, 1, 0], [1] * 9],
    ),
    "hierarchy.arff": (("A", "A.A1", "A.A2", "B"), [[1, 1, 0, 0], [1, 0, 1, 1], [0, 0, 0, 1]]),
    "tmc-500-train.arff": (("10", "11", "12"), [[1, 0, 0], [0, 1, 1], [0, 0, 0], [1, 0, 1]]),
    "plain.arff": (("y1", "y2"), [[1, 0], [0, 1]]),
}


def _info(arff: Path) -> str:
    result = CliRunner().invoke(cli, ["datasets", "info", str(arff)])
    assert result.exit_code == 0, result.output
    return result.output


def _shown(output: str, key: str) -> str:
    return next(line for line in output.splitlines() if line.startswith(key + " ")).split(None, 1)[1].strip()


@pytest.mark.parametrize("file", sorted(CORPUS_LABELS))
def test_each_hand_made_mulan_pair_loads_with_its_labels(file):
    names, Y = CORPUS_LABELS[file]
    data = read_arff(CORPUS / file, labels_xml=xml_beside(CORPUS / file))
    assert data.label_names == names
    np.testing.assert_array_equal(data.Y, Y)
    assert _shown(_info(CORPUS / file), "labels") == ", ".join(names)


def test_the_corpus_holds_every_pair_and_nothing_else():
    arff_files = sorted(path.name for path in CORPUS.iterdir() if path.name.endswith(ARFF_SUFFIXES))
    assert arff_files == sorted(CORPUS_LABELS)
    assert {xml_beside(CORPUS / file) for file in arff_files} == set(CORPUS.glob("*.xml"))


def test_a_label_missing_from_the_arff_is_still_named_in_one_line(tmp_path):
    shutil.copy(CORPUS / "escaped.arff", tmp_path / "escaped.arff")
    (tmp_path / "escaped.xml").write_text(
        '<labels xmlns="http://mulan.sourceforge.net/labels"><label name="TAG_m\\\'usicas"/></labels>\n'
    )
    result = CliRunner().invoke(cli, ["datasets", "info", str(tmp_path / "escaped.arff")])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "TAG_m\\'usicas" in result.output


def test_an_xml_naming_one_attribute_escaped_and_unescaped_is_refused(tmp_path):
    shutil.copy(CORPUS / "escaped.arff", tmp_path / "escaped.arff")
    (tmp_path / "escaped.xml").write_text("<labels><label name=\"it's\"/><label name=\"it\\'s\"/></labels>\n")
    result = CliRunner().invoke(cli, ["datasets", "info", str(tmp_path / "escaped.arff")])
    assert result.exit_code == 2 and "twice" in result.output


def _real_pairs(folder: Path) -> list[Path]:
    return sorted(path for path in folder.iterdir() if path.name.lower().endswith(ARFF_SUFFIXES))


@pytest.mark.parametrize("arff", _real_pairs(SHIPPED_DIR / "upstream"), ids=lambda path: path.name)
def test_every_shipped_upstream_pair_loads_through_datasets_info(arff):
    xml = xml_beside(arff)
    assert xml is not None, f"no Mulan XML beside {arff.name}"
    output = _info(arff)
    assert int(_shown(output, "L")) == len(read_label_names(xml))


@pytest.mark.skipif(not SHARED_UPSTREAM.is_dir(), reason="no ../shared/datasets/upstream in this checkout")
def test_every_shared_upstream_pair_loads_through_datasets_info():
    pairs = _real_pairs(SHARED_UPSTREAM)
    assert pairs
    for arff in pairs:
        assert xml_beside(arff) is not None, f"no Mulan XML beside {arff.name}"
        _info(arff)
