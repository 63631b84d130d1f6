"""Run configs: YAML in, a validated ``RunConfig`` out, or one ``UserError`` line naming file:line.

A config is validated entirely before anything runs: unknown keys, unknown methods, datasets,
base learners or parameters, wrong types, dataset paths that do not exist. The contents of
dataset files are checked when they are loaded, which also happens before the first unit runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mlhidden.data.catalog import FILE_KINDS, LABELS_MEANING
from mlhidden.experiment.command_line import method_entries, protocol_option, run_name
from mlhidden.experiment.config_entries import at_entry, dataset_specs, described, method_specs
from mlhidden.experiment.overlay import ONE_VS_REST, BaseOverlay
from mlhidden.experiment.sweeps import MAX_ENTRIES, SPLIT_THE_RUN
from mlhidden.io import PathLike
from mlhidden.runs.metrics import check_metric_name
from mlhidden.runs.record import RunRecord
from mlhidden.runs.specs import DatasetSpec, MethodSpec
from mlhidden.runs.splits import DEFAULT_FOLDS, PROTOCOL_KINDS, TRAIN_FRACTION, Protocol
from mlhidden.shipped import config_file, config_not_found_hint
from mlhidden.yaml_lines import Fail, KeyPath, failure_at, line_of, read_yaml_with_lines, refuse_unknown_keys

TOP_LEVEL_KEYS = (
    "name",
    "datasets",
    "methods",
    "splits",
    "seed",
    "n_jobs",
    "train_fraction",
    "shuffle_labels",
    "protocol",
    "metrics",
)
DEFAULT_SPLITS = 10
"""The random train/test splits of a run whose config names none."""
MAX_SPLITS = 1_000
"""The most splits (or folds) of a run."""
MAX_UNITS = 100_000
"""The most units of a run (datasets x methods x splits): each is a fit, and the store keeps one row each."""


@dataclass(frozen=True)
class RunConfig(RunRecord):
    """A run's config: the :class:`~mlhidden.runs.record.RunRecord` the store keeps, plus runtime options."""

    n_jobs: int | None = None
    source: str | None = None
    n_jobs_origin: str | None = field(default=None, compare=False)
    """Where ``n_jobs`` was set (``FILE:LINE`` or ``--n-jobs``), for the warning when it is capped."""
    metrics: tuple[str, ...] = field(default=(), compare=False)
    """Metrics tabulated after the run from the stored predictions (``metrics:``); not part of the run's identity."""
    adjustments: tuple[str, ...] = field(default=(), compare=False)
    """What a :class:`~mlhidden.experiment.overlay.BaseOverlay` had to adjust, one line each."""
    unit_timeout: float | None = field(default=None, compare=False)
    """Seconds after which a unit is stopped and stored as failed (``--timeout``); like n_jobs, not part of the run's
    identity."""


def load_config(
    path: PathLike, *, splits: int | None = None, seed: int | None = None, n_jobs: int | None = None,
    labels: int | None = None, protocol: str | None = None, overlay: BaseOverlay | None = None,
    data_dir: PathLike | None = None,
) -> RunConfig:
    """Read and validate a run config (a path, or a shipped config's name: :func:`~mlhidden.shipped.config_file`);
    command-line overrides win over the file (``protocol``: a ``--protocol`` value)."""
    path = config_file(path)
    data, lines = read_yaml_with_lines(path, missing=config_not_found_hint(path))
    protocol_entry = None if protocol is None else protocol_option(protocol)
    overrides: dict[str, Any] = {
        "splits": splits, "seed": seed, "n_jobs": n_jobs, "labels": labels, "protocol": protocol_entry,
        "overlay": overlay, "data_dir": data_dir,
    }
    return parse_config(data, source=path, lines=lines, **overrides)


def parse_config(
    data: Any, *, source: PathLike | None = None, lines: Mapping[KeyPath, int] | None = None, splits: int | None = None,
    seed: int | None = None, n_jobs: int | None = None, labels: int | None = None,
    protocol: Mapping[str, Any] | None = None, overlay: BaseOverlay | None = None, data_dir: PathLike | None = None,
) -> RunConfig:
    """Validate a config mapping (as read from YAML) into a ``RunConfig``.

    ``splits``, ``seed``, ``n_jobs`` and ``protocol`` (a ``protocol`` entry; a k-fold one drops the
    file's ``splits`` and ``train_fraction``) override the config's values; ``labels`` becomes the
    ``labels`` parameter of every dataset given as an ARFF path (the label count of files whose
    relation has no ``-C``, or an override of it). ``overlay`` re-bases methods
    (:mod:`mlhidden.experiment.overlay`) before they are resolved. ``data_dir`` is the first folder
    of the data path, whose ARFF files are datasets by name.
    """
    fail = failure_at(source, lines or {})
    if not isinstance(data, Mapping):
        fail("a config must be a mapping with 'datasets' and 'methods'", hint="see configs/smoke.yaml")
    if protocol is not None:  # the option's folds replace the file's holdout settings
        holdout = ("splits", "train_fraction") if protocol.get("kind") != "holdout" else ()
        data = {**{k: v for k, v in data.items() if k not in holdout}, "protocol": protocol}
    refuse_unknown_keys(data, TOP_LEVEL_KEYS, (), fail)
    for key in ("datasets", "methods"):
        if not isinstance(data.get(key), list) or not data[key]:
            fail(f"'{key}' must be a non-empty list", (key,), hint="see configs/smoke.yaml")
    settings = _run_settings(data, fail, splits=splits, seed=seed, n_jobs=n_jobs)
    if labels is not None and (isinstance(labels, bool) or not isinstance(labels, int) or labels == 0):
        fail(f"--labels must be a non-zero integer, got {labels!r}", None, hint=LABELS_MEANING)
    name = _run_name(data.get("name") or (Path(source).stem if source else "run"), fail)
    folder = None if source is None else Path(source).parent
    datasets: list[DatasetSpec] = []
    dataset_places: list[KeyPath] = []
    for i, entry in enumerate(data["datasets"]):
        points = dataset_specs(entry, ("datasets", i), labels, folder, fail, MAX_ENTRIES - len(datasets), data_dir)
        datasets += points
        dataset_places += [("datasets", i)] * len(points)
    named = [(d.label or d.name, _dataset_key(d), where) for d, where in zip(datasets, dataset_places)]
    _refuse_names_twice("dataset", named, fail, "list each dataset once, or give each entry a distinct 'label'")
    if labels is not None and not any(d.source is not None and d.source.kind in FILE_KINDS for d in datasets):
        fail("--labels applies to datasets given as ARFF paths, and this config has none", None)
    methods: list[MethodSpec] = []
    method_places: list[KeyPath] = []
    wrapped: list[str] = []
    for i, entry in enumerate(data["methods"]):
        specs = method_specs(entry, ("methods", i), fail, MAX_ENTRIES - len(methods), overlay, wrapped)
        methods += specs
        method_places += [("methods", i)] * len(specs)
    adjustments = tuple(f"{name}: {label} fits its multi-class model with {ONE_VS_REST}" for label in wrapped)
    _refuse_names_twice(
        "method", [(m.label, m.label.casefold(), where) for m, where in zip(methods, method_places)], fail,
        "give each entry a distinct 'label'",
    )
    units = len(datasets) * len(methods) * settings["splits"]
    if units > MAX_UNITS:
        fail(
            f"{len(datasets):,} datasets x {len(methods):,} methods x {settings['splits']:,} splits "
            f"make {units:,} units, more than the {MAX_UNITS:,} a run may have",
            ("splits",) if splits is None and "splits" in data else (),
            hint=f"use fewer splits, datasets or methods, {SPLIT_THE_RUN}",
        )
    origin = (
        "--n-jobs"
        if n_jobs is not None
        else f"{source}:{line_of(lines or {}, ('n_jobs',))}"
        if source and "n_jobs" in data
        else None
    )
    metrics = data.get("metrics") or []
    if not isinstance(metrics, list):
        fail("'metrics' must be a list of metric names or import paths", ("metrics",))
    for i, metric in enumerate(metrics):
        at_entry(("metrics", i), fail, check_metric_name, metric)
    return RunConfig(
        name, tuple(datasets), tuple(methods), source=None if source is None else str(source), n_jobs_origin=origin,
        adjustments=adjustments, metrics=tuple(metrics), **settings,
    )


def _refuse_names_twice(kind: str, entries: Iterable[tuple[str, str, KeyPath]], fail: Fail, hint: str) -> None:
    """Fail at the second of two entries ``(name, key, where)`` with one ``key``: one name in the tables.

    Names equal in any letter case count as one, as readers of the tables, file systems and
    dataset registries do not tell them apart.
    """
    first: dict[str, str] = {}
    for name, key, where in entries:
        if key in first:
            again = "appears twice" if first[key] == name else f"is '{first[key]}' again in another letter case"
            fail(f"{kind} '{name}' {again}", where, hint=hint)
        first[key] = name


def _dataset_key(spec: DatasetSpec) -> str:
    """What makes a dataset entry's name in the tables: its label or name in any case; a file's path as written
    (its name is its ``@relation``, compared once read)."""
    if spec.label is None and spec.source is not None and spec.source.kind == "file":
        return spec.name
    return (spec.label or spec.name).casefold()


def _run_name(name: object, fail: Fail) -> str:
    """The run's name, which names its folder ``results/NAME``: a folder name, never a path leading elsewhere."""
    text = str(name)
    if (
        isinstance(name, bool)
        or not isinstance(name, (str, int))
        or text in ("", ".", "..")
        or any(c in text for c in "/\\\0")
    ):
        fail(
            f"'name' must be a folder name (it names the run directory results/NAME), got {described(name)}",
            ("name",),
            hint="write a name without / or .., and give --out DIR to write the run elsewhere",
        )
    return text


def _run_settings(
    data: Mapping[str, Any], fail: Fail, *, splits: int | None, seed: int | None, n_jobs: int | None
) -> dict[str, Any]:
    """The run-wide settings (splits, seed, n_jobs, train fraction, label shuffling), options winning."""

    def integer(key: str, override: int | None, default: int, minimum: int, maximum: int | None = None) -> int:
        value = data.get(key, default) if override is None else override
        name, where = (f"'{key}'", (key,)) if override is None else (f"--{key.replace('_', '-')}", None)
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            fail(f"{name} must be an integer >= {minimum}, got {value!r}", where)
        if maximum is not None and value > maximum:
            fail(f"{name} is {value:,}, more than the {maximum:,} a run may have", where,
                 hint=f"the default is {default}")
        return value

    settings: dict[str, int | None] = {
        "splits": integer("splits", splits, DEFAULT_SPLITS, 1, MAX_SPLITS), "seed": integer("seed", seed, 0, 0),
    }
    jobs = data.get("n_jobs") if n_jobs is None else n_jobs
    _check_n_jobs(jobs, fail, from_file=n_jobs is None)
    fraction = data.get("train_fraction", TRAIN_FRACTION)
    if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or not 0 < fraction < 1:
        fail(f"'train_fraction' must be a number between 0 and 1, got {fraction!r}", ("train_fraction",))
    shuffle = data.get("shuffle_labels", True)
    if not isinstance(shuffle, bool):
        fail(f"'shuffle_labels' must be true or false, got {shuffle!r}", ("shuffle_labels",))
    protocol = _parse_protocol(data, fail, MAX_SPLITS)
    if protocol.is_kfold:
        given: list[tuple[str, KeyPath | None]] = [("--splits", None)] if splits is not None else []
        given += [(f"'{key}'", (key,)) for key in ("splits", "train_fraction") if key in data]
        if given:
            name, where = given[0]
            fail(
                f"{name} applies to the holdout protocol; a {protocol.kind} run has one unit per fold",
                where,
                hint="set protocol: {folds: K} instead",
            )
        settings["splits"] = protocol.folds
    return {
        **settings,
        "n_jobs": jobs,
        "train_fraction": float(fraction),
        "shuffle_labels": shuffle,
        "protocol": protocol,
    }


def _check_n_jobs(n_jobs: object, fail: Fail, from_file: bool) -> None:
    """Fail unless ``n_jobs`` (the file's ``n_jobs``, else ``--n-jobs``) is None or a non-zero integer."""
    if n_jobs is not None and (isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0):
        name, where = ("'n_jobs'", ("n_jobs",)) if from_file else ("--n-jobs", None)
        fail(f"{name} must be a non-zero integer (-1 = all cores), got {n_jobs!r}", where)


def with_n_jobs(config: RunConfig, n_jobs: int | None) -> RunConfig:
    """``config`` with ``n_jobs`` set, checked and named as ``--n-jobs`` is; None keeps the config's."""
    if n_jobs is None:
        return config
    _check_n_jobs(n_jobs, failure_at(None, {}), from_file=False)
    return replace(config, n_jobs=n_jobs, n_jobs_origin="--n-jobs")


def config_from_options(
    datasets: Sequence[PathLike], methods: Sequence[str], *, splits: int | None = None, seed: int | None = None,
    n_jobs: int | None = None, labels: int | None = None, method_labels: Iterable[str] = (),
    protocol: str | None = None, data_dir: PathLike | None = None, name: str | None = None,
) -> RunConfig:
    """The config that ``mlhidden run -d DATASET... -m METHOD...`` describes: the same ``RunConfig``
    as a YAML file listing those names, named ``name`` (the ``--out`` folder's) or after them
    (:func:`~mlhidden.experiment.command_line.run_name`); paths are relative to the current folder.

    Methods may carry parameters and labels (:func:`~mlhidden.experiment.command_line.method_entries`);
    ``protocol`` is a ``--protocol`` value such as ``kfold:5``.
    """
    data = {
        "name": name or run_name(datasets, methods),
        "datasets": list(datasets),
        "methods": method_entries(methods, method_labels),
    }
    protocol_entry = None if protocol is None else protocol_option(protocol)
    return parse_config(
        data, splits=splits, seed=seed, n_jobs=n_jobs, labels=labels, protocol=protocol_entry, data_dir=data_dir
    )


def _parse_protocol(data: Mapping[str, Any], fail: Fail, max_folds: int) -> Protocol:
    """A config's ``protocol: {kind: holdout | kfold | stratified_kfold, folds: K}`` (default: holdout).

    ``fail`` reports a problem at its config line (:func:`~mlhidden.yaml_lines.failure_at`).
    """
    entry = data.get("protocol") or {"kind": "holdout"}
    entry = {"kind": entry} if isinstance(entry, str) else entry
    if not isinstance(entry, Mapping) or entry.get("kind") not in PROTOCOL_KINDS:
        kind = entry.get("kind") if isinstance(entry, Mapping) else entry
        fail(f"unknown protocol kind {kind!r}", ("protocol",), hint=f"use {{kind: {' | '.join(PROTOCOL_KINDS)}}}")
    kind = entry["kind"]
    allowed = ("kind",) if kind == "holdout" else ("kind", "folds")
    bad = [key for key in entry if key not in allowed]
    if bad:
        fail(
            f"unknown key '{bad[0]}' in a {kind} protocol",
            ("protocol", bad[0]),
            hint=f"valid keys: {', '.join(allowed)}",
        )
    if kind == "holdout":
        return Protocol()
    folds = entry.get("folds", DEFAULT_FOLDS)
    if isinstance(folds, bool) or not isinstance(folds, int) or folds < 2:
        fail(f"'folds' must be an integer >= 2, got {folds!r}", ("protocol", "folds"))
    if folds > max_folds:
        fail(
            f"'folds' is {folds:,}, more than the {max_folds:,} a run may have",
            ("protocol", "folds"),
            hint=f"the default is {DEFAULT_FOLDS} folds",
        )
    return Protocol(kind, folds)
