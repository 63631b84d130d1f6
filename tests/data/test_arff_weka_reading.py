"""ARFF as Weka reads it: every real file the project ships reads as pinned, and every quoting form."""

from __future__ import annotations

import hashlib
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from mlhidden.data import read_arff
from mlhidden.data.catalog import SHIPPED_DIR

# What each real file reads as (arrays, names, dataset name), pinned from the reader before it streamed.
PINNED = {
    "Bibtex.arff.bz2": "1667c4d823c77bae",
    "Corel5k.arff.bz2": "25c27a9c45111216",
    "Enron.arff.bz2": "8123a1deed2c3328",
    "Logical.arff": "3722e1b206124e54",
    "Medical.arff.bz2": "32951c9595b0928d",
    "Music.arff.bz2": "fcd611fa0f8931ad",
    "OHSUMED.arff.bz2": "f2ce94e94a472c00",
    "Reuters-K500.arff.bz2": "0985a8e354785be0",
    "Scene.arff.bz2": "0755db687798c684",
    "Yeast.arff.bz2": "ab92cacdc9572829",
    "upstream/Corel5k-sparse.arff.bz2": "dfd98ab2f9c251bf",
    "upstream/bibtex.arff.bz2": "75fda28c88cfa687",
    "upstream/medical.arff.bz2": "ff9ae13fccb84390",
    "upstream/ohsumed.arff.bz2": "6e7f3c17ea7f91ad",
    "upstream/reuters-k500.arff.bz2": "0985a8e354785be0",
}


def digest(data) -> str:
    """A checksum of everything a read gives: X (dense or CSR), Y, the names and the form."""
    h = hashlib.sha256()
    X = sp.csr_matrix(data.X) if sp.issparse(data.X) else np.ascontiguousarray(data.X)
    for array in ([X.data, X.indices, X.indptr] if sp.issparse(X) else [X]) + [np.ascontiguousarray(data.Y)]:
        h.update(str(array.dtype).encode() + str(array.shape).encode())
        h.update(array.tobytes())
    h.update(repr((data.name, data.feature_names, data.label_names, sp.issparse(data.X))).encode())
    return h.hexdigest()[:16]


def test_every_real_file_is_pinned():
    shipped = sorted(str(p.relative_to(SHIPPED_DIR)) for p in SHIPPED_DIR.rglob("*.arff*"))
    assert shipped == sorted(PINNED)


@pytest.mark.parametrize("name", sorted(PINNED))
def test_real_files_read_as_pinned(name):
    path = SHIPPED_DIR / name
    xml = None
    if name.startswith("upstream/"):
        xml = path.parent / (path.name.split(".")[0].replace("-sparse", "") + ".xml")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert digest(read_arff(path, labels_xml=xml)) == PINNED[name]


def test_an_escaped_quote_in_an_unquoted_name_as_in_mulans_delicious(tmp_path):
    path = tmp_path / "delicious.arff"
    path.write_text(
        "@relation 'delicious: -C -2'\n@attribute w1 numeric\n@attribute TAG_m\\'usica {0,1}\n"
        "@attribute TAG_x {0,1}\n@data\n{0 3,1 1}\n{2 1}\n"
    )
    data = read_arff(path)
    assert data.label_names == ("TAG_m'usica", "TAG_x")
    assert data.Y.tolist() == [[1, 0], [0, 1]] and data.X.toarray().tolist() == [[3.0], [0.0]]


def test_tabs_are_whitespace_in_the_header_and_the_rows_as_in_weka(tmp_path):
    path = tmp_path / "tabs.arff"
    path.write_text(
        "\t@relation\t'tabs: -C 1'\t\n@attribute\ty\t{0,\t1}\n\t@attribute\t'x 1'\treal\n"
        "@attribute\tz numeric\n\t@data\n1\t0.5,\t2\n0,\t?\t,3\n"
    )
    spaced = tmp_path / "spaces.arff"
    spaced.write_text(
        "@relation 'tabs: -C 1'\n@attribute y {0,1}\n@attribute 'x 1' real\n@attribute z numeric\n@data\n"
        "1,0.5,2\n0,?,3\n"
    )
    assert digest(read_arff(path)) == digest(read_arff(spaced))
    assert read_arff(path).feature_names == ("x 1", "z")
