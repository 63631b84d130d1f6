"""Provenance: the ``run.json`` every run directory gets, and the report footer made from it.

``run.json`` answers "what produced these numbers?" long after the run: the resolved config and
its hash, the mlhidden version and git commit, Python and the key package versions, the data's
checksums, the seeds, the machine and backend, when the run started and ended, and how many
units were done, failed, skipped (already stored) or not run. It is written when the run starts
(``status: running``) and rewritten when it ends, each time atomically. Read back, each field is
checked for the shape mlhidden writes (:func:`field_readable`), as a user or another tool may edit it.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from mlhidden._version import __version__
from mlhidden.errors import InputWarning, UserError
from mlhidden.io import RUN_JSON, PathLike, write_text
from mlhidden.runs.record import RunRecord

FORMAT_VERSION = 1
KEY_PACKAGES = ("numpy", "scipy", "scikit-learn", "pandas", "joblib", "liac-arff", "PyYAML", "dask", "distributed")
PRECISION = "precision"  # run.json's key for `run --precision`
MAX_PRECISION = 12  # the most decimals `--precision` takes (cli.options)
UNIT_COUNTS = ("total", "done", "failed", "skipped", "not_run")
_RUN_JSON_KEYS = {
    "status",
    "config",
    "config_hash",
    "mlhidden",
    "python",
    "packages",
    "seeds",
    "machine",
    "backend",
    "started_at",
    "finished_at",
    "units",
}
# What decides a run's numbers in a checkout: the package, the configs and the build files. Results
# (which `make reproduce` rewrites), docs and tests do not make a checkout "modified".
SOURCE_PATHS = ("mlhidden", "configs", "pyproject.toml", "Makefile")
_GIB = 1 << 30

_Shape = Callable[[Any], bool]


def _text(value: Any) -> bool:
    return isinstance(value, str)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _or_null(shape: _Shape) -> _Shape:
    return lambda value: value is None or shape(value)


def _object(**fields: _Shape) -> _Shape:
    """A JSON object whose ``fields`` (a missing one read as null) have their shapes; other keys are free."""
    return lambda value: isinstance(value, dict) and all(shape(value.get(key)) for key, shape in fields.items())


_BLAS = _object(
    libraries=_or_null(lambda libraries: isinstance(libraries, list) and all(map(_object(), libraries))),
    kernel=_or_null(_object(chosen_by=_or_null(_text))),
)


def _backend(value: Any) -> bool:
    """Where the units ran: dask names its scheduler and workers too."""
    return _object(name=_text, blas=_or_null(_BLAS))(value) and (
        value["name"] != "dask" or _object(scheduler=_text, workers=_whole)(value)
    )


# The shape of each field of run.json that mlhidden reads back, as it writes it: one that another tool
# or a hand edit gave another shape is unreadable (:func:`field_readable`), never a traceback.
_SHAPES: dict[str, _Shape] = {
    "status": _text,
    "config": _object(name=_text),
    "config_hash": _text,
    "mlhidden": _object(version=_text, git_commit=_or_null(_text), git_dirty=_or_null(lambda v: isinstance(v, bool))),
    "python": _object(version=_text),
    "packages": lambda value: isinstance(value, dict) and all(map(_text, value.values())),
    "seeds": _object(run_seed=_whole),
    "machine": _object(cores=_or_null(_whole), memory_bytes=_or_null(_number)),
    "backend": _backend,
    "started_at": _text,
    "finished_at": _or_null(_text),
    "units": _object(**dict.fromkeys(UNIT_COUNTS, _whole)),
    PRECISION: _or_null(lambda value: _whole(value) and 0 <= value <= MAX_PRECISION),
}


def describe_run(
    config: RunRecord, datasets: Mapping[str, str], unavailable: Mapping[str, str],
    backend: Mapping[str, Any], started_at: str,
) -> dict[str, Any]:
    """Everything about a run that is known before its first unit, with ``status: running``.

    Parameters
    ----------
    config : RunRecord
        The run's resolved config (a :class:`~mlhidden.experiment.config.RunConfig` is one).
    datasets : dict
        Dataset name -> checksum of the data the units use.
    unavailable : dict
        Dataset name -> why it could not be loaded.
    backend : dict
        Where the units compute (:meth:`ExecutionBackend.describe`).
    started_at : str
        ISO 8601 time, UTC.
    """
    recipe = config.split_recipe
    record = config.record()
    return {
        "format": FORMAT_VERSION,
        "status": "running",
        "config_hash": record["config_hash"],
        "config": record,
        "command": list(sys.argv),
        "mlhidden": {"version": __version__, **git_revision()},
        "python": {"version": platform.python_version(), "implementation": platform.python_implementation()},
        "packages": package_versions(),
        "datasets": dict(datasets),
        "unavailable": dict(unavailable),
        "seeds": {
            "run_seed": recipe.run_seed,
            "train_fraction": recipe.train_fraction,
            "split_seeds": {name: recipe.split_seeds(name) for name in datasets},
            "method_seeds": {name: recipe.method_seeds(name) for name in datasets},
        },
        "machine": machine(),
        "backend": dict(backend),
        "started_at": started_at,
        "finished_at": None,
        "units": dict.fromkeys(UNIT_COUNTS, 0),
    }


def finish_run(
    run_json: Mapping[str, Any], units: Mapping[str, int], finished_at: str, *, interrupted: bool = False,
    reused_fit_seconds: float = 0.0, reused_units: Mapping[str, int] | None = None,
) -> dict[str, Any]:
    """``run_json`` with the end time, the unit counts and the final status.

    The status is ``interrupted`` (Ctrl-C), ``incomplete`` (units not run: their workers were
    lost too often, the cluster had none left, or the run stopped on an error such as running out
    of memory) or ``finished`` (every unit ran, some may have failed).
    ``reused_fit_seconds`` is the compute time that shared fits saved (the units' train times
    include it). ``reused_units`` maps each run directory units were copied from to their count
    (they are among the skipped).
    """
    status = "interrupted" if interrupted else "incomplete" if units.get("not_run") else "finished"
    return {
        **run_json,
        "status": status,
        "finished_at": finished_at,
        "reused_fit_seconds": round(reused_fit_seconds, 3),
        "units": {k: int(units.get(k, 0)) for k in UNIT_COUNTS},
        **({"reused_units": reused_units} if reused_units else {}),
    }


def write_run_json(run_dir: PathLike, run_json: Mapping[str, Any]) -> Path:
    """Write ``run_dir/run.json`` through a temporary file, so a reader never sees half of it."""
    text = json.dumps(run_json, indent=2, sort_keys=True) + "\n"
    return write_text(Path(run_dir) / RUN_JSON, text, own_run_json=True)


def remember_precision(run_dir: PathLike, precision: int | None) -> None:
    """Keep ``run --precision`` in ``run.json``, so that ``report`` and the page show the run's decimals again."""
    run_json = read_run_json(run_dir)
    if run_json is not None and precision is not None and run_json.get(PRECISION) != precision:
        write_run_json(run_dir, {**run_json, PRECISION: precision})


def stored_precision(run_jsons: Mapping[str, Mapping[str, Any] | None]) -> int | None:
    """The decimals chosen at ``run --precision`` (of the first of ``run_jsons``, run directory -> its
    ``run.json``, that kept one), else None.

    They decide how every value of the tables reads, so a mistyped one is refused (``UserError``), not guessed.
    """
    for run_dir, run_json in run_jsons.items():
        if run_json is None:
            continue
        if not field_readable(run_json, PRECISION):
            raise UserError(
                f"its '{PRECISION}' is {_quoted(run_json[PRECISION])}, not a whole number of decimals from 0 to "
                f"{MAX_PRECISION}", path=Path(run_dir) / RUN_JSON,
                hint="correct it, or remove it for the default decimals, or give --precision N, which `run` keeps "
                "in its place",
            )
        if run_json.get(PRECISION) is not None:
            return int(run_json[PRECISION])
    return None


def field_readable(run_json: Mapping[str, Any], key: str) -> bool:
    """Whether ``run_json[key]`` has the shape mlhidden writes (an absent optional field does)."""
    return _SHAPES[key](run_json.get(key))


def _quoted(value: Any) -> str:
    """``value`` as JSON writes it, shortened to what fits in a message."""
    text = json.dumps(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


def read_run_json(run_dir: PathLike) -> dict[str, Any] | None:
    """The run's provenance (its ``run.json``), or None for a run directory without one (an older mlhidden).

    An unreadable ``run.json`` is None too, with a warning: it only describes the run, so it
    blocks neither the tables (the store holds the results) nor a run (which rewrites it).
    """
    path = Path(run_dir) / RUN_JSON
    if not path.is_file():
        return None
    try:
        run_json = json.loads(path.read_text(encoding="utf-8"))
        readable = isinstance(run_json, dict) and run_json.get("format") == FORMAT_VERSION
        if not readable or not _RUN_JSON_KEYS <= run_json.keys():
            raise ValueError(f"not a run.json of format {FORMAT_VERSION}")
    except (OSError, ValueError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        reason = exc.strerror if isinstance(exc, OSError) else str(exc)
        warnings.warn(
            f"{path}: unreadable ({reason}); the tables say nothing of what produced them "
            "until `mlhidden run` rewrites it",
            InputWarning,
            stacklevel=2,
        )
        return None
    return dict(run_json)


def git_revision(package_root: PathLike | None = None) -> dict[str, Any]:
    """The commit of the mlhidden checkout this code runs from, and whether its sources have local changes.

    Only changes under :data:`SOURCE_PATHS` count as ``git_dirty``. Both are None for an
    installed copy: a git repository around site-packages is not ours. ``package_root`` is the
    checkout (by default the one holding this package).
    """
    root = Path(__file__).resolve().parents[2] if package_root is None else Path(package_root).resolve()

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    toplevel = git("rev-parse", "--show-toplevel")
    if toplevel is None or Path(toplevel).resolve() != root:
        return {"git_commit": None, "git_dirty": None}
    changes = git("status", "--porcelain", "--untracked-files=no", "--", *SOURCE_PATHS)
    return {"git_commit": git("rev-parse", "HEAD"), "git_dirty": None if changes is None else bool(changes)}


def package_versions() -> dict[str, str]:
    """The installed versions of the packages that decide the numbers (absent ones left out)."""
    versions = {}
    for name in KEY_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return versions


def machine() -> dict[str, Any]:
    """The host the run was started on: name, platform, cores and physical memory (bytes, if known)."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        memory = None
    return {
        "hostname": platform.node(),
        "platform": platform.platform(),
        "cores": os.cpu_count(),
        "memory_bytes": memory,
    }


def provenance_line(run_json: Mapping[str, Any]) -> str:
    """One line (ASCII, so it can sit in a LaTeX comment) saying what produced a run's results.

    A field another tool or a hand edit gave another shape reads "<field> unreadable" and the rest
    is shown: the footer only describes the run, whose numbers the store holds.
    """

    def shown(key: str, say: Callable[[Any], str]) -> str:
        return say(run_json[key]) if field_readable(run_json, key) else f"{key} unreadable"

    return (
        f"{shown('config', 'run {0[name]}'.format)} ({shown('config_hash', 'config {0}'.format)}, "
        f"{shown('seeds', 'seed {0[run_seed]}'.format)}): "
        f"{shown('mlhidden', _code)}; {shown('python', 'Python {0[version]}'.format)}, {shown('packages', _packages)}; "
        f"{shown('machine', _host)}, {shown('backend', _where)}; "
        f"{shown('started_at', str)} to {shown('finished_at', lambda at: at or '(not finished)')}, "
        f"{shown('status', str)}; {shown('units', _unit_counts)}"
    )


def _code(code: Mapping[str, Any]) -> str:
    if not code.get("git_commit"):
        return f"mlhidden {code['version']}"
    return f"mlhidden {code['version']} (git {code['git_commit'][:12]}{', modified' if code.get('git_dirty') else ''})"


def _packages(versions: Mapping[str, str]) -> str:
    rank = {name: i for i, name in enumerate(KEY_PACKAGES)}
    in_order = sorted(versions.items(), key=lambda item: rank.get(item[0], len(rank)))
    return ", ".join(f"{name} {version}" for name, version in in_order)


def _host(host: Mapping[str, Any]) -> str:
    memory = f", {host['memory_bytes'] / _GIB:.1f} GiB" if host.get("memory_bytes") else ""
    return f"{host['cores']} cores{memory}"


def _where(backend: Mapping[str, Any]) -> str:
    where = (
        f"dask at {backend['scheduler']} ({backend['workers']} workers)"
        if backend["name"] == "dask"
        else backend["name"]
    )
    return f"backend {where}{_blas_kernels(backend.get('blas') or {})}"


def _unit_counts(units: Mapping[str, int]) -> str:
    counts = ", ".join(f"{units[key]} {key.replace('_', ' ')}" for key in UNIT_COUNTS[1:])
    return f"{units['total']} units: {counts}"


def blas_architectures(libraries: Sequence[Mapping[str, Any]]) -> str:
    """The kernels (threadpoolctl's ``architecture``) of the BLAS libraries in ``run.json``'s list, "/"-joined."""
    return "/".join(sorted({str(lib.get("architecture")) for lib in libraries if lib.get("user_api") == "blas"}))


def _blas_kernels(blas: Mapping[str, Any]) -> str:
    """``", OpenBLAS SkylakeX kernels (why)"``: the kernels the run's BLAS ran, for the footer ("" if unknown)."""
    kernels = blas_architectures(blas.get("libraries") or [])
    if not kernels:
        return ""
    why = (blas.get("kernel") or {}).get("chosen_by")
    return f", BLAS kernels {kernels}" + (f" (chosen by {why})" if why else "")


def provenance_lines(run_jsons: Mapping[str, Mapping[str, Any] | None]) -> list[str]:
    """Footer lines for a report: one per run (prefixed by its directory when several are merged)."""
    present = {run_dir: run_json for run_dir, run_json in run_jsons.items() if run_json is not None}
    if len(run_jsons) == 1:
        return [provenance_line(run_json) for run_json in present.values()]
    return [f"{run_dir}: {provenance_line(run_json)}" for run_dir, run_json in present.items()]
