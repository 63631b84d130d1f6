"""The trivial baselines on a real dataset: what they predict, and that they ignore x."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import accuracy_score

from mlhidden.data import load_dataset
from mlhidden.methods.registry import make_method
from mlhidden.runs.metrics import evaluate


@pytest.fixture(scope="module")
def medical(mirror_dir):
    data = load_dataset("Medical", data_dir=mirror_dir)
    return data.X[:600], data.Y[:600], data.X[600:900], data.Y[600:900]


def test_all_zero_scores_the_fraction_of_absent_labels_on_medical(medical):
    X_train, Y_train, X_test, Y_test = medical
    predicted = make_method("AllZero").fit(X_train, Y_train).predict(X_test)
    assert not predicted.any()
    hamming = evaluate(Y_test, predicted)["hamming_score"]
    assert hamming == pytest.approx(1 - Y_test.mean()) and hamming > 0.95, "the paper's Medical BR (0.70) is below this"


def test_majority_is_the_best_x_free_hamming_and_the_most_frequent_set_the_best_x_free_exact_match(medical):
    X_train, Y_train, X_test, _ = medical
    majority = make_method("Majority").fit(X_train, Y_train)
    np.testing.assert_array_equal(majority.predict(X_test[:1])[0], Y_train.mean(axis=0) >= 0.5)
    np.testing.assert_allclose(majority.predict_proba(X_test), np.tile(Y_train.mean(axis=0), (X_test.shape[0], 1)))

    most_frequent = make_method("MostFrequentSet").fit(X_train, Y_train)
    vectors, counts = np.unique(Y_train, axis=0, return_counts=True)
    assert accuracy_score(Y_train, most_frequent.predict(X_train)) == pytest.approx(counts.max() / len(Y_train))
    assert counts.max() > counts[np.argsort(counts)[-2]], "this slice's most frequent vector is unique"
    shuffled = X_test[np.random.RandomState(0).permutation(X_test.shape[0])]
    np.testing.assert_array_equal(most_frequent.predict(shuffled), most_frequent.predict(X_test))
