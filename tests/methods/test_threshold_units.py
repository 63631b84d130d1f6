"""The cascaded threshold units computed block by block are the units of the plain cascade."""

from __future__ import annotations

import numpy as np

from mlhidden.data import load_dataset
from mlhidden.methods.hidden_units import CASCADE_BLOCK, ThresholdUnits


def plain_cascade(units: ThresholdUnits, X, thresholds=None):
    """z_k = [a_k(x) + sum_{i<k} w_ki z_i > t_k], unit after unit (Section 4.1), on the fitted weights and scaling."""
    n_features = units.n_features_in_
    x_weights = units.weights_[:, :n_features] / units.scale_
    activations = np.asarray(X @ x_weights.T) - units.offset_ @ x_weights.T
    Z = np.zeros((X.shape[0], units.n_units))
    fitted = np.zeros(units.n_units)
    for k in range(units.n_units):
        a = activations[:, k] + Z[:, :k] @ units.weights_[k, n_features : n_features + k]
        fitted[k] = (
            a.mean() + units.threshold_std * a.std() * thresholds[k] if thresholds is not None else units.thresholds_[k]
        )
        Z[:, k] = a > fitted[k]
    return Z.astype(np.int8), fitted


def test_units_across_block_boundaries_are_the_plain_cascade(mirror_dir):
    data = load_dataset(mirror_dir / "Medical.arff")
    n_units = 2 * CASCADE_BLOCK + 22
    units = ThresholdUnits(n_units=n_units, random_state=0)
    train = units.fit_transform(data.X[:600])
    noise = np.random.RandomState(0)
    (
        noise.normal(size=units.weights_.shape),
        noise.random_sample(units.weights_.shape),
    )  # the draws before the threshold noise
    expected, thresholds = plain_cascade(units, data.X[:600], noise.standard_normal(n_units))
    np.testing.assert_array_equal(train, expected)
    np.testing.assert_allclose(units.thresholds_, thresholds, rtol=0, atol=1e-12)
    assert 0.2 < train.mean() < 0.8
    np.testing.assert_array_equal(units.transform(data.X[600:]), plain_cascade(units, data.X[600:])[0])
