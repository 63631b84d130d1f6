"""The in-memory form of a multi-label dataset, shared by every loader."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeAlias

import numpy as np
import scipy.sparse as sp

# A feature matrix: dense, or a scipy sparse matrix (scipy ships no types: sparse ones are ``Any``).
Matrix: TypeAlias = "np.ndarray | sp.spmatrix"
# What scikit-learn's ``check_random_state`` takes: a seed, a generator, or None for numpy's global one.
RandomStateLike = int | np.random.RandomState | None


@dataclass(frozen=True, eq=False)
class Dataset:
    """A multi-label dataset: features ``X`` and a binary label matrix ``Y``.

    ``X`` is a float64 ``numpy.ndarray`` or a ``scipy.sparse.csr_matrix`` (sparse ARFF stays
    sparse); missing values are NaN and are imputed inside each training split, never here.
    ``Y`` is a dense ``int8`` array of shape (n_samples, n_labels) holding 0/1.
    ``identity`` is the sha256 that names the data in the results-store key, so that results from
    different data versions never mix: the sha256 of the file read, except for a dataset of the
    catalog, whose identity is its mirror file's whichever form of it was read (None for generated data).
    """

    name: str
    X: np.ndarray | sp.csr_matrix
    Y: np.ndarray
    feature_names: tuple[str, ...] = ()
    label_names: tuple[str, ...] = ()
    source: str | None = None
    identity: str | None = None
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def n_samples(self) -> int:
        return int(self.Y.shape[0])

    @property
    def n_labels(self) -> int:
        return int(self.Y.shape[1])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def label_cardinality(self) -> float:
        return float(self.Y.sum(axis=1).mean()) if self.n_samples else 0.0

    @property
    def is_sparse(self) -> bool:
        return bool(sp.issparse(self.X))

    def description(self) -> list[tuple[str, object]]:
        """(property, value) pairs describing the data: what ``mlhidden datasets info`` shows."""
        X = self.X
        density = None if isinstance(X, np.ndarray) else X.nnz / max(X.shape[0] * X.shape[1], 1)
        return [
            ("name", self.name), ("source", self.source or "generated"), ("sha256", self.checksum),
            ("N", self.n_samples), ("L", self.n_labels), ("D", self.n_features),
            ("label cardinality", f"{self.label_cardinality:.2f}"),
            ("X", f"sparse CSR, density {density:.4f}" if self.is_sparse else "dense"),
            ("distinct label vectors", len({row.tobytes() for row in self.Y})),
            ("labels", ", ".join(self.label_names)),
        ]

    @cached_property
    def checksum(self) -> str:
        """The store key for this data: its :attr:`identity`, or a digest of the generator's arrays."""
        if self.identity:
            return self.identity
        import hashlib

        digest = hashlib.sha256()
        X = self.X if isinstance(self.X, np.ndarray) else self.X.toarray()
        digest.update(np.ascontiguousarray(X, dtype=np.float64).tobytes())
        digest.update(np.ascontiguousarray(self.Y, dtype=np.int8).tobytes())
        return digest.hexdigest()
