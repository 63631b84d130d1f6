"""CCASL+AML's most common label combinations, counted in one pass, are np.unique's, ties included."""

from __future__ import annotations

import numpy as np
import pytest

from mlhidden.data import load_dataset
from mlhidden.methods.hidden_units import _most_common_rows, draw_label_subsets, most_common_combinations


@pytest.mark.parametrize("name", ["Music", "Scene", "Medical"])
def test_one_bincount_over_every_subset_finds_the_combinations_np_unique_finds(name):
    Y = load_dataset(name).Y
    rng = np.random.RandomState(0)
    for size in (1, 2, 3, 5):
        subsets = draw_label_subsets(2 * Y.shape[1], Y.shape[1], size, rng)
        np.testing.assert_array_equal(most_common_combinations(Y, subsets), _most_common_rows(Y, subsets))


def test_a_tie_goes_to_the_combination_np_unique_sorts_first():
    Y = np.array([[1, 0], [1, 0], [0, 1], [0, 1], [1, 1]], dtype=np.int8)
    subsets = np.array([[0, 1], [1, 0]])
    assert most_common_combinations(Y, subsets).tolist() == [[0, 1], [0, 1]] == _most_common_rows(Y, subsets).tolist()


def test_subsets_with_more_combinations_than_rows_get_theirs_without_a_table_of_every_combination():
    Y = load_dataset("Medical").Y[:300]
    subsets = draw_label_subsets(4, Y.shape[1], 40, np.random.RandomState(2))  # 2^40 combinations
    combinations = most_common_combinations(Y, subsets)
    assert combinations.shape == (4, 40)
    np.testing.assert_array_equal(combinations, _most_common_rows(Y, subsets))
