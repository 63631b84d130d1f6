"""The on-disk cache of parsed datasets: each file is parsed once per machine, and loaded once per process.

Entries are ``.npz`` files under ``$MLHIDDEN_CACHE`` (default ``~/.cache/mlhidden``), named by
the dataset's identity checksum and the reader version, so a new file version or a reader that
parses differently never reads a stale entry. A missing, corrupt or unwritable cache only costs
a re-parse. An entry keeps the warnings about the file's content that parsing raised (such as a
Mulan XML overruling ``@relation -C``), so a load from the cache says what a parse would.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from mlhidden.data.arff import READER_VERSION, read_arff
from mlhidden.data.dataset import Dataset
from mlhidden.errors import InputWarning
from mlhidden.io import PathLike, sha256_of, write_atomically

CACHE_ENV = "MLHIDDEN_CACHE"


def cache_dir() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "mlhidden")


def _read_cache(cache_path: Path, source: str, sha256: str) -> tuple[Dataset, list[tuple[str, str]]] | None:
    """The cached dataset and its parse warnings as (category name, message) pairs, or None when
    absent or unreadable (a corrupt entry, or one written before warnings were kept, is re-parsed)."""
    if not cache_path.is_file():
        return None
    try:
        with np.load(cache_path, allow_pickle=False) as stored:
            if stored["sparse"]:
                X = sp.csr_matrix(
                    (stored["X_data"], stored["X_indices"], stored["X_indptr"]), shape=tuple(stored["X_shape"])
                )
            else:
                X = stored["X"]
            dataset = Dataset(
                name=str(stored["name"]),
                X=X,
                Y=stored["Y"],
                feature_names=tuple(stored["feature_names"].tolist()),
                label_names=tuple(stored["label_names"].tolist()),
                source=source,
                identity=sha256,
            )
            input_warnings = [tuple(pair) for pair in stored["input_warnings"].tolist()]
    except Exception:  # any failure to read a cache entry means it is corrupt: parse the file instead
        return None
    consistent = (
        dataset.X.shape[0] == dataset.n_samples
        and len(dataset.feature_names) == dataset.n_features
        and len(dataset.label_names) == dataset.n_labels
        and dataset.Y.dtype == np.int8
        and dataset.X.dtype == np.float64
    )
    return (dataset, input_warnings) if consistent else None


def _write_cache(cache_path: Path, dataset: Dataset, input_warnings: Iterable[tuple[str, str]] = ()) -> None:
    """Store the parsed arrays and the parse's (category name, message) warnings; a cache that
    cannot be written only costs a re-parse next time."""
    arrays: dict[str, Any] = {
        "input_warnings": np.array(list(input_warnings), dtype=str).reshape(-1, 2),
        "name": np.array(dataset.name),
        "Y": dataset.Y,
        "feature_names": np.array(dataset.feature_names, dtype=str),
        "label_names": np.array(dataset.label_names, dtype=str),
        "sparse": np.array(dataset.is_sparse),
    }
    X = dataset.X
    if isinstance(X, np.ndarray):
        arrays["X"] = X
    else:
        arrays.update(X_data=X.data, X_indices=X.indices, X_indptr=X.indptr, X_shape=np.array(X.shape))
    try:
        cache_path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(cache_path, lambda stream: np.savez(stream, **arrays))
    except OSError:
        pass


def label_file_key(labels_xml: PathLike | None) -> tuple[str, str] | None:
    """A Mulan label file as a memo key: its resolved path and sha256."""
    return None if labels_xml is None else (str(Path(labels_xml).resolve()), sha256_of(labels_xml))


@functools.lru_cache(maxsize=32)
def load_arff_file(path: str, sha256: str, labels: int | None, labels_xml: tuple[str, str] | None) -> Dataset:
    """Parse an ARFF file once per machine (disk cache by checksum) and once per process (memo).

    ``sha256`` is the identity the dataset carries (the file's own, or for a catalog dataset
    the manifest's), worked out by the caller: parsing does not hash the file again. The arrays of the
    returned dataset are read-only, since every caller shares them.
    """
    variant = ("" if labels is None else f"-C{labels}") + ("" if labels_xml is None else f"-x{labels_xml[1][:16]}")
    cache_path = cache_dir() / f"{sha256}-r{READER_VERSION}{variant}.npz"
    cached = _read_cache(cache_path, path, sha256)
    if cached is None:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", InputWarning)
            parsed = read_arff(
                path, labels=labels, labels_xml=None if labels_xml is None else labels_xml[0], hashed=False
            )
        dataset = dataclasses.replace(parsed, identity=sha256)
        _write_cache(
            cache_path,
            dataset,
            [
                (w.category.__name__, _with_placeholders(str(w.message), path, labels_xml))
                for w in caught if issubclass(w.category, InputWarning)
            ],
        )
        for caught_warning in caught:
            warnings.warn_explicit(
                caught_warning.message, caught_warning.category, caught_warning.filename, caught_warning.lineno
            )
    else:
        dataset, input_warnings = cached
        for category_name, message in input_warnings:
            warnings.warn(_with_paths(message, path, labels_xml), _input_warning_class(category_name), stacklevel=2)
    X = dataset.X
    for array in (dataset.Y, *((X,) if isinstance(X, np.ndarray) else (X.data, X.indices, X.indptr))):
        array.flags.writeable = False
    return dataset


FILE_PLACEHOLDER, XML_PLACEHOLDER = "\x00arff\x00", "\x00xml\x00"
"""What a cached warning holds in place of the paths it named: one file's parse serves its copies too,
and each copy's warning names that copy."""


def _with_placeholders(message: str, path: str, labels_xml: tuple[str, str] | None) -> str:
    message = message.replace(path, FILE_PLACEHOLDER)
    return message if labels_xml is None else message.replace(labels_xml[0], XML_PLACEHOLDER)


def _with_paths(message: str, path: str, labels_xml: tuple[str, str] | None) -> str:
    message = message.replace(FILE_PLACEHOLDER, path)
    return message if labels_xml is None else message.replace(XML_PLACEHOLDER, labels_xml[0])


def _input_warning_class(name: str) -> type[InputWarning]:
    """The :class:`InputWarning` subclass called ``name`` (InputWarning itself if none is)."""
    pending = [InputWarning]
    while pending:
        category = pending.pop()
        if category.__name__ == name:
            return category
        pending.extend(category.__subclasses__())
    return InputWarning
