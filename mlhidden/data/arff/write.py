"""Write a :class:`Dataset` as a MEKA ARFF file, the form :func:`~mlhidden.data.arff.read_arff` reads back."""

from __future__ import annotations

import os
from pathlib import Path

import arff
import numpy as np
import scipy.sparse as sp

from mlhidden.data.dataset import Dataset


def write_arff(dataset: Dataset, path: str | os.PathLike[str]) -> None:
    """Write ``dataset`` as a MEKA ARFF file: labels first as nominal {0,1}, features numeric.

    Sparse ``X`` is written as sparse rows (omitted entries are 0, and so are omitted labels),
    dense ``X`` as dense rows; NaN is written as ``?``. ``read_arff`` gives the arrays back.

    Parameters
    ----------
    dataset : Dataset
        The data to write; its ``name`` becomes the relation name.
    path : str or os.PathLike
        The file to write (uncompressed UTF-8).
    """
    header = [f"@relation {arff.encode_string(f'{dataset.name}: -C {dataset.n_labels}')}", ""]
    header += [f"@attribute {arff.encode_string(str(name))} {{0,1}}" for name in dataset.label_names]
    header += [f"@attribute {arff.encode_string(str(name))} numeric" for name in dataset.feature_names]
    header += ["", "@data"]
    Y = np.asarray(dataset.Y)
    if sp.issparse(dataset.X):
        X = sp.csr_matrix(dataset.X)
        rows = []
        for i in range(X.shape[0]):
            start, stop = X.indptr[i], X.indptr[i + 1]
            entries = [f"{j} 1" for j in np.flatnonzero(Y[i])]
            columns, values = X.indices[start:stop], X.data[start:stop]
            entries += [f"{dataset.n_labels + j} {_format_value(v)}" for j, v in zip(columns, values, strict=True)]
            rows.append("{" + ",".join(entries) + "}")
    else:
        X = np.asarray(dataset.X, dtype=np.float64)
        rows = [",".join([str(int(y)) for y in Y[i]] + [_format_value(v) for v in X[i]]) for i in range(X.shape[0])]
    Path(path).write_text("\n".join(header + rows) + "\n", encoding="utf-8")


def _format_value(value: float) -> str:
    return "?" if np.isnan(value) else repr(float(value))
