import numpy as np

from mlhidden.runs.splits import SplitRecipe, method_seed


def holdout(run_seed, name, index, n_samples, n_labels, shuffle_labels=True):
    """Holdout split ``index`` of a dataset of that shape, as a run's recipe makes it."""
    recipe = SplitRecipe(run_seed, index + 1, shuffle_labels=shuffle_labels)
    return recipe.splits(name, np.zeros((n_samples, n_labels)))[index]


def test_split_is_sixty_forty_partition_with_label_permutation():
    split = holdout(0, "Music", 3, 592, 6)
    assert len(split.train) == 355 and len(split.test) == 237
    assert np.array_equal(np.sort(np.concatenate([split.train, split.test])), np.arange(592))
    assert sorted(split.label_order) == list(range(6))


def test_split_depends_only_on_run_seed_dataset_and_index():
    a = holdout(7, "Scene", 2, 100, 6)
    b = holdout(7, "Scene", 2, 100, 6)
    assert np.array_equal(a.train, b.train) and np.array_equal(a.label_order, b.label_order)
    others = [holdout(8, "Scene", 2, 100, 6), holdout(7, "Yeast", 2, 100, 6), holdout(7, "Scene", 3, 100, 6)]
    assert all(not np.array_equal(a.train, o.train) for o in others)


def test_method_seed_is_shared_by_methods_but_not_by_splits():
    assert method_seed(0, "Music", 0) == method_seed(0, "Music", 0)
    assert method_seed(0, "Music", 0) != method_seed(0, "Music", 1)


def test_without_label_shuffling_the_labels_keep_their_order_and_the_rows_their_split():
    shuffled = holdout(7, "Scene", 2, 100, 6)
    fixed = holdout(7, "Scene", 2, 100, 6, shuffle_labels=False)
    assert fixed.label_order.tolist() == list(range(6)) and shuffled.label_order.tolist() != list(range(6))
    assert np.array_equal(fixed.train, shuffled.train) and np.array_equal(fixed.test, shuffled.test)
