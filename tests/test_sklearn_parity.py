"""BR and CC against scikit-learn's own MultiOutputClassifier and ClassifierChain, same split."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.multioutput import ClassifierChain, MultiOutputClassifier

from mlhidden.data import load_dataset
from mlhidden.experiment.metrics import exact_match
from mlhidden.experiment.splits import split_for
from mlhidden.methods import BR, CC


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


@pytest.mark.parametrize("name", ["Music", "Scene", "Medical"])
def test_br_and_cc_match_scikit_learn_on_split_0(name, mirror_dir):
    data = load_dataset(name, data_dir=mirror_dir)
    split = split_for(0, data.name, 0, data.n_samples, data.n_labels)
    X_train, X_test = data.X[split.train], data.X[split.test]
    Y_train = data.Y[split.train][:, split.label_order]
    Y_test = data.Y[split.test][:, split.label_order]

    ours_br = exact_match(Y_test, BR().fit(X_train, Y_train).predict(X_test))
    peer_br = exact_match(Y_test, MultiOutputClassifier(ConstantSafeLogistic()).fit(X_train, Y_train).predict(X_test))
    assert abs(ours_br - peer_br) <= 0.005, (ours_br, peer_br)

    ours_cc = exact_match(Y_test, CC().fit(X_train, Y_train).predict(X_test))
    chain = ClassifierChain(ConstantSafeLogistic(), order=list(range(data.n_labels)))
    peer_cc = exact_match(Y_test, chain.fit(X_train, Y_train).predict(X_test).astype(int))
    assert abs(ours_cc - peer_cc) <= 0.005, (ours_cc, peer_cc)
    assert 0 < ours_cc < 1
