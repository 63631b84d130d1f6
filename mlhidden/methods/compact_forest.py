"""A multi-output forest of binary labels kept small: tree skeletons plus sparse leaf probabilities.

scikit-learn's trees store, for every node, a probability for every output and class: a fully
grown multi-output tree on Corel5k (~6,000 nodes x 374 labels x 2 classes, float64) takes 36 MB,
so a 100-tree forest takes 2.2 GB, and two such units running side by side exceed 4 GB. Yet only
the leaves are ever read, and at a leaf most labels have probability 0 (the leaf's few training
rows carry a handful of labels). :class:`CompactForest` keeps each tree's structure (a
scikit-learn ``Tree`` with a one-value placeholder, so ``apply`` is scikit-learn's own traversal)
and the leaves' positive-class probabilities as a sparse matrix: the same forest in about 1% of
the memory, predicting bit for bit what the forest predicts. The forest is grown a few trees at a
time (``warm_start``, which grows the same trees as one fit), each group compacted before the
next is grown, so the full forest never exists at once.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
from sklearn.utils.validation import check_array

from mlhidden.data.dataset import Matrix
from mlhidden.methods.sklearn_api import Tree

# Trees grown (and held in full) at a time.
TREES_PER_GROUP = 10


def is_compactable(model: Any) -> bool:
    """Whether ``model`` is a scikit-learn forest of classification trees that can be grown in groups."""
    forest = isinstance(model, (RandomForestClassifier, ExtraTreesClassifier))
    return forest and "warm_start" in model.get_params() and not model.get_params()["oob_score"]


def _node_rows(leaf_rows: sp.csr_matrix, leaves: np.ndarray, n_nodes: int) -> sp.csr_matrix:
    """A matrix with a row per leaf as one with a row per node (``leaves`` ascending), empty at the split nodes."""
    counts = np.zeros(n_nodes, dtype=leaf_rows.indptr.dtype)
    counts[leaves] = np.diff(leaf_rows.indptr)
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(leaf_rows.indptr.dtype)
    return sp.csr_matrix((leaf_rows.data, leaf_rows.indices, indptr), shape=(n_nodes, leaf_rows.shape[1]))


class CompactForest:
    """The trees of a fitted multi-output forest classifier on 0/1 labels, in compact form.

    Parameters
    ----------
    classes : list of ndarray
        The forest's ``classes_``: per output, the classes seen in training (``[0, 1]``, or one
        of them for a label that was constant).
    n_features : int
    """

    def __init__(self, classes: list[np.ndarray], n_features: int) -> None:
        self.classes = [np.asarray(c) for c in classes]
        self.n_features = n_features
        self.binary = np.array([len(c) == 2 for c in self.classes])
        self.has_positive = np.array([(c == 1).any() for c in self.classes])
        self.positive_column = np.array([np.flatnonzero(c == 1)[0] if (c == 1).any() else 0 for c in self.classes])
        self.skeletons: list[Tree] = []
        self.positive: list[sp.csr_matrix] = []
        self.negative_fixes: list[sp.csr_matrix] = []

    @classmethod
    def grow(cls, forest: Any, X: Matrix, Y: np.ndarray) -> CompactForest | None:
        """Fit ``forest`` (unfitted; its parameters are kept) on (X, Y) group by group; the compact forest."""
        n_trees = forest.get_params()["n_estimators"]
        forest.set_params(warm_start=True)
        # Converted once, as every fit would convert it (float32, CSC with sorted indices).
        X = check_array(X, dtype=np.float32, accept_sparse="csc", ensure_all_finite=False)
        if sp.issparse(X):
            X.sort_indices()
        compact: CompactForest | None = None
        for end in [*range(TREES_PER_GROUP, n_trees, TREES_PER_GROUP), n_trees]:
            forest.set_params(n_estimators=end).fit(X, Y)
            classes = forest.classes_ if forest.n_outputs_ > 1 else [forest.classes_]
            compact = compact or cls(classes, forest.n_features_in_)
            for index in range(len(compact.skeletons), end):
                compact._add(forest.estimators_[index].tree_)
                forest.estimators_[index] = None  # the full tree is no longer needed
        return compact

    def _add(self, tree: Tree) -> None:
        state = tree.__getstate__()
        nodes, values = state["nodes"], state["values"]
        skeleton = Tree(self.n_features, np.array([1], dtype=np.intp), 1)
        skeleton.__setstate__({**state, "values": np.zeros((len(nodes), 1, 1))})
        leaves = np.flatnonzero(nodes["left_child"] == -1)
        leaf_values = values[leaves]
        outputs = np.arange(len(self.classes))
        p1 = np.where(self.has_positive, leaf_values[:, outputs, self.positive_column], 0.0)
        p0 = leaf_values[:, :, 0]
        # For binary labels a leaf's p0 is almost always exactly 1 - p1; keep the ones where it is not.
        rows, columns = np.nonzero(self.binary & (p0 != 1.0 - p1))
        self.skeletons.append(skeleton)
        self.positive.append(_node_rows(sp.csr_matrix(p1), leaves, len(nodes)))
        fixes = sp.csr_matrix((p0[rows, columns], (rows, columns)), shape=p1.shape)
        self.negative_fixes.append(_node_rows(fixes, leaves, len(nodes)))

    def _leaf_sums(self, X: Matrix) -> tuple[np.ndarray, np.ndarray]:
        """Sums over the trees, in tree order, of each output's class-1 and class-0 probability."""
        X = check_array(X, dtype=np.float32, accept_sparse="csr", ensure_all_finite="allow-nan")
        if sp.issparse(X):
            X.sort_indices()
            X.indices, X.indptr = X.indices.astype(np.intc), X.indptr.astype(np.intc)
        total1 = np.zeros((X.shape[0], len(self.classes)))
        total0 = np.zeros_like(total1)
        for skeleton, positive, fixes in zip(self.skeletons, self.positive, self.negative_fixes):
            leaves = skeleton.apply(X)
            p1 = positive[leaves].toarray()
            p0 = np.where(self.binary, 1.0 - p1, 0.0)
            fix = fixes[leaves].tocoo()
            p0[fix.row, fix.col] = fix.data
            total1 += p1
            total0 += p0
        return total1 / len(self.skeletons), total0 / len(self.skeletons)

    def predict_proba(self, X: Matrix) -> np.ndarray:
        """P(y_j = 1 | x) averaged over the trees, as the forest's ``predict_proba`` gives it; shape (n, L)."""
        return self._leaf_sums(X)[0]

    def predict(self, X: Matrix) -> np.ndarray:
        """The forest's ``predict``: the class of higher mean probability, the smaller class on ties."""
        p1, p0 = self._leaf_sums(X)
        constant = np.array([c[0] for c in self.classes])
        return np.where(self.binary, (p1 > p0).astype(np.int8), constant).astype(np.int8)
