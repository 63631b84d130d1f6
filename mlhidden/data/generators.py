"""Datasets made by code rather than read from files: the paper's toy problems.

Each generator is a function returning a :class:`Dataset`, seeded through ``random_state``;
``GENERATORS`` maps the name a user types to it, so adding a synthetic dataset is one function
plus one line there.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from sklearn.utils import check_random_state

from mlhidden.data.dataset import Dataset, RandomStateLike
from mlhidden.data.random_networks import make_synthetic_complex, make_synthetic_simple
from mlhidden.errors import UserError

_LOGICAL_INPUTS = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
_LOGICAL_REPEATS = 5


def make_logical(jitter: float = 0.0, random_state: RandomStateLike = None) -> Dataset:
    """The paper's toy Logical problem (Table 2): labels OR, AND, XOR of two input bits.

    The four input combinations are equally likely, so each appears five times (N = 20). XOR is
    not linearly separable from the inputs but is from the inputs plus OR and AND, which is the
    paper's example of a label helping another as a hidden node.

    Parameters
    ----------
    jitter : float, default=0.0
        Standard deviation of Normal noise added to X, so that plotted points do not overlap;
        the labels stay those of the noiseless bits.
    random_state : int, numpy.random.RandomState or None
        Seeds the jitter (unused when ``jitter`` is 0).

    Returns
    -------
    Dataset
        ``X`` dense float64 (20, 2) with features X1, X2; ``Y`` int8 (20, 3) with labels OR, AND, XOR.
    """
    if isinstance(jitter, bool) or not isinstance(jitter, (int, float)) or not math.isfinite(jitter) or jitter < 0:
        raise UserError(f"Logical: jitter must be a number >= 0, got {jitter!r}")
    bits = np.repeat(_LOGICAL_INPUTS, _LOGICAL_REPEATS, axis=0)
    x1, x2 = bits[:, 0], bits[:, 1]
    Y = np.column_stack([x1 | x2, x1 & x2, x1 ^ x2]).astype(np.int8)
    X = bits.astype(np.float64)
    if jitter > 0:
        X = X + check_random_state(random_state).normal(0.0, jitter, size=X.shape)
    return Dataset(
        name="Logical",
        X=X,
        Y=Y,
        feature_names=("X1", "X2"),
        label_names=("OR", "AND", "XOR"),
        params={"jitter": jitter, "random_state": random_state},
    )


GENERATORS: dict[str, Callable[..., Dataset]] = {
    "Logical": make_logical,
    "SyntheticComplex": make_synthetic_complex,
    "SyntheticSimple": make_synthetic_simple,
}
"""Generated datasets by name; ``load_dataset`` passes its ``params`` to the function."""
