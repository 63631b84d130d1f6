"""Probabilistic inference in a fitted classifier chain: Monte-Carlo search and exhaustive search.

A chain defines p(y | x) = prod_j p(y_j | x, y_1..y_{j-1}) (paper eq. 2). Both searches score
many candidate label vectors per test row, so they run link by link over a block of
(rows x candidates) at once. Logistic links are scored as a fixed x-part (one product with X
for all links) plus the weights of the labels drawn so far; other base learners are asked for
``predict_proba`` on the stacked inputs ``[x, y_1..y_{j-1}]``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.special import expit, log_expit
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression

from mlhidden.data.dataset import Matrix
from mlhidden.methods.base import hstack_features
from mlhidden.methods.base_learners import positive_proba

# Array elements (candidates x links) held per block; bounds the working memory (~16 MB each).
BLOCK_ELEMENTS = 1 << 21
# Links whose label-part is brought up to date by one matrix product (see LinearLinks).
LINK_GROUP = 16


def _is_constant(model: Any) -> bool:
    return isinstance(model, DummyClassifier) and len(model.classes_) == 1


class LinearLinks:
    """Chain links that are logistic models or constants, scored as x-part plus label-part.

    The x-part of every link is computed once for all test rows; a label drawn as 1 then adds
    its weights to the later links' log-odds (labels drawn as 0 add nothing). A constant link
    (a label with one class in training) has log-odds of +inf or -inf. The log-odds of a block
    are held link-major, so each link reads one contiguous row.

    The label-part is added in groups of ``LINK_GROUP`` links: inside a group, a label drawn as
    1 adds its weights to the group's later links; when a group starts, one sparse product
    (candidates x earlier labels, the 1s only) adds the weights of every label drawn before it.
    Labels are mostly 0, so this costs what the scattered updates cost, in one C loop.
    """

    # Array elements per candidate besides its labels and log-odds (none: x is not copied).
    input_width = 0

    def __init__(self, models: Sequence[Any], X: Matrix) -> None:
        n_features, self.n_links = X.shape[1], len(models)
        x_weights = np.zeros((n_features, self.n_links))
        intercepts = np.zeros(self.n_links)
        self.label_weights = np.zeros((self.n_links, self.n_links))
        for j, model in enumerate(models):
            if _is_constant(model):
                intercepts[j] = np.inf if model.classes_[0] == 1 else -np.inf
                continue
            coef = np.ravel(model.coef_)
            x_weights[:, j] = coef[:n_features]
            self.label_weights[:j, j] = coef[n_features:]
            intercepts[j] = model.intercept_[0]
        self.x_logits = np.asarray(X @ x_weights) + intercepts

    @staticmethod
    def supports(models: Sequence[Any]) -> bool:
        return all(
            _is_constant(m) or (isinstance(m, LogisticRegression) and list(m.classes_) == [0, 1]) for m in models
        )

    def begin(self, rows: np.ndarray, repeats: int) -> None:
        """Start a block: each row of ``rows`` becomes ``repeats`` consecutive candidates."""
        self._logits = np.repeat(self.x_logits[rows].T, repeats, axis=1)
        self._hits: list[np.ndarray] = []

    def expand(self, copies: int) -> None:
        """Each current candidate becomes ``copies`` consecutive candidates."""
        self._logits = np.repeat(self._logits, copies, axis=1)
        self._hits = [(hit[:, None] * copies + np.arange(copies)).ravel() for hit in self._hits]

    def _logits_of(self, j: int) -> np.ndarray:
        """Link ``j``'s log-odds for every candidate, given the labels observed before it."""
        if j and j % LINK_GROUP == 0:
            n_candidates = self._logits.shape[1]
            drawn = sp.csc_matrix(
                (np.ones(sum(map(len, self._hits))), np.concatenate(self._hits), np.cumsum([0, *map(len, self._hits)])),
                shape=(n_candidates, j),
            )
            self._logits[j : j + LINK_GROUP] += (drawn @ self.label_weights[:j, j : j + LINK_GROUP]).T
        return np.asarray(self._logits[j])

    def link(self, j: int, labels: np.ndarray) -> np.ndarray:
        """p(y_j = 1) for every candidate of the block (``labels``: the values so far)."""
        self._link_logits = self._logits_of(j)
        return np.asarray(expit(self._link_logits))

    def log_likelihood(self, values: np.ndarray | bool) -> np.ndarray:
        """log p(y_j = value) at the link last scored, for each candidate's value."""
        return np.asarray(log_expit(np.where(values, self._link_logits, -self._link_logits)))

    def observe(self, j: int, values: np.ndarray) -> None:
        """Record the value each candidate took at link ``j``."""
        group_end = (j // LINK_GROUP + 1) * LINK_GROUP
        hit = np.flatnonzero(values)
        self._hits.append(hit)
        if hit.size and j + 1 < min(group_end, self.n_links):
            self._logits[j + 1 : group_end, hit] += self.label_weights[j, j + 1 : group_end, None]

    def greedy(self) -> tuple[np.ndarray, np.ndarray]:
        """CC's greedy pass over all rows: y_j = [log-odds > 0] (LogisticRegression.predict)."""
        self.begin(np.arange(self.x_logits.shape[0]), 1)
        hard = np.zeros(self._logits.shape, dtype=np.int8)
        for j in range(self.n_links):
            hard[j] = self._logits_of(j) > 0
            self.observe(j, hard[j])
        return np.ascontiguousarray(hard.T), np.asarray(expit(self._logits.T))


class GenericLinks:
    """Chain links of any base learner: ``predict_proba`` on ``[x, y_1..y_{j-1}]`` per candidate."""

    def __init__(self, models: Sequence[Any], X: Any) -> None:
        self.models, self.X, self.n_links = models, X, len(models)
        # Every candidate carries a copy of its row of X.
        self.input_width = X.nnz // max(1, X.shape[0]) + 1 if sp.issparse(X) else X.shape[1]

    def begin(self, rows: np.ndarray, repeats: int) -> None:
        self._X = self.X[np.repeat(rows, repeats)]

    def expand(self, copies: int) -> None:
        self._X = self._X[np.repeat(np.arange(self._X.shape[0]), copies)]

    def link(self, j: int, labels: np.ndarray) -> np.ndarray:
        self._p = positive_proba(self.models[j], hstack_features(self._X, labels[:, :j]))
        return self._p

    def log_likelihood(self, values: np.ndarray | bool) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.asarray(np.where(values, np.log(self._p), np.log1p(-self._p)))

    def observe(self, j: int, values: np.ndarray) -> None:
        pass


def _chain_links(models: Sequence[Any], X: Matrix) -> LinearLinks | GenericLinks:
    """The fastest exact scorer for these fitted links (in chain order) on test inputs X."""
    return (LinearLinks if LinearLinks.supports(models) else GenericLinks)(models, X)


def greedy_search(models: Sequence[Any], X: Matrix) -> tuple[np.ndarray, np.ndarray]:
    """CC's greedy inference (eq. 3): hard predictions and each link's p(y_j = 1 | x, y_<j), chain order.

    Each link consumes the previous links' hard predictions (``model.predict``); logistic links
    take the vectorised path, which needs the product with X only once.
    """
    if LinearLinks.supports(models):
        return LinearLinks(models, X).greedy()
    hard = np.zeros((X.shape[0], len(models)), dtype=np.int8)
    proba = np.zeros(hard.shape)
    for j, model in enumerate(models):
        inputs = hstack_features(X, hard[:, :j])
        hard[:, j] = model.predict(inputs)
        proba[:, j] = positive_proba(model, inputs)
    return hard, proba


def _blocks(n_rows: int, elements_per_row: int) -> Iterator[np.ndarray]:
    size = max(1, BLOCK_ELEMENTS // max(1, elements_per_row))
    for start in range(0, n_rows, size):
        yield np.arange(start, min(start + size, n_rows))


def monte_carlo_search(
    models: Sequence[Any], X: Matrix, n_samples: int, rng: np.random.RandomState
) -> tuple[np.ndarray, np.ndarray]:
    """Approximate MAP label vectors by sampling the chain (Read, Martino & Luengo 2014).

    For each test row, ``n_samples`` label vectors are drawn from the chain, link by link
    (y_j = 1 when a uniform u_j < p(y_j = 1 | x, y_<j)); the greedy CC vector (y_j = 1 when
    p > 0.5) is one more candidate, and the candidate of highest joint probability wins (the
    greedy one, then the earlier sample, on ties). The uniforms are one (n_rows, n_samples,
    n_links) array drawn in C order block by block, so the result does not depend on blocking.

    Parameters
    ----------
    models : list of fitted binary classifiers in chain order; link j takes ``[x, y_<j]``.
    X : ndarray or CSR matrix of shape (n_rows, n_features)
    n_samples : int
    rng : numpy.random.RandomState

    Returns
    -------
    best : ndarray of int8, shape (n_rows, n_links)
        The most probable candidate, in chain order.
    marginals : ndarray of shape (n_rows, n_links)
        The fraction of the samples with y_j = 1 (the greedy candidate is not a sample).
    """
    n_rows, n_links = X.shape[0], len(models)
    links = _chain_links(models, X)
    per_row = n_samples + 1
    best = np.zeros((n_rows, n_links), dtype=np.int8)
    marginals = np.zeros((n_rows, n_links))
    for rows in _blocks(n_rows, per_row * (n_links + links.input_width)):
        thresholds: np.ndarray = np.empty((n_links, rows.size, per_row))  # link-major: one row per link
        thresholds[:, :, 0] = 0.5
        thresholds[:, :, 1:] = rng.random_sample((rows.size, n_samples, n_links)).transpose(2, 0, 1)
        thresholds = thresholds.reshape(n_links, -1)
        links.begin(rows, per_row)
        labels = np.zeros((n_links, rows.size * per_row), dtype=np.int8)
        log_joint = np.zeros(rows.size * per_row)
        for j in range(n_links):
            values = links.link(j, labels.T) > thresholds[j]
            labels[j] = values
            log_joint += links.log_likelihood(values)
            links.observe(j, values)
        labels = labels.T.reshape(rows.size, per_row, n_links)
        winner = log_joint.reshape(rows.size, per_row).argmax(axis=1)
        best[rows] = labels[np.arange(rows.size), winner]
        marginals[rows] = labels[:, 1:, :].mean(axis=1)
    return best, marginals


def exact_search(models: Sequence[Any], X: Matrix) -> tuple[np.ndarray, np.ndarray]:
    """The exact MAP label vector and exact marginals, by enumerating all 2^L label vectors.

    The enumeration grows one link at a time (each partial vector branches into y_j = 0 and
    y_j = 1), so every link is evaluated once per distinct prefix.

    Returns
    -------
    best : ndarray of int8, shape (n_rows, n_links)
        In chain order; the first maximum on ties, enumerating y_j = 0 before y_j = 1.
    marginals : ndarray of shape (n_rows, n_links)
        Exact p(y_j = 1 | x) under the chain.
    """
    n_rows, n_links = X.shape[0], len(models)
    links = _chain_links(models, X)
    n_vectors = 2**n_links
    best = np.zeros((n_rows, n_links), dtype=np.int8)
    marginals = np.zeros((n_rows, n_links))
    for rows in _blocks(n_rows, n_vectors * (n_links + links.input_width)):
        links.begin(rows, 1)
        labels: np.ndarray = np.zeros((rows.size, n_links), dtype=np.int8)
        log_joint: np.ndarray = np.zeros(rows.size)
        for j in range(n_links):
            links.link(j, labels)
            log_p0, log_p1 = links.log_likelihood(False), links.log_likelihood(True)
            links.expand(2)
            labels = np.repeat(labels, 2, axis=0)
            labels[1::2, j] = 1
            log_joint = np.column_stack([log_joint + log_p0, log_joint + log_p1]).ravel()
            links.observe(j, labels[:, j])
        labels = labels.reshape(rows.size, n_vectors, n_links)
        log_joint = log_joint.reshape(rows.size, n_vectors)
        best[rows] = labels[np.arange(rows.size), log_joint.argmax(axis=1)]
        weights = np.exp(log_joint - log_joint.max(axis=1, keepdims=True))
        marginals[rows] = np.einsum("rv,rvj->rj", weights, labels) / weights.sum(axis=1, keepdims=True)
    return best, marginals
