"""The paper's datasets by name: where their files are, what they must contain, and loading them.

``manifest.yaml`` (beside this module) lists each dataset's file, expected shape and identity
checksum, and the file the project ships for it. Files are looked up in the data path
(:func:`data_path`): ``--data-dir``, then ``$MLHIDDEN_DATA``, then the project's ``datasets/``,
where the shipped bz2 copies are. A dataset's identity (``Dataset.identity``, the key of every stored
result) is the sha256 of its mirror file, whichever of the two forms is read, so results stored
from either form are the same results. Parsed arrays are cached on disk by that checksum
(:mod:`mlhidden.data.cache`) and memoised in the process.
"""

from __future__ import annotations

import dataclasses
import errno
import functools
import inspect
import os
import stat
from collections.abc import Iterable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from mlhidden.data.arff.mulan import xml_beside
from mlhidden.data.cache import label_file_key, load_arff_file
from mlhidden.data.dataset import Dataset
from mlhidden.data.generators import GENERATORS
from mlhidden.data.own_datasets import (
    arff_stem,
    find_folder_file,
    find_loader,
    folder_files,
    load_with,
    loader_params_problem,
)
from mlhidden.errors import UserError, did_you_mean, unique_match
from mlhidden.io import PathLike, sha256_of
from mlhidden.shipped import shipped_folder

DATA_ENV = "MLHIDDEN_DATA"
SHIPPED_DIR = shipped_folder("datasets")
"""The project's ``datasets/`` (the clone's, or the installed package's copy): a copy of every distributable dataset."""
MISSING_HINT = (
    "restore the project's datasets/ folder (git checkout datasets, or reinstall mlhidden), "
    "or pass --data-dir / set MLHIDDEN_DATA"
)


class DatasetUnavailable(UserError):
    """A catalog dataset the user must supply themselves (no copy is distributed) is not in the data path.

    ``reason`` is the message without the dataset's name, for the row of a table that names it.
    """

    def __init__(self, name: str, reason: str):
        super().__init__(f"{name}: {reason}")
        self.reason = reason


@dataclasses.dataclass(frozen=True)
class CatalogEntry:
    """One paper dataset as the manifest describes it.

    Attributes
    ----------
    name : str
        The name users type (matched case-insensitively).
    file : str
        The file name in the data path.
    n_samples, n_labels, n_features : int
        The expected shape; ``n_features`` counts columns after encoding.
    label_cardinality : float
        The expected mean number of labels per sample, to 2 decimals.
    sha256 : str or None
        The checksum of ``file`` and the dataset's identity in stores; None for user-supplied
        files, which are checked by shape.
    shipped_file, shipped_sha256 : str or None
        The bz2 copy in the project's ``datasets/`` and its own checksum (equal to ``file`` and
        ``sha256`` where the mirror file is already MEKA's bz2); None when nothing is shipped.
    user_supplied : bool
        True when no copy is distributed and the user must put the file in the data path.
    source : str
        Where the file comes from.
    license : str
        What is known about the terms of use.
    """

    name: str
    file: str
    n_samples: int
    n_labels: int
    n_features: int
    label_cardinality: float
    sha256: str | None
    user_supplied: bool
    source: str
    license: str = ""
    shipped_file: str | None = None
    shipped_sha256: str | None = None

    def candidates(self) -> list[tuple[str, str | None]]:
        """The file names this dataset may have in a data folder, each with its expected sha256."""
        forms = [(self.file, self.sha256)]
        if self.shipped_file is not None and self.shipped_file != self.file:
            forms.append((self.shipped_file, self.shipped_sha256))
        return forms

    @property
    def unavailable_status(self) -> str:
        return f"not available (put {self.file} in the data path)"


def resolve_data_dir(data_dir: PathLike | None = None) -> Path:
    """The first folder of the data path: ``data_dir``, else ``$MLHIDDEN_DATA``, else the shipped ``datasets/``.

    It is where :func:`mlhidden.data.fetch.copy_from_mirror` writes.
    """
    return data_path(data_dir)[0]


def data_path(data_dir: PathLike | None = None) -> list[Path]:
    """The folders searched for a catalog file, in order: ``data_dir``, ``$MLHIDDEN_DATA``, the shipped
    ``datasets/``."""
    folders = [Path(folder) for folder in (data_dir, os.environ.get(DATA_ENV)) if folder]
    return list(dict.fromkeys([*folders, SHIPPED_DIR]))


def own_files(data_dir: PathLike | None = None) -> dict[str, Path]:
    """``{stem: path}``: the user's ARFF files in the data path (but the shipped ``datasets/``): datasets by stem.

    The catalog's own files (``Reuters-K500.arff`` is ``Reuters``) are not.
    """
    catalog_files = {name for entry in _manifest() for name, _ in entry.candidates()}
    return folder_files([folder for folder in data_path(data_dir) if folder != SHIPPED_DIR], skip=catalog_files)


def catalog_entries() -> list[CatalogEntry]:
    """Every dataset of the paper, in the manifest's order."""
    return list(_manifest())


@functools.lru_cache(maxsize=1)
def _manifest() -> tuple[CatalogEntry, ...]:
    text = resources.files("mlhidden.data").joinpath("manifest.yaml").read_text(encoding="utf-8")
    return tuple(CatalogEntry(**entry) for entry in yaml.safe_load(text)["datasets"])


def load_dataset(spec: PathLike, data_dir: PathLike | None = None, params: Mapping[str, Any] | None = None) -> Dataset:
    """Load a dataset by catalog name, generator name or ARFF path.

    Parameters
    ----------
    spec : str or os.PathLike
        A catalog name (case-insensitive; the result carries the catalog's spelling), a
        generated dataset's name (``Logical``), or the path of any MEKA ARFF file.
    data_dir : str or os.PathLike, optional
        The first folder of the data path for catalog names (see :func:`data_path`).
    params : dict, optional
        Keyword arguments for a generator; for an ARFF path, ``{"labels": N}`` gives the label
        count of a file whose relation has no ``-C``, ``{"labels_xml": PATH}`` a Mulan label file
        (used by default when ``NAME.xml`` sits beside ``NAME.arff``). Catalog datasets take none.

    Raises
    ------
    DatasetUnavailable
        A user-supplied catalog file (MediaMill) is not in the data path.
    UserError
        Unknown name, missing file, checksum or shape different from the manifest, bad params,
        or a malformed file.
    """
    return load_source(dataset_source(spec, data_dir), params)


def dataset_source(spec: PathLike, data_dir: PathLike | None = None) -> DatasetSource:
    """What ``spec`` names (:func:`resolve_dataset`); an unknown name is a ``UserError`` saying what to write."""
    source = resolve_dataset(spec, data_dir)
    if source is None:
        raise UserError(unknown_dataset(spec), hint=unknown_dataset_hint(str(spec)))
    return source


def load_source(source: DatasetSource, params: Mapping[str, Any] | None = None) -> Dataset:
    """The dataset ``source`` names, made or read with ``params`` (see :func:`load_dataset`)."""
    params = dict(params or {})
    problem = dataset_params_problem(source, params)
    if problem is not None:
        raise UserError(problem, path=source.location if source.kind == "file" else None)
    if source.kind == "generator":
        return GENERATORS[source.location](**params)
    if source.kind == "catalog":
        return load_entry(_entries_by_name()[source.location], list(source.folders))
    if source.kind == "loader":
        return load_with(source.location, find_loader(source.location), params)
    path = Path(source.location)
    labels_xml = params.get("labels_xml") or (xml_beside(path) if params.get("labels") is None else None)
    dataset = load_arff_file(str(path.resolve()), sha256_of(path), params.get("labels"), label_file_key(labels_xml))
    if source.kind == "file":
        return dataset
    return dataclasses.replace(dataset, name=arff_stem(path) or path.name, source=source.location)


FILE_KINDS = ("file", "data file")
"""The kinds of dataset read from an ARFF file of the user's: by path, or by stem in the data path."""


def unknown_dataset_hint(name: str, relative_to: str = "") -> str:
    """What to write instead of an unknown dataset name."""
    where = f", relative to {relative_to}" if relative_to else ""
    names = ", ".join(_all_names())
    return (f"{did_you_mean(name, _all_names())}use one of {names}, an ARFF file's name in --data-dir, "
            f"a dataset loader (pkg.module:function), or the path of a MEKA ARFF file{where}")


LABELS_MEANING = "N > 0: the first N attributes are labels; N < 0: the last |N|"


@dataclasses.dataclass(frozen=True)
class DatasetSource:
    """What a dataset's name resolves to, worked out once (:func:`resolve_dataset`) and read from then on.

    ``kind`` is one of "generator", "catalog", "file" (an existing path), "data file" (an ARFF file
    of the data path by its stem), "loader" (an entry point's name or an import path,
    :mod:`~mlhidden.data.own_datasets`). ``location`` is the generator's or catalog's own spelling of
    the name, the ARFF file's path, or the loader's name; ``folders`` is the data path a catalog
    file is looked up in when it is loaded (and its checksum checked).
    """

    kind: str
    location: str
    folders: tuple[Path, ...] = ()


def resolve_dataset(spec: PathLike, data_dir: PathLike | None = None) -> DatasetSource | None:
    """What a dataset spec names, tried in the order of :class:`DatasetSource`'s kinds; None for nothing."""
    name = str(spec)
    generator = unique_match(name, GENERATORS, "dataset")
    if generator is not None:
        return DatasetSource("generator", generator)
    entry = unique_match(name, _entries_by_name(), "dataset")
    if entry is not None:
        return DatasetSource("catalog", entry, tuple(data_path(data_dir)))
    if Path(name).is_file():
        return DatasetSource("file", name)
    path = find_folder_file(name, own_files(data_dir))
    if path is not None:
        return DatasetSource("data file", str(path))
    return DatasetSource("loader", name) if find_loader(name) is not None else None


def dataset_kind(spec: PathLike, data_dir: PathLike | None = None) -> str | None:
    """The kind of :class:`DatasetSource` a dataset spec names; None for nothing."""
    source = resolve_dataset(spec, data_dir)
    return None if source is None else source.kind


def unknown_dataset(name: PathLike, path: PathLike | None = None) -> str:
    """Why ``name`` names no dataset: nothing is at ``path`` (default: ``name``), or what is there is not a file."""
    path = Path(str(name if path is None else path))
    try:
        mode = path.stat().st_mode
    except OSError as error:
        if error.errno == errno.ELOOP:
            return f"dataset '{name}' is a symbolic link that loops (too many levels of symbolic links)"
        if path.is_symlink():
            return f"dataset '{name}' is a symbolic link to {os.readlink(path)!r}, which does not exist"
        return f"unknown dataset '{name}' (not a dataset name and no such file)"
    if stat.S_ISDIR(mode):
        return f"dataset '{name}' is a directory, not an ARFF file"
    return f"dataset '{name}' is not a regular file (a pipe, socket or device)"


def dataset_params_problem(source: DatasetSource, params: Mapping[str, Any] | None) -> str | None:
    """Why :func:`load_source` would refuse ``params`` for ``source``, or None; decided without loading."""
    name, params, kind = source.location, dict(params or {}), source.kind
    if kind == "generator":
        signature = inspect.signature(GENERATORS[name])
        try:
            signature.bind(**params)
        except TypeError:
            unknown = sorted(set(params) - set(signature.parameters))
            guess = did_you_mean(unknown[0], signature.parameters).strip() if unknown else ""
            problem = f"{name} takes the parameters {', '.join(signature.parameters)}; got {', '.join(sorted(params))}"
            return problem + (f" ({guess})" if guess else "")
    elif kind == "catalog" and params:
        return f"{name} is read from a file and takes no parameters, got {', '.join(sorted(params))}"
    elif kind == "loader":
        return loader_params_problem(name, find_loader(name), params)
    elif kind in FILE_KINDS:
        unknown = sorted(set(params) - {"labels", "labels_xml"})
        if unknown:
            return f"an ARFF file takes only the parameters 'labels' and 'labels_xml', got {', '.join(unknown)}"
        count, xml = params.get("labels"), params.get("labels_xml")
        if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count == 0):
            return f"'labels' must be a non-zero integer ({LABELS_MEANING}), got {count!r}"
        if xml is not None and count is not None:
            return "give either 'labels' (a count) or 'labels_xml' (a Mulan label file), not both"
        if xml is not None and not Path(str(xml)).is_file():
            return f"the label file '{xml}' does not exist"
    return None


def _entries_by_name() -> dict[str, CatalogEntry]:
    return {entry.name: entry for entry in _manifest()}


def _all_names() -> list[str]:
    return list(_entries_by_name()) + list(GENERATORS)


def select_entries(names: Iterable[str] | None) -> list[CatalogEntry]:
    """The catalog entries named (case-insensitively), all when ``names`` is None."""
    if names is None:
        return list(_manifest())
    by_name = _entries_by_name()
    selected = []
    for name in names:
        key = unique_match(str(name), by_name, "dataset")
        if key is None:
            raise UserError(
                f"unknown dataset '{name}'",
                hint=f"{did_you_mean(name, by_name)}catalog datasets are {', '.join(by_name)}",
            )
        selected.append(by_name[key])
    return selected


@dataclasses.dataclass(frozen=True)
class FoundFile:
    """Where a catalog file was found in the data path and what it is.

    ``identity`` is the dataset's identity checksum (the manifest's ``sha256``, whichever form
    was found; the file's own sha256 for a user-supplied file), None unless status is ok.
    """

    path: Path | None
    sha256: str | None
    status: str
    identity: str | None = None


def find_entry(entry: CatalogEntry, folders: list[Path]) -> FoundFile:
    """The first file of ``entry`` in ``folders`` (mirror form before shipped form), checked against the manifest.

    The first file present decides: a damaged copy in ``--data-dir`` is reported, never silently
    replaced by another folder's.
    """
    for folder in folders:
        for name, expected in entry.candidates():
            path = folder / name
            if not path.is_file():
                continue
            found = sha256_of(path)
            if expected is None:
                return FoundFile(path, found, "no checksum", found)
            if found != expected:
                return FoundFile(path, found, "checksum mismatch")
            return FoundFile(path, found, "ok", entry.sha256)
    return FoundFile(None, None, entry.unavailable_status if entry.user_supplied else "missing")


def load_entry(entry: CatalogEntry, folders: list[Path]) -> Dataset:
    """Load a catalog file after checking that it is the manifest's file, and check its shape."""
    found = find_entry(entry, folders)
    if found.path is None:
        if found.status == entry.unavailable_status:
            raise DatasetUnavailable(entry.name, found.status)
        where = ", ".join(str(folder) for folder in folders)
        raise UserError(
            f"{entry.name}: {entry.file} is in none of the data folders {where}", path=folders[0], hint=MISSING_HINT
        )
    if found.status == "checksum mismatch":
        raise UserError(
            f"{entry.name}: checksum mismatch: expected sha256 {dict(entry.candidates())[found.path.name]}, "
            f"found {found.sha256}",
            path=found.path,
            hint="the file is damaged or a different version: delete it "
            "(the shipped copy is in the project's datasets/)",
        )
    dataset = load_arff_file(str(found.path.resolve()), found.identity, None, None)
    expected = (entry.n_samples, entry.n_labels, entry.n_features)
    actual = (dataset.n_samples, dataset.n_labels, dataset.n_features)
    if actual != expected:
        raise UserError(
            f"{entry.name}: expected N, L, D = {expected}, the file has {actual}",
            path=found.path,
            hint=f"this is not the {entry.name} dataset of the paper: replace the file",
        )
    return dataclasses.replace(dataset, name=entry.name, source=str(found.path))
