"""What the data path holds: one row per dataset, for ``mlhidden datasets list`` and ``verify``.

The catalog (:mod:`mlhidden.data.catalog`) finds and loads the files; this module only
reports on them.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mlhidden.data.catalog import (
    CatalogEntry,
    catalog_entries,
    data_path,
    dataset_kind,
    find_entry,
    load_dataset,
    load_entry,
    own_files,
    select_entries,
)
from mlhidden.data.dataset import Dataset
from mlhidden.data.generators import GENERATORS
from mlhidden.data.own_datasets import entry_point_loaders
from mlhidden.errors import UserError
from mlhidden.io import PathLike


def dataset_table(data_dir: PathLike | None = None) -> list[dict[str, Any]]:
    """One row per catalog dataset, generated one, ARFF file of the user's in the data path (by its
    stem) and loader of an installed package: availability, shape, checksum, status.

    Shapes come from the parsed file when it is available, else from the manifest.
    """
    folders = data_path(data_dir)
    rows = []
    for entry in catalog_entries():
        found = find_entry(entry, folders)
        shape_source: CatalogEntry | Dataset = entry
        status = found.status
        if status in ("ok", "no checksum"):
            try:
                shape_source = load_entry(entry, folders)
                status = "ok"
            except UserError as error:
                status = error.message
        file = found.path.name if found.path is not None else entry.file
        rows.append(
            _table_row(
                entry.name, file, status == "ok", shape_source, found.identity or found.sha256 or entry.sha256, status
            )
        )
    for name, generator in GENERATORS.items():
        dataset = generator()
        rows.append(_table_row(name, "(generated)", True, dataset, dataset.checksum, "ok"))
    for stem, path in own_files(data_dir).items():
        if dataset_kind(stem, data_dir) == "data file":
            rows.append(_own_file_row(stem, path, data_dir))
    for name, (_, source) in entry_point_loaders().items():
        if dataset_kind(name, data_dir) == "loader":  # not shadowed by a catalog name or a file
            rows.append({"name": name, "file": f"(loader: {source})", "available": True, "status": "loaded when run"})
    return rows


def _own_file_row(stem: str, path: Path, data_dir: PathLike | None) -> dict[str, Any]:
    """The row of a user's own ARFF file of the data path (named by its stem): parsed, or why it cannot be."""
    try:
        dataset = load_dataset(stem, data_dir=data_dir)
    except UserError as error:
        return {"name": stem, "file": str(path), "available": False, "status": error.message}
    return _table_row(stem, str(path), True, dataset, dataset.checksum, "ok")


def verify_datasets(data_dir: PathLike | None = None, names: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """Check each catalog file's sha256 against the manifest (hashing only, no parsing).

    Parameters
    ----------
    data_dir : str or os.PathLike, optional
        The first folder of the data path (see :func:`~mlhidden.data.catalog.data_path`).
    names : iterable of str, optional
        Catalog names to check (default: all).

    Returns
    -------
    list of dict
        Rows with keys name, file (the path found, or the manifest's name), status ("ok",
        "missing", "checksum mismatch", "no checksum" or "not available (...)"), expected and
        found (sha256 hex or None) of the file found.
    """
    folders = data_path(data_dir)
    rows = []
    for entry in select_entries(names):
        found = find_entry(entry, folders)
        expected = dict(entry.candidates()).get(found.path.name) if found.path is not None else entry.sha256
        rows.append({
            "name": entry.name, "file": str(found.path or entry.file), "status": found.status,
            "expected": expected, "found": found.sha256,
        })
    return rows


def _table_row(
    name: str, file: str, available: bool, shape: CatalogEntry | Dataset, sha256: str | None, status: str
) -> dict[str, Any]:
    """A dataset_table row; ``shape`` is a Dataset or a CatalogEntry (same attribute names)."""
    return {
        "name": name,
        "file": file,
        "available": available,
        "N": shape.n_samples,
        "L": shape.n_labels,
        "D": shape.n_features,
        "LC": round(shape.label_cardinality, 2),
        "sha256": (sha256 or "")[:12],
        "status": status,
    }
