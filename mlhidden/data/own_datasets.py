"""The user's own datasets by name: ARFF files in the data path, and dataset loaders.

An ARFF file in ``--data-dir`` or ``$MLHIDDEN_DATA`` is a dataset named by its stem
(``DIR/Emotions.arff`` is ``Emotions``), so a folder of files is used as the paper's datasets are.
A *loader* is a function returning a :class:`~mlhidden.data.dataset.Dataset` from any source (a
database, a download cache, arrays built in code): an installed package registers it by name in
the ``mlhidden.datasets`` entry-point group, or a config names it by import path
(``my_pkg.data:load_emotions``); a config entry's ``params`` are its keyword arguments.

Names follow the catalog's case rule: any case matches, the exact spelling wins, and two that
differ only in case must be written exactly. :mod:`mlhidden.data.catalog` decides which kind a
name is, catalog and generator names first.
"""

from __future__ import annotations

import functools
import importlib.util
import inspect
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from mlhidden.data.arff.mulan import ARFF_SUFFIXES
from mlhidden.data.dataset import Dataset
from mlhidden.errors import UserError, unique_match
from mlhidden.imports import import_object, load_entry_points, working_folder_importable
from mlhidden.io import PathLike

ENTRY_POINT_GROUP = "mlhidden.datasets"


def arff_stem(path: Path) -> str | None:
    """``Emotions`` for ``Emotions.arff`` (or ``.arff.gz`` / ``.arff.bz2``); None for a file of another kind."""
    name = path.name
    suffix = next((s for s in ARFF_SUFFIXES if name.lower().endswith(s)), None)
    return name[: -len(suffix)] if suffix and len(name) > len(suffix) else None


def folder_files(folders: Iterable[PathLike], skip: Iterable[str] = ()) -> dict[str, Path]:
    """``{stem: path}`` of the ARFF files in ``folders`` but those named in ``skip``; the first folder with a stem
    wins."""
    found: dict[str, Path] = {}
    for folder in folders:
        if not Path(folder).is_dir():
            continue
        for path in sorted(Path(folder).iterdir()):
            stem = arff_stem(path)
            if stem is not None and stem not in found and path.name not in skip and path.is_file():
                found[stem] = path
    return found


def find_folder_file(name: str, files: Mapping[str, Path]) -> Path | None:
    """The file of ``files`` (:func:`folder_files`) whose stem is ``name`` (catalog names' case rule), or None."""
    stem = unique_match(name, files, "dataset")
    return None if stem is None else files[stem]


@functools.cache
def entry_point_loaders() -> dict[str, tuple[Any, str]]:
    """``{name: (loader, source)}`` for the loaders installed packages register in ``mlhidden.datasets``."""
    return load_entry_points(ENTRY_POINT_GROUP, "dataset loader")


def find_loader(name: str) -> Any:
    """The loader ``name`` names: an entry point's name, or an import path (``pkg.module:function``;
    ``pkg.module.function`` when ``pkg`` is importable, so that a missing ``data.arff`` stays a missing file)."""
    registered = entry_point_loaders()
    key = unique_match(name, registered, "dataset loader")
    if key is not None:
        return registered[key][0]
    if ":" not in name and not _importable_dotted(name):
        return None
    loader = import_object(name, "dataset loader")
    if not callable(loader):
        kind = type(loader).__name__
        raise UserError(
            f"dataset loader '{name}' is a {kind}, not a function",
            hint="name a function returning a Dataset",
        )
    return loader


def _importable_dotted(name: str) -> bool:
    top, dot, rest = name.partition(".")
    if arff_stem(Path(name)) is not None or not dot or not all(part.isidentifier() for part in [top, *rest.split(".")]):
        return False
    working_folder_importable()
    try:
        return importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        return False


def loader_params_problem(name: str, loader: Callable[..., Any], params: Mapping[str, Any]) -> str | None:
    """Why ``loader`` cannot take ``params`` as keyword arguments, or None."""
    try:
        signature = inspect.signature(loader)
    except (TypeError, ValueError):
        return None
    try:
        signature.bind(**params)
    except TypeError as exc:
        return f"dataset loader '{name}' cannot take the parameters {', '.join(sorted(params)) or '(none)'}: {exc}"
    return None


def load_with(name: str, loader: Callable[..., Any], params: Mapping[str, Any]) -> Dataset:
    """Call ``loader(**params)`` and check that it gave a Dataset; whatever it raises is one line naming it."""
    try:
        dataset = loader(**params)
    except UserError:
        raise
    except Exception as exc:  # the user's loader: any error in it is theirs to fix
        raise UserError(f"dataset loader '{name}' failed: {type(exc).__name__}: {exc}".splitlines()[0]) from None
    if not isinstance(dataset, Dataset):
        raise UserError(
            f"dataset loader '{name}' returned a {type(dataset).__name__}, not a Dataset",
            hint="return mlhidden.data.Dataset(name=..., X=..., Y=..., feature_names=..., label_names=...)",
        )
    return dataset
