"""The generated Logical dataset (paper Table 2) and its committed ARFF copy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mlhidden.data import load_dataset, make_logical, read_arff, write_arff
from mlhidden.data.generators import GENERATORS
from mlhidden.errors import UserError

LOGICAL_ARFF = Path(__file__).resolve().parents[2] / "datasets" / "Logical.arff"

# Paper Table 2: X1, X2 -> OR, AND, XOR.
TABLE_2 = [((0, 0), (0, 0, 0)), ((0, 1), (1, 0, 1)), ((1, 0), (1, 0, 1)), ((1, 1), (1, 1, 0))]


def test_logical_is_table_2_with_each_row_five_times():
    data = make_logical()
    assert data.name == "Logical"
    assert data.feature_names == ("X1", "X2") and data.label_names == ("OR", "AND", "XOR")
    assert data.X.dtype == np.float64 and isinstance(data.X, np.ndarray)
    assert data.Y.dtype == np.int8
    expected_X = np.repeat([row[0] for row in TABLE_2], 5, axis=0)
    expected_Y = np.repeat([row[1] for row in TABLE_2], 5, axis=0)
    np.testing.assert_array_equal(data.X, expected_X)
    np.testing.assert_array_equal(data.Y, expected_Y)
    assert data.label_cardinality == 1.5


def test_jitter_is_seeded_and_leaves_labels_alone():
    state = np.random.get_state()[1].copy()
    first = make_logical(jitter=0.1, random_state=3)
    again = make_logical(jitter=0.1, random_state=3)
    other = make_logical(jitter=0.1, random_state=4)
    np.testing.assert_array_equal(first.X, again.X)
    assert not np.array_equal(first.X, other.X)
    np.testing.assert_array_equal(first.Y, make_logical().Y)
    assert 0 < np.abs(first.X - make_logical().X).max() < 1.0
    np.testing.assert_array_equal(np.random.get_state()[1], state)


@pytest.mark.parametrize("jitter", [-0.1, float("nan"), "0.1", True])
def test_bad_jitter_is_a_user_error(jitter):
    with pytest.raises(UserError, match="jitter"):
        make_logical(jitter=jitter)


def test_load_dataset_passes_params_to_the_generator():
    assert GENERATORS["Logical"] is make_logical
    data = load_dataset("logical", params={"jitter": 0.2, "random_state": 0})
    np.testing.assert_array_equal(data.X, make_logical(jitter=0.2, random_state=0).X)
    assert data.params == {"jitter": 0.2, "random_state": 0}
    with pytest.raises(UserError, match="jitter, random_state"):
        load_dataset("Logical", params={"noise": 1})


def test_committed_logical_arff_reads_back_as_the_generator(tmp_path):
    data = read_arff(LOGICAL_ARFF)
    generated = make_logical()
    assert data.name == "Logical" and data.n_labels == 3
    assert (data.feature_names, data.label_names) == (generated.feature_names, generated.label_names)
    np.testing.assert_array_equal(data.X, generated.X)
    np.testing.assert_array_equal(data.Y, generated.Y)
    rewritten = tmp_path / "Logical.arff"
    write_arff(generated, rewritten)
    assert rewritten.read_bytes() == LOGICAL_ARFF.read_bytes(), (
        "datasets/Logical.arff is stale: regenerate it with write_arff(make_logical(), ...)"
    )
    assert LOGICAL_ARFF.read_text().startswith("@relation 'Logical: -C 3'")
