"""BR and CC against scikit-learn's own MultiOutputClassifier and ClassifierChain, same split.

Our logistic fits solve scikit-learn's objective (C=1, unpenalised intercept) for all labels at
once and stop on a per-label gradient tolerance; scikit-learn's lbfgs at its default tol=1e-4
can stop earlier. So the peer is compared twice: at its defaults (exact match within 0.01,
>= 99.5 % identical label decisions) and converged (tol=1e-8: exact match within 0.005).
"""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.multioutput import ClassifierChain, MultiOutputClassifier

from mlhidden.data import load_dataset
from mlhidden.methods import BR, CC
from mlhidden.runs.metrics import exact_match
from mlhidden.runs.splits import SplitRecipe


class ConstantSafeLogistic(LogisticRegression):
    """scikit-learn's LogisticRegression, except that a one-class target predicts that class.

    Medical's split 0 has labels with no positive training example, which scikit-learn's own
    estimators refuse; the peer gets the same constant fallback as ours so the rest is compared.
    """

    def fit(self, X, y):
        self.constant_ = None
        if np.unique(y).size < 2:
            self.constant_, self.classes_ = y[0], np.unique(y)
            return self
        return super().fit(X, y)

    def predict(self, X):
        if self.constant_ is not None:
            return np.full(X.shape[0], self.constant_)
        return super().predict(X)


def _peer_predictions(data, X_train, Y_train, X_test, **logistic):
    br = MultiOutputClassifier(ConstantSafeLogistic(**logistic)).fit(X_train, Y_train).predict(X_test)
    chain = ClassifierChain(ConstantSafeLogistic(**logistic), order=list(range(data.n_labels)))
    return br, chain.fit(X_train, Y_train).predict(X_test).astype(int)


@pytest.mark.parametrize("name", ["Music", "Scene", "Medical"])
def test_br_and_cc_match_scikit_learn_on_split_0(name, mirror_dir):
    data = load_dataset(name, data_dir=mirror_dir)
    split = SplitRecipe(0, 1).splits(data.name, data.Y)[0]
    X_train, X_test = data.X[split.train], data.X[split.test]
    Y_train = data.Y[split.train][:, split.label_order]
    Y_test = data.Y[split.test][:, split.label_order]
    ours = (BR().fit(X_train, Y_train).predict(X_test), CC().fit(X_train, Y_train).predict(X_test))

    default = _peer_predictions(data, X_train, Y_train, X_test)
    converged = _peer_predictions(data, X_train, Y_train, X_test, tol=1e-8, max_iter=10_000)
    for mine, peer_default, peer_converged in zip(ours, default, converged):
        assert abs(exact_match(Y_test, mine) - exact_match(Y_test, peer_converged)) <= 0.005
        assert abs(exact_match(Y_test, mine) - exact_match(Y_test, peer_default)) <= 0.01
        assert np.mean(mine == peer_default) >= 0.995
    assert 0 < exact_match(Y_test, ours[1]) < 1
