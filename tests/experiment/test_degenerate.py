"""Every registered method on degenerate data: it completes and ``predict_proba`` has shape (n, L).

Real data is full of these: Corel5k splits leave labels unseen in training, MEKA files carry
constant or nominal columns, users' files have missing values. ``METHODS`` is iterated, so a newly
registered method is covered without touching this file.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import scipy.sparse as sp

from mlhidden.data import read_arff
from mlhidden.experiment.config import parse_config
from mlhidden.experiment.parallel_units import run_unit
from mlhidden.methods.registry import METHODS, make_method
from mlhidden.runs.splits import make_split

N_TRAIN, N_TEST, N_FEATURES, N_LABELS = 24, 10, 4, 3


def _random_problem(n_labels=N_LABELS, seed=0):
    """Learnable labels (thresholds of feature sums) so the non-degenerate parts are ordinary."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(N_TRAIN + N_TEST, N_FEATURES))
    Y = (X[:, :n_labels] + 0.3 * rng.normal(size=(N_TRAIN + N_TEST, n_labels)) > 0).astype(np.int8)
    return X, Y


def constant_labels_in_training():
    X, Y = _random_problem()
    Y[:N_TRAIN, 0], Y[:N_TRAIN, 1] = 1, 0
    return X, Y


def single_label():
    return _random_problem(n_labels=1)


def all_zero_label_rows():
    X, Y = _random_problem()
    Y[::2] = 0
    return X, Y


def no_labels_at_all():
    X, Y = _random_problem()
    return X, np.zeros_like(Y)


def duplicate_rows():
    X, Y = _random_problem()
    return np.repeat(X[:6], 6, axis=0)[: N_TRAIN + N_TEST], np.repeat(Y[:6], 6, axis=0)[: N_TRAIN + N_TEST]


def conflicting_duplicates():
    """The same x with different label vectors: no model can fit the training data."""
    _, Y = _random_problem()
    return np.ones((N_TRAIN + N_TEST, N_FEATURES)), Y


def constant_features():
    X, Y = _random_problem()
    X[:, :2] = 3.5
    X[:, 2] = 0.0
    return X, Y


def all_zero_features():
    _, Y = _random_problem()
    return np.zeros((N_TRAIN + N_TEST, N_FEATURES)), Y


def label_only_in_test():
    X, Y = _random_problem()
    Y[:N_TRAIN, 2] = 0
    Y[N_TRAIN:, 2] = 1
    return X, Y


def sparse_with_empty_rows():
    X, Y = _random_problem()
    X[X < 0.5] = 0.0
    X[:5] = 0.0
    return sp.csr_matrix(X), Y


CASES = {
    case.__name__: case
    for case in (
        constant_labels_in_training, single_label, all_zero_label_rows, no_labels_at_all, duplicate_rows,
        conflicting_duplicates, constant_features, all_zero_features, label_only_in_test, sparse_with_empty_rows,
    )
}

# (method, case) pairs that crash today, each with the error seen: the methods engineer fixes them.
KNOWN_FAILURES: dict[tuple[str, str], str] = {}


def _method_case_pairs():
    for method in METHODS:
        for case in CASES:
            known = KNOWN_FAILURES.get((method, case))
            marks = [pytest.mark.xfail(strict=True, reason=known)] if known else []
            yield pytest.param(method, case, id=f"{method}-{case}", marks=marks)


def assert_probabilities(proba, n_rows, n_labels):
    proba = np.asarray(proba)
    assert proba.shape == (n_rows, n_labels)
    assert np.isfinite(proba).all() and (proba >= 0).all() and (proba <= 1).all()


@pytest.mark.parametrize("method, case", list(_method_case_pairs()))
def test_method_completes_on_degenerate_data(method, case):
    X, Y = CASES[case]()
    estimator = make_method(method, random_state=0)
    estimator.fit(X[:N_TRAIN], Y[:N_TRAIN])
    assert_probabilities(estimator.predict_proba(X[N_TRAIN:]), N_TEST, Y.shape[1])
    predicted = np.asarray(estimator.predict(X[N_TRAIN:]))
    assert predicted.shape == (N_TEST, Y.shape[1]) and np.isin(predicted, (0, 1)).all()


NOMINAL_ARFF = """\
@relation 'Nominal: -C 2'
@attribute l1 {0,1}
@attribute l2 {0,1}
@attribute colour {red,green,blue}
@attribute flag {0,1}
@attribute reversed {1,0}
@attribute size numeric
@data
"""


@pytest.fixture(scope="module")
def nominal_dataset(tmp_path_factory):
    """A real ARFF file with one-hot, binary-by-name and missing nominal values, read by the real reader."""
    rng = np.random.RandomState(1)
    colours = np.array(["red", "green", "blue", "?"])
    rows = []
    for _ in range(N_TRAIN + N_TEST):
        colour = colours[rng.randint(4)]
        l1, l2 = int(colour == "red"), int(rng.rand() < 0.4)
        rows.append(f"{l1},{l2},{colour},{rng.randint(2)},{rng.randint(2)},{rng.normal():.3f}")
    path = tmp_path_factory.mktemp("nominal") / "nominal.arff"
    path.write_text(NOMINAL_ARFF + "\n".join(rows) + "\n")
    return read_arff(path)


@pytest.mark.parametrize("method", list(METHODS))
def test_method_completes_on_nominal_features_from_arff(method, nominal_dataset):
    X, Y = nominal_dataset.X, nominal_dataset.Y
    assert nominal_dataset.feature_names == ("colour=red", "colour=green", "colour=blue", "flag", "reversed", "size")
    assert np.isnan(X).any(), "a '?' colour is missing in all its one-hot columns"
    X = np.where(np.isnan(X), 0.0, X)
    estimator = make_method(method, random_state=0).fit(X[:N_TRAIN], Y[:N_TRAIN])
    assert_probabilities(estimator.predict_proba(X[N_TRAIN:]), N_TEST, 2)


@pytest.mark.parametrize("method", list(METHODS))
def test_method_completes_on_nan_features_through_the_runner(method):
    """The runner imputes NaN with training means; a column missing in every training row still works."""
    X, Y = _random_problem()
    X[::3, 0] = np.nan
    X[:, 3] = np.nan
    split = dataclasses.replace(make_split(len(Y), Y.shape[1], seed=5), method_seed=0)
    spec = parse_config({"datasets": ["Logical"], "methods": [method]}).methods[0]
    result = run_unit(X, Y, split, spec)
    assert result.status == "ok", result.error
    assert result.exact_match is not None and 0.0 <= result.exact_match <= 1.0
