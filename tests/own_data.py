"""A MEKA ARFF file of a user's own, written by a test: the README's "your own data" path, not a shipped dataset."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def write_own_arff(path: Path, relation: str = "MyData", n_rows: int = 60) -> Path:
    """``path``: ``n_rows`` rows of 3 labels that depend on 4 numeric features, ``@relation 'RELATION: -C 3'``."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(n_rows, 4))
    Y = np.column_stack([X[:, 0] > 0, X[:, 1] + X[:, 2] > 0, X[:, 3] > 0.5]).astype(int)
    lines = [f"@relation '{relation}: -C 3'", ""]
    lines += [f"@attribute label{j} {{0,1}}" for j in range(3)] + [f"@attribute x{j} numeric" for j in range(4)]
    lines += ["", "@data"] + [",".join([*map(str, y), *(f"{x:.4f}" for x in row)]) for y, row in zip(Y, X)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
