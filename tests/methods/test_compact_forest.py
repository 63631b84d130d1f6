"""BR_RF's compact forest: the forest's own predictions, bit for bit, in a fraction of the memory."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
from sklearn.neighbors import KNeighborsClassifier

from mlhidden.data import load_dataset
from mlhidden.methods import ForestBR
from mlhidden.methods.compact_forest import CompactForest
from mlhidden.runs.splits import SplitRecipe


def split_of(name, mirror_dir):
    data = load_dataset(name, data_dir=mirror_dir)
    split = SplitRecipe(0, 1).splits(name, data.Y)[0]
    Y = data.Y[:, split.label_order]
    return data.X[split.train], Y[split.train], data.X[split.test]


def compact_and_full(estimator, X_train, Y_train, X_test, seed=3):
    fitted = [
        ForestBR(estimator, compact=compact, random_state=seed).fit(X_train, Y_train) for compact in (True, False)
    ]
    return fitted, [(m.predict(X_test), m.predict_proba(X_test)) for m in fitted]


@pytest.mark.parametrize("dataset", ["Music", "Medical"])  # dense; sparse with constant labels
@pytest.mark.parametrize(
    "estimator",
    [
        None,
        RandomForestClassifier(n_estimators=25, min_samples_leaf=2),
        ExtraTreesClassifier(n_estimators=7, max_features=0.5),
    ],
    ids=["default", "25-trees-min-leaf-2", "extra-trees-7"],
)
def test_compact_forest_predicts_exactly_what_the_forest_predicts(dataset, estimator, mirror_dir):
    X_train, Y_train, X_test = split_of(dataset, mirror_dir)
    (compact, full), ((hard, proba), (full_hard, full_proba)) = compact_and_full(estimator, X_train, Y_train, X_test)
    assert isinstance(compact.estimator_, CompactForest) and not isinstance(full.estimator_, CompactForest)
    np.testing.assert_array_equal(hard, full_hard)
    np.testing.assert_array_equal(proba, full_proba)
    assert len(compact.estimator_.skeletons) == full.estimator_.n_estimators


def test_compact_forest_is_a_fraction_of_the_forest(mirror_dir):
    X_train, Y_train, X_test = split_of("Medical", mirror_dir)
    (compact, full), _ = compact_and_full(None, X_train, Y_train, X_test)
    compact_bytes, full_bytes = len(pickle.dumps(compact)), len(pickle.dumps(full))
    assert compact_bytes < 0.2 * full_bytes, (compact_bytes, full_bytes)
    restored = pickle.loads(pickle.dumps(compact))
    np.testing.assert_array_equal(restored.predict(X_test), compact.predict(X_test))


def test_labels_constant_in_training_and_a_single_label(mirror_dir):
    X_train, Y_train, X_test = split_of("Music", mirror_dir)
    Y = Y_train[:, :3].copy()
    Y[:, 1], Y[:, 2] = 0, 1
    predictions = {}
    for width in (3, 1):
        _, ((hard, proba), (full_hard, full_proba)) = compact_and_full(None, X_train, Y[:, :width], X_test)
        np.testing.assert_array_equal(hard, full_hard)
        np.testing.assert_array_equal(proba, full_proba)
        predictions[width] = hard, proba
    hard, proba = predictions[3]
    assert (hard[:, 1] == 0).all() and (hard[:, 2] == 1).all() and (proba[:, 1] == 0).all() and (proba[:, 2] == 1).all()
    assert predictions[1][0].shape == (X_test.shape[0], 1)


def test_other_multi_output_models_are_kept_as_they_are(mirror_dir):
    X_train, Y_train, X_test = split_of("Music", mirror_dir)
    model = ForestBR(KNeighborsClassifier(), random_state=0).fit(X_train, Y_train)
    assert isinstance(model.estimator_, KNeighborsClassifier)
    np.testing.assert_array_equal(model.predict(X_test), KNeighborsClassifier().fit(X_train, Y_train).predict(X_test))


@pytest.mark.parametrize("dataset", ["Enron", "OHSUMED", "Bibtex"])
def test_br_rf_grown_on_dense_float32_is_the_forest_grown_on_sparse_x_bit_for_bit(dataset, monkeypatch):
    from mlhidden.methods import forest

    data = load_dataset(dataset)
    X, Y, test = data.X[:1500], data.Y[:1500], data.X[1500:2000]
    assert X.nnz >= forest.DENSE_FROM_DENSITY * X.shape[0] * X.shape[1], "dense enough to be grown dense"
    dense = ForestBR(estimator={"name": "random_forest", "params": {"n_estimators": 10}}, random_state=5).fit(X, Y)
    monkeypatch.setattr(forest, "DENSE_FROM_DENSITY", 2.0)
    grown_sparse = ForestBR(estimator={"name": "random_forest", "params": {"n_estimators": 10}}, random_state=5).fit(
        X, Y
    )
    for ours, theirs in zip(dense.estimator_.skeletons, grown_sparse.estimator_.skeletons):
        assert np.array_equal(ours.feature, theirs.feature) and np.array_equal(ours.threshold, theirs.threshold)
    assert np.array_equal(dense.predict_proba(test), grown_sparse.predict_proba(test))


def test_a_sparse_x_under_the_density_threshold_is_grown_as_it_is():
    from mlhidden.methods.forest import forest_input

    X = load_dataset("Corel5k").X
    assert forest_input(X) is X
    assert isinstance(forest_input(load_dataset("Enron").X), np.ndarray)
