"""The paper's datasets by name: where their files are, what they must contain, and loading them.

``manifest.yaml`` (beside this module) lists each dataset's file, expected shape and sha256. Files
live in the data path (``--data-dir``, else ``MLHIDDEN_DATA``, else ``./datasets``). Parsed arrays
are cached on disk by the file's sha256, so each file is parsed once per machine, and memoised in
the process.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import inspect
import http.client
import os
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from importlib import resources
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import yaml

from mlhidden.data.arff import READER_VERSION, read_arff
from mlhidden.data.dataset import Dataset
from mlhidden.data.generated import GENERATORS
from mlhidden.errors import UserError

DATA_ENV = "MLHIDDEN_DATA"
CACHE_ENV = "MLHIDDEN_CACHE"
MISSING_HINT = "run `make datasets` or pass --data-dir / set MLHIDDEN_DATA"
_CHUNK = 1 << 20
HTTP_TIMEOUT_SECONDS = 60


class DatasetUnavailable(UserError):
    """A registry dataset the user must supply themselves (no copy is distributed) is not in the data path."""


@dataclasses.dataclass(frozen=True)
class RegistryEntry:
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
        The file's checksum; None for user-supplied files, which are checked by shape.
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

    @property
    def unavailable_status(self) -> str:
        return f"not available (put {self.file} in the data path)"


def resolve_data_dir(data_dir=None) -> Path:
    """The folder holding the dataset files: ``data_dir``, else ``$MLHIDDEN_DATA``, else ``./datasets``."""
    if data_dir is not None:
        return Path(data_dir)
    return Path(os.environ.get(DATA_ENV) or "datasets")


def registry_entries() -> list[RegistryEntry]:
    """Every dataset of the paper, in the manifest's order."""
    return list(_manifest())


@functools.lru_cache(maxsize=1)
def _manifest() -> tuple[RegistryEntry, ...]:
    text = resources.files("mlhidden.data").joinpath("manifest.yaml").read_text(encoding="utf-8")
    return tuple(RegistryEntry(**entry) for entry in yaml.safe_load(text)["datasets"])


def load_dataset(spec, data_dir=None, params=None) -> Dataset:
    """Load a dataset by registry name, generator name or ARFF path.

    Parameters
    ----------
    spec : str or os.PathLike
        A registry name (case-insensitive; the result carries the registry's spelling), a
        generated dataset's name (``Logical``), or the path of any MEKA ARFF file.
    data_dir : str or os.PathLike, optional
        The data path for registry names (see :func:`resolve_data_dir`).
    params : dict, optional
        Keyword arguments for a generator; for an ARFF path, ``{"labels": N}`` gives the label
        count of a file whose relation has no ``-C``. Registry datasets take none.

    Raises
    ------
    DatasetUnavailable
        A user-supplied registry file (MediaMill) is not in the data path.
    UserError
        Unknown name, missing file, checksum or shape different from the manifest, bad params,
        or a malformed file.
    """
    params = dict(params or {})
    name = str(spec)
    kind = dataset_kind(name)
    if kind is None:
        raise UserError(
            f"unknown dataset '{name}' (not a dataset name and no such file)",
            hint=f"use one of {', '.join(_all_names())} or the path of a MEKA ARFF file",
        )
    problem = dataset_params_problem(name, params)
    if problem is not None:
        raise UserError(problem, path=spec if kind == "file" else None)
    if kind == "generator":
        generator_name = _match(GENERATORS, name)
        return GENERATORS[generator_name](**params)
    if kind == "registry":
        return _load_entry(_entries_by_name()[_match(_entries_by_name(), name)], resolve_data_dir(data_dir))
    path = Path(spec)
    return _load_file(str(path.resolve()), _sha256(path), params.get("labels"))


LABELS_MEANING = "N > 0: the first N attributes are labels; N < 0: the last |N|"


def dataset_kind(spec) -> str | None:
    """What a dataset spec names: "generator", "registry" or "file" (an existing path); None for nothing."""
    name = str(spec)
    if _match(GENERATORS, name) is not None:
        return "generator"
    if _match(_entries_by_name(), name) is not None:
        return "registry"
    return "file" if Path(name).is_file() else None


def dataset_params_problem(spec, params) -> str | None:
    """Why :func:`load_dataset` would refuse ``params`` for ``spec``, or None; decided without loading."""
    name, params, kind = str(spec), dict(params or {}), dataset_kind(spec)
    if kind == "generator":
        generator_name = _match(GENERATORS, name)
        signature = inspect.signature(GENERATORS[generator_name])
        try:
            signature.bind(**params)
        except TypeError:
            return f"{generator_name} takes the parameters {', '.join(signature.parameters)}; got {', '.join(sorted(params))}"
    elif kind == "registry" and params:
        return f"{_match(_entries_by_name(), name)} is read from a file and takes no parameters, got {', '.join(sorted(params))}"
    elif kind == "file":
        unknown = sorted(set(params) - {"labels"})
        if unknown:
            return f"an ARFF file takes only the parameter 'labels', got {', '.join(unknown)}"
        count = params.get("labels")
        if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count == 0):
            return f"'labels' must be a non-zero integer ({LABELS_MEANING}), got {count!r}"
    return None


def dataset_names() -> list[str]:
    """Every name :func:`load_dataset` knows: the registry's, then the generators'."""
    return _all_names()


def dataset_table(data_dir=None) -> list[dict]:
    """One row per registry dataset plus the generated ones: availability, shape, checksum, status.

    Shapes come from the parsed file when it is available, else from the manifest.
    """
    data_dir = resolve_data_dir(data_dir)
    rows = []
    for entry in _manifest():
        path, found, status = _file_status(entry, data_dir)
        shape_source = entry
        if status in ("ok", "no checksum"):
            try:
                shape_source = _load_entry(entry, data_dir)
                status = "ok"
            except UserError as error:
                status = error.message
        rows.append(_table_row(entry.name, entry.file, status == "ok", shape_source, found or entry.sha256, status))
    for name, generator in GENERATORS.items():
        dataset = generator()
        rows.append(_table_row(name, "(generated)", True, dataset, dataset.checksum, "ok"))
    return rows


def verify_datasets(data_dir=None, names=None) -> list[dict]:
    """Check each registry file's sha256 against the manifest (hashing only, no parsing).

    Parameters
    ----------
    data_dir : str or os.PathLike, optional
        The data path (see :func:`resolve_data_dir`).
    names : iterable of str, optional
        Registry names to check (default: all).

    Returns
    -------
    list of dict
        Rows with keys name, file, status ("ok", "missing", "checksum mismatch", "no checksum"
        or "not available (...)"), expected and found (sha256 hex or None).
    """
    data_dir = resolve_data_dir(data_dir)
    rows = []
    for entry in _select(names):
        _, found, status = _file_status(entry, data_dir)
        rows.append(
            {"name": entry.name, "file": entry.file, "status": status, "expected": entry.sha256, "found": found}
        )
    return rows


def copy_from_mirror(mirror, data_dir=None, names=None) -> list[dict]:
    """Copy or download the registry files of a mirror into the data path, verified by sha256.

    Each file is streamed into a temporary file beside its destination while it is hashed, and
    renamed into place only when the checksum is the manifest's, so an interrupted or corrupted
    transfer leaves nothing behind. Files already present with the right checksum are left alone.

    Parameters
    ----------
    mirror : str or os.PathLike
        A folder holding the dataset files (e.g. the project's shared mirror), or an http(s)
        base URL under which each file is ``<mirror>/<file name>``.
    data_dir : str or os.PathLike, optional
        The destination (see :func:`resolve_data_dir`); created if needed.
    names : iterable of str, optional
        Registry names to fetch (default: all).

    Returns
    -------
    list of dict
        Rows with keys name, file, status ("copied", "downloaded", "already present", "missing
        in mirror" or "not available (...)").

    Raises
    ------
    UserError
        The mirror folder does not exist, the server cannot be reached or answers with an error,
        or a mirror file's checksum differs from the manifest (that file is not written).
    """
    open_source, fetched = _mirror(mirror)
    data_dir = resolve_data_dir(data_dir)
    rows = []
    for entry in _select(names):
        target = data_dir / entry.file
        if target.is_file() and entry.sha256 is not None and _sha256(target) == entry.sha256:
            status = "already present"
        elif (source := open_source(entry.file)) is None:
            status = entry.unavailable_status if entry.user_supplied else "missing in mirror"
        else:
            stream, origin = source
            data_dir.mkdir(parents=True, exist_ok=True)
            with stream:
                write_atomically(target, functools.partial(_copy_verified, stream, entry, origin))
            status = fetched
        rows.append({"name": entry.name, "file": entry.file, "status": status})
    return rows


def _mirror(mirror):
    """``(open, status)``: ``open(file name)`` gives ``(binary stream, location)``, or None when the mirror lacks the file."""
    text = str(mirror)
    if text.lower().startswith(("http://", "https://")):
        base = text.rstrip("/") + "/"

        def open_url(file):
            url = base + urllib.parse.quote(file)
            try:
                return urllib.request.urlopen(url, timeout=HTTP_TIMEOUT_SECONDS), url
            except urllib.error.HTTPError as exc:
                exc.close()
                if exc.code == 404:
                    return None
                raise UserError(f"the mirror answered HTTP {exc.code} ({exc.reason})", path=url) from None
            except OSError as exc:
                reason = getattr(exc, "reason", exc)
                raise UserError(f"cannot reach the mirror: {reason}", path=url, hint="check the URL and the network") from None

        return open_url, "downloaded"
    folder = Path(mirror)
    if not folder.is_dir():
        raise UserError("the dataset mirror folder does not exist", path=folder, hint="give a folder or an http(s) base URL")

    def open_file(file):
        path = folder / file
        return (open(path, "rb"), path) if path.is_file() else None

    return open_file, "copied"


def _copy_verified(stream, entry: RegistryEntry, origin, out) -> None:
    """Copy ``stream`` to ``out`` while hashing it; refuse (UserError) a checksum other than the manifest's."""
    digest = hashlib.sha256()
    while True:
        try:
            chunk = stream.read(_CHUNK)
        except (OSError, http.client.HTTPException) as exc:
            raise UserError(f"{entry.name}: reading the mirror's copy failed: {exc}", path=origin, hint="try again") from None
        if not chunk:
            break
        digest.update(chunk)
        out.write(chunk)
    owed = getattr(stream, "length", None)  # bytes an HTTP response announced but never sent
    if owed:
        raise UserError(f"{entry.name}: the download ended {owed} bytes early", path=origin, hint="try again")
    found = digest.hexdigest()
    if entry.sha256 is not None and found != entry.sha256:
        raise UserError(
            f"{entry.name}: the mirror's copy has sha256 {found}, expected {entry.sha256}; not copied",
            path=origin,
            hint="the mirror file is damaged or another version: restore it from the manifest's source",
        )


def _match(named: dict, spec: str):
    """The key of ``named`` equal to ``spec`` ignoring case, or None."""
    return next((key for key in named if key.lower() == spec.lower()), None)


def _entries_by_name() -> dict[str, RegistryEntry]:
    return {entry.name: entry for entry in _manifest()}


def _all_names() -> list[str]:
    return list(_entries_by_name()) + list(GENERATORS)


def _select(names) -> list[RegistryEntry]:
    """The registry entries named (case-insensitively), all when ``names`` is None."""
    if names is None:
        return list(_manifest())
    by_name = _entries_by_name()
    selected = []
    for name in names:
        key = _match(by_name, str(name))
        if key is None:
            raise UserError(f"unknown dataset '{name}'", hint=f"registry datasets are {', '.join(by_name)}")
        selected.append(by_name[key])
    return selected


def _file_status(entry: RegistryEntry, data_dir: Path) -> tuple[Path, str | None, str]:
    """The file's path, its sha256 (None when absent) and its status against the manifest."""
    path = data_dir / entry.file
    if not path.is_file():
        return path, None, entry.unavailable_status if entry.user_supplied else "missing"
    found = _sha256(path)
    if entry.sha256 is None:
        return path, found, "no checksum"
    return path, found, "ok" if found == entry.sha256 else "checksum mismatch"


def _load_entry(entry: RegistryEntry, data_dir: Path) -> Dataset:
    """Load a registry file after checking that it is the manifest's file, and check its shape."""
    path, found, status = _file_status(entry, data_dir)
    if status == entry.unavailable_status:
        raise DatasetUnavailable(f"{entry.name}: {status}")
    if status == "missing":
        raise UserError(f"{entry.name}: {entry.file} is not in the data path {data_dir}", path=path, hint=MISSING_HINT)
    if status == "checksum mismatch":
        raise UserError(
            f"{entry.name}: checksum mismatch: expected sha256 {entry.sha256}, found {found}",
            path=path,
            hint="the file is damaged or a different version: delete it and run `make datasets`",
        )
    dataset = _load_file(str(path.resolve()), found, None)
    expected = (entry.n_samples, entry.n_labels, entry.n_features)
    actual = (dataset.n_samples, dataset.n_labels, dataset.n_features)
    if actual != expected:
        raise UserError(
            f"{entry.name}: expected N, L, D = {expected}, the file has {actual}",
            path=path,
            hint=f"this is not the {entry.name} dataset of the paper: replace the file",
        )
    return dataclasses.replace(dataset, name=entry.name, source=str(path))


@functools.lru_cache(maxsize=32)
def _load_file(path: str, sha256: str, labels) -> Dataset:
    """Parse an ARFF file once per machine (disk cache by checksum) and once per process (memo).

    The arrays of the returned dataset are read-only, since every caller shares them.
    """
    cache_path = _cache_dir() / f"{sha256}-r{READER_VERSION}{'' if labels is None else f'-C{labels}'}.npz"
    dataset = _read_cache(cache_path, path, sha256)
    if dataset is None:
        dataset = read_arff(path, labels=labels)
        _write_cache(cache_path, dataset)
    for array in (
        dataset.Y,
        *((dataset.X.data, dataset.X.indices, dataset.X.indptr) if dataset.is_sparse else (dataset.X,)),
    ):
        array.flags.writeable = False
    return dataset


def _cache_dir() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "mlhidden")


def _read_cache(cache_path: Path, path: str, sha256: str) -> Dataset | None:
    """The cached dataset, or None when absent or unreadable (a corrupt entry is simply re-parsed)."""
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
                source=path,
                sha256=sha256,
            )
    except Exception:  # any failure to read a cache entry means it is corrupt: parse the file instead
        return None
    consistent = (
        dataset.X.shape[0] == dataset.n_samples
        and len(dataset.feature_names) == dataset.n_features
        and len(dataset.label_names) == dataset.n_labels
        and dataset.Y.dtype == np.int8
        and dataset.X.dtype == np.float64
    )
    return dataset if consistent else None


def _write_cache(cache_path: Path, dataset: Dataset) -> None:
    """Store the parsed arrays; a cache that cannot be written only costs a re-parse next time."""
    arrays = {
        "name": np.array(dataset.name),
        "Y": dataset.Y,
        "feature_names": np.array(dataset.feature_names, dtype=str),
        "label_names": np.array(dataset.label_names, dtype=str),
        "sparse": np.array(dataset.is_sparse),
    }
    if dataset.is_sparse:
        arrays.update(
            X_data=dataset.X.data,
            X_indices=dataset.X.indices,
            X_indptr=dataset.X.indptr,
            X_shape=np.array(dataset.X.shape),
        )
    else:
        arrays["X"] = dataset.X
    try:
        cache_path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(cache_path, lambda stream: np.savez(stream, **arrays))
    except OSError:
        pass


def write_atomically(path: Path, write) -> None:
    """Call ``write(binary stream)`` on a temporary file beside ``path``, then rename it into place.

    If ``write`` raises, the temporary file is removed and ``path`` is untouched.
    """
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            write(stream)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _table_row(name, file, available, shape, sha256, status) -> dict:
    """A dataset_table row; ``shape`` is a Dataset or a RegistryEntry (same attribute names)."""
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
