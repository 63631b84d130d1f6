"""Binary relevance: one independent base model per label."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from joblib import Parallel, delayed
from numpy.typing import ArrayLike
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from mlhidden.data.dataset import Matrix, RandomStateLike
from mlhidden.methods.base import MultiLabelClassifier
from mlhidden.methods.base_learners import fit_binary, positive_proba, predict_labels
from mlhidden.methods.solvers.logistic_models import batchable_logistic, fit_logistic_models

if TYPE_CHECKING:
    from typing_extensions import Self


class BR(MultiLabelClassifier):
    """Binary relevance (BR): one base classifier per label, each ignoring the others.

    The baseline of the paper (Section 1, Table 6). A label that is constant in the training
    data gets a constant model rather than an error. With a plain logistic base learner all
    labels are fitted as one batched problem (:mod:`~mlhidden.methods.solvers.batched_logistic`).

    Parameters
    ----------
    estimator : estimator, str, dict or None, default=None
        The base learner: an unfitted scikit-learn classifier, or a base-learner spec
        (``"logistic"``, ``{name: random_forest, params: {...}}``); None means ``"logistic"``.
    n_jobs : int or None, default=None
        Labels fitted in parallel (joblib); results do not depend on it.
    random_state : int, RandomState or None, default=None
        Seeds each label's base learner (one draw per label, in label order).

    Attributes
    ----------
    estimators_ : list of fitted classifiers, one per label.
    n_labels_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from mlhidden.methods import BR
    >>> X = np.array([[0., 0.], [0., 1.], [1., 0.], [1., 1.]] * 5)
    >>> Y = np.array([[0, 0], [1, 0], [1, 0], [1, 1]] * 5)
    >>> BR().fit(X, Y).predict(X[:4]).tolist()
    [[0, 0], [1, 0], [1, 0], [1, 1]]
    """

    # Whether batched logistic models fit in centred coordinates (same optimum; CCASL's output layer does).
    _center_inputs = False

    def __init__(
        self, estimator: object = None, *, n_jobs: int | None = None, random_state: RandomStateLike = None
    ) -> None:
        self.estimator = estimator
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X: Matrix, Y: ArrayLike) -> Self:
        X, Y = self._fit_input(X, Y)
        rng = check_random_state(self.random_state)
        seeds = rng.randint(np.iinfo(np.int32).max, size=Y.shape[1])
        if batchable_logistic(self.estimator):
            self.estimators_ = fit_logistic_models(self.estimator, X, Y, seeds, center=self._center_inputs)
        else:
            self.estimators_ = Parallel(n_jobs=self.n_jobs)(
                delayed(fit_binary)(self.estimator, X, Y[:, j], np.random.RandomState(seeds[j]))
                for j in range(Y.shape[1])
            )
        self.n_labels_ = Y.shape[1]
        return self

    def predict_proba(self, X: Matrix) -> np.ndarray:
        check_is_fitted(self)
        X = self._check_X(X, reset=False)
        return np.column_stack([positive_proba(model, X) for model in self.estimators_])

    def predict(self, X: Matrix) -> np.ndarray:
        check_is_fitted(self)
        X = self._check_X(X, reset=False)
        return predict_labels(self.estimators_, X)
