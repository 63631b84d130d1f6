"""Classifier chains augmented with synthetic labels (CCASL) and its stacked variants (Section 4)."""

from __future__ import annotations

from numbers import Integral, Real
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils import check_random_state

from mlhidden.data.dataset import Matrix, RandomStateLike
from mlhidden.methods.base import MultiLabelClassifier
from mlhidden.methods.base_learners import ESTIMATOR_CONSTRAINT, draw_seed
from mlhidden.methods.br import BR
from mlhidden.methods.cc import CC
from mlhidden.methods.hidden_units import (
    SCALING_OPTIONS,
    ThresholdUnits,
    draw_label_subsets,
    meta_labels,
    most_common_combinations,
)
from mlhidden.methods.pcc import INFERENCE_CONSTRAINTS, PCC
from mlhidden.methods.sklearn_api import Interval, StrOptions
from mlhidden.methods.stacking import STACK_CONSTRAINTS, StackedBR

if TYPE_CHECKING:
    from typing_extensions import Self

SYNTHETIC_CONSTRAINTS = {
    "estimator": ESTIMATOR_CONSTRAINT,
    "n_synthetic": [None, Interval(Integral, 0, None, closed="left")],
    "weight_std": [Interval(Real, 0, None, closed="neither")],
    "connectivity": [Interval(Real, 0, 1, closed="right")],
    "threshold_std": [Interval(Real, 0, None, closed="left")],
    "input_scaling": [SCALING_OPTIONS, None],
}


class SyntheticChain(CC):
    """CC over ``[z, y]`` whose logistic links fit in centred coordinates.

    The synthetic labels are about half ones and separable, which makes L-BFGS crawl in the
    original coordinates (most links stopped at ``max_iter``); centred, the same problem
    converges in about half the iterations, to the same optimum (see
    :func:`~mlhidden.methods.solvers.batched_logistic.fit_batched_logistic`).
    """

    _center_inputs = True


class SyntheticPCC(PCC):
    """PCC over ``[z, y]`` with :class:`SyntheticChain`'s links."""

    _center_inputs = True


class SyntheticBR(BR):
    """BR whose logistic models fit in centred coordinates: CCASL+BR's output layer.

    It sees the chain's predicted synthetic labels, about half ones, which slow L-BFGS down in
    the original coordinates as they slow the chain's links (see :class:`SyntheticChain`).
    """

    _center_inputs = True


class SyntheticLabelsMixin:
    """Builds the cascaded synthetic labels z_1..z_K of Section 4.1 from the estimator's parameters.

    Every CCASL variant calls this first in ``fit``, so for the same ``random_state`` they all
    build the same synthetic layer.
    """

    n_synthetic: int | None
    weight_std: float
    connectivity: float
    threshold_std: float
    input_scaling: str | None

    def _synthetic_labels(self, X: Matrix, n_labels: int, rng: np.random.RandomState) -> np.ndarray:
        """Fit ``units_`` (K = n_synthetic, default L) on X and return z on the training rows."""
        n_units = n_labels if self.n_synthetic is None else self.n_synthetic
        self.units_ = ThresholdUnits(
            n_units=n_units,
            cascade=True,
            weight_std=self.weight_std,
            connectivity=self.connectivity,
            threshold_std=self.threshold_std,
            input_scaling=self.input_scaling,
            random_state=draw_seed(rng),
        )
        self.n_synthetic_ = n_units
        return self.units_.fit_transform(X)


class CCASL(SyntheticLabelsMixin, MultiLabelClassifier):
    """Classifier chain augmented with synthetic labels (CCASL, Section 4.1).

    K random cascaded threshold units of x (see :class:`~mlhidden.methods.hidden_units.ThresholdUnits`)
    become synthetic labels z_1..z_K placed before the real labels; a classifier chain is trained
    on ``[z_1..z_K, y_1..y_L]`` (labels in the order given) and its last L outputs are the
    prediction. The synthetic labels of test rows are predicted by the chain like any label.
    With ``inference="mc"`` this is PCCASL (Figs. 11 and 12): the chain over [z, y] is searched by
    Monte-Carlo sampling as in :class:`~mlhidden.methods.PCC`.

    Parameters
    ----------
    estimator : estimator, str, dict or None, default=None
        The base learner or a base-learner spec; None means ``"logistic"``.
    n_synthetic : int or None, default=None
        Number of synthetic labels K; None means L (the paper's K = L).
    weight_std : float, default=0.2
        Standard deviation of the random weights (the paper's N(0, 0.2); immaterial for TLUs).
    connectivity : float, default=0.9
        Probability that a weight is kept (the paper's Bernoulli(0.9) mask).
    threshold_std : float, default=0.1
        Threshold noise as a fraction of the activation's standard deviation.
    input_scaling : {"auto", "standard", "maxabs"} or None, default="auto"
        Scaling of x before the random projection ("auto": standard if dense, max-abs if sparse).
    inference : {"greedy", "mc", "exact"}, default="greedy"
        Greedy CC inference (CCASL), Monte-Carlo search (PCCASL) or exhaustive search.
    n_samples : int, default=50
        Monte-Carlo samples per test row (``inference="mc"``).
    max_exact_labels : int, default=16
        Longest chain (K + L) that ``inference="exact"`` accepts.
    n_jobs : int or None, default=None
        Chain links fitted in parallel.
    random_state : int, RandomState or None, default=None
        Seeds the synthetic layer (drawn first), then the chain.

    Attributes
    ----------
    units_ : ThresholdUnits, the fitted synthetic layer.
    n_synthetic_ : int, K.
    chain_ : CC or PCC, the chain over [z, y].

    References
    ----------
    Paper Section 4.1 and Fig. 7; Figs. 11-12 (PCCASL); Tables 7-8.

    Examples
    --------
    >>> import numpy as np
    >>> from mlhidden.methods import CCASL
    >>> X = np.array([[0., 0.], [0., 1.], [1., 0.], [1., 1.]] * 5)
    >>> Y = np.array([[0, 0, 0], [1, 0, 1], [1, 0, 1], [1, 1, 0]] * 5)  # OR, AND, XOR
    >>> CCASL(random_state=0).fit(X, Y).predict(X[:4]).shape
    (4, 3)
    """

    _parameter_constraints = {
        **SYNTHETIC_CONSTRAINTS,
        **INFERENCE_CONSTRAINTS,
        "inference": [StrOptions({"greedy", "mc", "exact"})],
    }

    def __init__(
        self, estimator: object = None, *, n_synthetic: int | None = None, weight_std: float = 0.2,
        connectivity: float = 0.9, threshold_std: float = 0.1, input_scaling: str | None = "auto",
        inference: str = "greedy",
        n_samples: int = 50, max_exact_labels: int = 16, n_jobs: int | None = None,
        random_state: RandomStateLike = None,
    ) -> None:
        self.estimator = estimator
        self.n_synthetic = n_synthetic
        self.weight_std = weight_std
        self.connectivity = connectivity
        self.threshold_std = threshold_std
        self.input_scaling = input_scaling
        self.inference = inference
        self.n_samples = n_samples
        self.max_exact_labels = max_exact_labels
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _needs_probabilities(self) -> bool:
        return bool(self.inference != "greedy")

    def fit(self, X: Matrix, Y: ArrayLike) -> Self:
        X, Y = self._fit_input(X, Y)
        rng = check_random_state(self.random_state)
        Z = self._synthetic_labels(X, Y.shape[1], rng)
        seed = draw_seed(rng)
        if self.inference == "greedy":
            chain = SyntheticChain(self.estimator, n_jobs=self.n_jobs, random_state=seed)
        else:
            chain = SyntheticPCC(
                self.estimator, inference=self.inference, n_samples=self.n_samples,
                max_exact_labels=self.max_exact_labels, n_jobs=self.n_jobs, random_state=seed,
            )
        self.chain_ = chain.fit(X, np.hstack([Z, Y]))
        self.n_labels_ = Y.shape[1]
        return self

    def predict(self, X: Matrix) -> np.ndarray:
        X = self._check_X(X, reset=False)
        return self.chain_.predict(X)[:, self.n_synthetic_ :]

    def predict_proba(self, X: Matrix) -> np.ndarray:
        """The chain's marginals of the real labels (greedy: conditional on earlier predictions)."""
        X = self._check_X(X, reset=False)
        return self.chain_.predict_proba(X)[:, self.n_synthetic_ :]

    def predict_with_proba(self, X: Matrix) -> tuple[np.ndarray, np.ndarray]:
        X = self._check_X(X, reset=False)
        predicted, proba = self.chain_.predict_with_proba(X)
        return predicted[:, self.n_synthetic_ :], proba[:, self.n_synthetic_ :]


class CCASLBR(SyntheticLabelsMixin, StackedBR):
    """CCASL as a middle layer under a meta BR with the input as skip connection (CCASL+BR, Section 4.2).

    The middle layer is CCASL's chain over ``[z, y]``; all its outputs (predicted z and y)
    and x feed one more BR, whose outputs are unconnected (Fig. 9). This is :class:`MBR` with
    CCASL in place of the first BR.

    Parameters
    ----------
    estimator : estimator, str, dict or None, default=None
        Base learner of the chain and the meta BR; None means ``"logistic"``.
    n_synthetic, weight_std, connectivity, threshold_std, input_scaling
        The synthetic layer, as in :class:`CCASL`.
    skip_input : bool, default=True
        Whether the meta BR also sees x.
    meta_cv : int or None, default=None
        None: the meta BR learns from the middle layer's predictions on the training rows;
        k: from k-fold out-of-fold predictions (the synthetic layer is built once, on all rows).
    meta_input : {"predict", "proba"}, default="predict"
        Whether the meta BR sees the chain's 0/1 outputs or its link probabilities.
    n_jobs : int or None, default=None
    random_state : int, RandomState or None, default=None
        Seeds the synthetic layer (drawn first, as in CCASL), the chain and the meta BR.

    Attributes
    ----------
    units_ : ThresholdUnits
    n_synthetic_ : int
    middle_ : CC, the chain over [z, y].
    meta_ : BR, the output layer.

    References
    ----------
    Paper Section 4.2 and Fig. 9; Tables 7-8 (C.+BR).

    Examples
    --------
    >>> import numpy as np
    >>> from mlhidden.methods import CCASLBR
    >>> X = np.array([[0., 0.], [0., 1.], [1., 0.], [1., 1.]] * 5)
    >>> Y = np.array([[0, 0, 0], [1, 0, 1], [1, 0, 1], [1, 1, 0]] * 5)  # OR, AND, XOR
    >>> CCASLBR(random_state=0).fit(X, Y).predict(X[:4]).tolist()
    [[0, 0, 0], [1, 0, 1], [1, 0, 1], [1, 1, 0]]
    """

    _parameter_constraints = {**SYNTHETIC_CONSTRAINTS, **STACK_CONSTRAINTS}
    _output_layer = SyntheticBR

    def __init__(
        self, estimator: object = None, *, n_synthetic: int | None = None, weight_std: float = 0.2,
        connectivity: float = 0.9, threshold_std: float = 0.1, input_scaling: str | None = "auto",
        skip_input: bool = True,
        meta_cv: int | None = None, meta_input: str = "predict", n_jobs: int | None = None,
        random_state: RandomStateLike = None,
    ) -> None:
        self.estimator = estimator
        self.n_synthetic = n_synthetic
        self.weight_std = weight_std
        self.connectivity = connectivity
        self.threshold_std = threshold_std
        self.input_scaling = input_scaling
        self.skip_input = skip_input
        self.meta_cv = meta_cv
        self.meta_input = meta_input
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X: Matrix, Y: ArrayLike) -> Self:
        X, Y = self._fit_input(X, Y)
        rng = check_random_state(self.random_state)
        targets = self._middle_targets(X, Y, rng)
        return self._fit_stack(SyntheticChain(self.estimator, n_jobs=self.n_jobs), X, targets, Y, rng)

    def _middle_targets(self, X: Matrix, Y: np.ndarray, rng: np.random.RandomState) -> np.ndarray:
        """The chain's labels: [z, y]."""
        return np.hstack([self._synthetic_labels(X, Y.shape[1], rng), Y])


AML_POSITIONS = ("output_layer", "after_labels", "after_synthetic", "before_synthetic")


class CCASLAML(CCASLBR):
    """CCASL+BR plus meta labels from label subsets (CCASL+AML, Section 4.3).

    K' random label subsets S_k (|S_k| = min(subset_size, L)) each give a meta label
    ``z'_k = [y_{S_k} == y*_{S_k}]``, y* being the most common combination of S_k in the
    training rows. By default (``aml_position="output_layer"``) the meta labels are computed
    from the middle chain's predicted labels and given to the output layer next to x and the
    chain's outputs: a z'_k that fires "votes" for its combination, a non-linear feature of the
    predicted labels that the linear output BR cannot build itself. This costs no models, as in
    the paper's running times (Table 8: C.+AML about as fast as C.+BR). The other positions
    make the meta labels labels of the middle chain, learned like the synthetic ones: after the
    real labels ``[z, y, z']``, between ``[z, z', y]``, or first ``[z', z, y]``. Either way the
    meta labels are encoded as their complements ``1 - z'_k`` (see ``_meta_units``).

    Parameters
    ----------
    estimator, n_synthetic, weight_std, connectivity, threshold_std, input_scaling
        As in :class:`CCASLBR`.
    n_meta : int or None, default=None
        Number of meta labels K'; None means 2L.
    subset_size : int, default=3
        |S_k|, capped at L.
    aml_position : {"output_layer", "after_labels", "after_synthetic", "before_synthetic"}, \
default="output_layer"
        Computed from the predicted labels for the output layer, or chained at that position.
    skip_input, meta_cv, meta_input, n_jobs, random_state
        As in :class:`CCASLBR`; the synthetic layer is drawn first, then the subsets.

    Attributes
    ----------
    units_ : ThresholdUnits
    n_synthetic_ : int
    subsets_ : ndarray of int, shape (K', |S|), the label subsets.
    combinations_ : ndarray of int8, shape (K', |S|), their most common combinations y*.
    middle_ : CC, the chain.
    meta_ : BR, the output layer.

    References
    ----------
    Paper Section 4.3, Fig. 10 and Table 5 (K' = 2L, |S_k| = 3); Tables 7-8 (C.+AML).

    Examples
    --------
    >>> import numpy as np
    >>> from mlhidden.methods import CCASLAML
    >>> X = np.array([[0., 0.], [0., 1.], [1., 0.], [1., 1.]] * 5)
    >>> Y = np.array([[0, 0, 0], [1, 0, 1], [1, 0, 1], [1, 1, 0]] * 5)  # OR, AND, XOR
    >>> CCASLAML(random_state=0).fit(X, Y).predict(X[:4]).tolist()
    [[0, 0, 0], [1, 0, 1], [1, 0, 1], [1, 1, 0]]
    """

    _parameter_constraints = {
        **CCASLBR._parameter_constraints,
        "n_meta": [None, Interval(Integral, 0, None, closed="left")],
        "subset_size": [Interval(Integral, 1, None, closed="left")],
        "aml_position": [StrOptions(set(AML_POSITIONS))],
    }

    def __init__(
        self, estimator: object = None, *, n_synthetic: int | None = None, weight_std: float = 0.2,
        connectivity: float = 0.9, threshold_std: float = 0.1, input_scaling: str | None = "auto",
        n_meta: int | None = None, subset_size: int = 3, aml_position: str = "output_layer", skip_input: bool = True,
        meta_cv: int | None = None, meta_input: str = "predict", n_jobs: int | None = None,
        random_state: RandomStateLike = None,
    ) -> None:
        super().__init__(
            estimator, n_synthetic=n_synthetic, weight_std=weight_std, connectivity=connectivity,
            threshold_std=threshold_std, input_scaling=input_scaling, skip_input=skip_input,
            meta_cv=meta_cv, meta_input=meta_input, n_jobs=n_jobs, random_state=random_state,
        )
        self.n_meta = n_meta
        self.subset_size = subset_size
        self.aml_position = aml_position

    def _middle_targets(self, X: Matrix, Y: np.ndarray, rng: np.random.RandomState) -> np.ndarray:
        """The chain's labels: z and y, and z' where ``aml_position`` puts them in the chain."""
        Z = self._synthetic_labels(X, Y.shape[1], rng)
        n_meta = 2 * Y.shape[1] if self.n_meta is None else self.n_meta
        self.subsets_ = draw_label_subsets(n_meta, Y.shape[1], self.subset_size, rng)
        self.combinations_ = most_common_combinations(Y, self.subsets_)
        Z_meta = self._meta_units(Y)
        blocks = {
            "output_layer": [Z, Y],
            "after_labels": [Z, Y, Z_meta],
            "after_synthetic": [Z, Z_meta, Y],
            "before_synthetic": [Z_meta, Z, Y],
        }
        return np.hstack(blocks[self.aml_position])

    def _output_layer_inputs(self, outputs: np.ndarray) -> np.ndarray:
        """The chain's outputs, plus the meta labels of its predicted y when they are not chained."""
        if self.aml_position != "output_layer":
            return outputs
        K, L = self.n_synthetic_, outputs.shape[1] - self.n_synthetic_
        return np.hstack([outputs, self._meta_units((outputs[:, K : K + L] >= 0.5).astype(np.int8))])

    def _meta_units(self, Y: np.ndarray) -> np.ndarray:
        """The meta labels of label rows Y, encoded as 1 - z'_k = [y_{S_k} != y*_{S_k}].

        The complement carries the same information, and a base learner with an intercept
        fits the same model on it; but it is sparse where y* is the all-zero combination, as it
        is for rare labels (on Corel5k z' is 1 in 98% of the rows), which makes the links and
        the output layer that see it several times cheaper.
        """
        return 1 - meta_labels(Y, self.subsets_, self.combinations_)
