"""Run configs: YAML in, a validated ``RunConfig`` out, or one ``UserError`` line naming file:line.

A config is validated entirely before anything runs: unknown keys, unknown methods, datasets,
base learners or parameters, wrong types, dataset paths that do not exist. The contents of
dataset files are checked when they are loaded, which also happens before the first unit runs.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

from mlhidden.data.dataset import RandomStateLike
from mlhidden.data.registry import (
    FILE_KINDS,
    LABELS_MEANING,
    dataset_kind,
    dataset_params_problem,
    unknown_dataset,
    unknown_dataset_hint,
)
from mlhidden.data.transforms import TRANSFORMS
from mlhidden.errors import UserError, did_you_mean
from mlhidden.experiment.command_line import default_label, method_entries, protocol_option
from mlhidden.experiment.metrics import check_metric_name
from mlhidden.experiment.overlay import ONE_VS_REST, BaseOverlay, needs_one_vs_rest, one_vs_rest
from mlhidden.experiment.protocols import Protocol, parse_protocol
from mlhidden.experiment.splits import TRAIN_FRACTION, SplitRecipe
from mlhidden.experiment.sweeps import MAX_ENTRIES, SPLIT_THE_RUN, point_label, sweep_points
from mlhidden.experiment.yaml_lines import Fail, KeyPath, failure_at, line_of, read_yaml_with_lines
from mlhidden.io import PathLike
from mlhidden.methods.base_learners import make_base_learner, parse_base_spec
from mlhidden.methods.preprocessing import resolve_preprocess
from mlhidden.methods.registry import (
    MethodEntry,
    build_method,
    check_method_base,
    checked_estimator,
    describe_method,
    get_entry,
    method_name,
)

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
METHOD_KEYS = ("name", "label", "params", "base", "preprocess", "sweep")
DATASET_KEYS = ("name", "path", "labels_xml", "label", "params", "transform", "sweep")
BASE_PREFIX = "base."
"""A method's parameter (or sweep axis) ``base.NAME`` sets (or sweeps) its base learner's parameter ``NAME``."""
MAX_SPLITS = 1_000
"""The most splits (or folds) of a run: the paper uses 10."""
T = TypeVar("T")
MAX_UNITS = 100_000
"""The most units of a run (datasets x methods x splits): each is a fit, and the store keeps one row each."""


@dataclass(frozen=True)
class DatasetSpec:
    """A dataset in a config: a registry or generator name, or a path to a MEKA ARFF file.

    ``params`` go to a generator (or ``labels`` to an ARFF reader), ``transform`` to
    :mod:`mlhidden.data.transforms`. ``label`` names it in tables (None: the dataset's own name);
    ``group`` and ``sweep`` say which sweep point of which entry it is.
    """

    name: str
    params: dict[str, Any] = field(default_factory=dict)
    transform: dict[str, Any] = field(default_factory=dict)
    label: str | None = None
    group: str | None = None
    sweep: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class MethodSpec:
    """A configured method: ``label`` is its column in the tables, ``resolved`` its full identity,
    ``entry`` the registry entry it was resolved from (its class, which workers build it from;
    None in a stored run's record, where it is looked up by name when first built)."""

    label: str
    name: str
    params: dict[str, Any]
    base: Any
    resolved: dict[str, Any]
    entry: MethodEntry | None = field(compare=False, repr=False)
    group: str | None = None
    sweep: dict[str, Any] = field(default_factory=dict)

    @property
    def params_hash(self) -> str:
        return canonical_hash(self.resolved)

    @property
    def method_entry(self) -> MethodEntry:
        """The registry entry: the one resolved when the config was read, else looked up by name."""
        return self.entry or get_entry(self.name)

    def make(self, random_state: RandomStateLike = None) -> Any:
        """The unfitted estimator of one unit, built from the entry resolved when the config was read.

        Workers (loky processes, dask) build it without looking the name up again, so methods
        registered from Python or given by import path work there as in this process.
        """
        return build_method(self.method_entry, self.resolved, random_state)

    def record(self) -> dict[str, Any]:
        """What the store and ``run.json`` keep: label, sweep point, the resolved identity, and
        for a method that is not built in, the package and version providing it."""
        provider = self.method_entry.provider()
        return {
            "label": self.label,
            "group": self.group or self.label,
            "sweep": self.sweep,
            **self.resolved,
            **({"provider": provider} if provider else {}),
        }


@dataclass(frozen=True)
class RunConfig:
    name: str
    datasets: tuple[DatasetSpec, ...]
    methods: tuple[MethodSpec, ...]
    splits: int = 10
    seed: int = 0
    n_jobs: int | None = None
    train_fraction: float = TRAIN_FRACTION
    source: str | None = None
    shuffle_labels: bool = True
    protocol: Protocol = Protocol()
    n_jobs_origin: str | None = field(default=None, compare=False)
    """Where ``n_jobs`` was set (``FILE:LINE`` or ``--n-jobs``), for the warning when it is capped."""
    metrics: tuple[str, ...] = field(default=(), compare=False)
    """Metrics tabulated after the run from the stored predictions (``metrics:``); not part of the run's identity."""
    adjustments: tuple[str, ...] = field(default=(), compare=False)
    """What a :class:`~mlhidden.experiment.overlay.BaseOverlay` had to adjust, one line each."""
    unit_timeout: float | None = field(default=None, compare=False)
    """Seconds after which a unit is stopped and stored as failed (``--timeout``); like n_jobs, not part of the run's
    identity."""

    def to_dict(self) -> dict[str, Any]:
        """The config as stored; a holdout run's record has no ``protocol`` entry, as before protocols existed."""
        protocol = {"protocol": self.protocol.record()} if self.protocol.is_kfold else {}
        return {
            "name": self.name,
            "datasets": [asdict(d) for d in self.datasets],
            "methods": [m.record() for m in self.methods],
            "splits": self.splits,
            "seed": self.seed,
            "train_fraction": self.train_fraction,
            "shuffle_labels": self.shuffle_labels,
            **protocol,
        }

    @property
    def config_hash(self) -> str:
        return canonical_hash(self.to_dict())

    @property
    def split_recipe(self) -> SplitRecipe:
        """What decides every unit's split and seeds (:mod:`mlhidden.experiment.splits`)."""
        return SplitRecipe(self.seed, self.splits, self.protocol, self.train_fraction, self.shuffle_labels)


def canonical_hash(value: object) -> str:
    """A short stable digest of a JSON-able value (sorted keys), used in store keys."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _entry(entry: Any, where: KeyPath, kind: str, keys: tuple[str, ...], forms: str, fail: Fail) -> dict[str, Any]:
    """A dataset or method entry as a mapping with a string ``name`` and only known keys."""
    if isinstance(entry, str):
        entry = {"name": entry}
    if not isinstance(entry, Mapping) or entry.get("name") is None:
        fail(f"a {kind} entry must be {forms}", where)
    bad = [k for k in entry if k not in keys]
    if bad:
        fail(
            f"unknown key '{bad[0]}' in {kind} entry",
            where + (bad[0],),
            hint=f"{did_you_mean(bad[0], keys)}valid keys: {', '.join(keys)}",
        )
    for key, allowed, hint in (
        ("name", (str,), f"one name per entry: a {kind} entry is {forms}"),
        ("label", (str, int, float), "quote it to make it text"),
    ):
        value = entry.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, allowed)):
            fail(f"a {kind}'s '{key}' must be text, got {_described(value)}", where + (key,), hint=hint)
    return cast("dict[str, Any]", entry)


def _described(value: object) -> str:
    """A wrong value as a user would name it: a list, a mapping, binary data, or the value itself."""
    kinds = {list: "a list", dict: "a mapping", bytes: "binary data"}
    return next((name for kind, name in kinds.items() if isinstance(value, kind)), repr(value))


def _mulan_entry(entry: Any) -> Any:
    """``{path: P, labels_xml: X}`` (an ARFF file and its Mulan label file) as
    ``{name: P, params: {labels_xml: X}}``."""
    if not isinstance(entry, Mapping) or not {"path", "labels_xml"} & set(entry):
        return entry
    entry = dict(entry)
    if "path" in entry and "name" not in entry:
        entry["name"] = entry.pop("path")
    if "labels_xml" in entry and isinstance(entry.get("params") or {}, Mapping):
        entry["params"] = {**(entry.get("params") or {}), "labels_xml": entry.pop("labels_xml")}
    return entry


def _mapping(entry: Mapping[str, Any], key: str, where: KeyPath, fail: Fail) -> dict[str, Any]:
    value = entry.get(key) or {}
    if not isinstance(value, Mapping):
        fail(f"'{key}' must be a mapping", where + (key,))
    return dict(value)


def load_config(
    path: PathLike, *, splits: int | None = None, seed: int | None = None, n_jobs: int | None = None,
    labels: int | None = None, protocol: str | None = None, overlay: BaseOverlay | None = None,
    data_dir: PathLike | None = None,
) -> RunConfig:
    """Read and validate a run config; command-line overrides win over the file (``protocol``: a ``--protocol``
    value)."""
    path = Path(path)
    data, lines = read_yaml_with_lines(path)
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
    unknown = [k for k in data if k not in TOP_LEVEL_KEYS]
    if unknown:
        fail(
            f"unknown key '{unknown[0]}'",
            (unknown[0],),
            hint=f"{did_you_mean(unknown[0], TOP_LEVEL_KEYS)}valid keys: {', '.join(TOP_LEVEL_KEYS)}",
        )
    for key in ("datasets", "methods"):
        if not isinstance(data.get(key), list) or not data[key]:
            fail(f"'{key}' must be a non-empty list", (key,), hint="see configs/smoke.yaml")
    settings = _run_settings(data, fail, splits=splits, seed=seed, n_jobs=n_jobs)
    if labels is not None and (isinstance(labels, bool) or not isinstance(labels, int) or labels == 0):
        fail(f"--labels must be a non-zero integer, got {labels!r}", None, hint=LABELS_MEANING)
    name = _run_name(data.get("name") or (Path(source).stem if source else "run"), fail)
    folder = None if source is None else Path(source).parent
    datasets: list[DatasetSpec] = []
    for i, entry in enumerate(data["datasets"]):
        datasets += _dataset_specs(entry, ("datasets", i), labels, folder, fail, MAX_ENTRIES - len(datasets), data_dir)
    if labels is not None and not any(dataset_kind(d.name, data_dir) in FILE_KINDS for d in datasets):
        fail("--labels applies to datasets given as ARFF paths, and this config has none", None)
    methods: list[MethodSpec] = []
    wrapped: list[str] = []
    for i, entry in enumerate(data["methods"]):
        methods += _method_specs(entry, ("methods", i), fail, MAX_ENTRIES - len(methods), overlay, wrapped)
    adjustments = tuple(f"{name}: {label} fits its multi-class model with {ONE_VS_REST}" for label in wrapped)
    for kind, names, key in (
        ("method", [m.label for m in methods], "methods"),
        ("dataset", [d.label or d.name for d in datasets], "datasets"),
    ):
        duplicates = sorted({x for x in names if names.count(x) > 1})
        if duplicates:
            fail(
                f"{kind} '{duplicates[0]}' appears twice",
                (key,),
                hint="give each entry a distinct 'label'" if kind == "method" else None,
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
            f"'name' must be a folder name (it names the run directory results/NAME), got {_described(name)}",
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
            fail(f"{name} is {value:,}, more than the {maximum:,} a run may have", where, hint="the paper uses 10")
        return value

    settings: dict[str, int | None] = {
        "splits": integer("splits", splits, 10, 1, MAX_SPLITS), "seed": integer("seed", seed, 0, 0),
    }
    jobs = data.get("n_jobs") if n_jobs is None else n_jobs
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs == 0):
        name, where = ("'n_jobs'", ("n_jobs",)) if n_jobs is None else ("--n-jobs", None)
        fail(f"{name} must be a non-zero integer (-1 = all cores), got {jobs!r}", where)
    fraction = data.get("train_fraction", TRAIN_FRACTION)
    if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or not 0 < fraction < 1:
        fail(f"'train_fraction' must be a number between 0 and 1, got {fraction!r}", ("train_fraction",))
    shuffle = data.get("shuffle_labels", True)
    if not isinstance(shuffle, bool):
        fail(f"'shuffle_labels' must be true or false, got {shuffle!r}", ("shuffle_labels",))
    protocol = parse_protocol(data, fail, MAX_SPLITS)
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


NAMED_KINDS = ("generator", "registry", "data file", "loader")
"""The dataset kinds named as written; any other name is a path, read from the config file's folder."""


def at_entry(where: KeyPath, fail: Fail, check: Callable[..., T], *args: Any) -> T:
    """``check(*args)``, its one-line ``UserError`` (an ambiguous name, a loader not importable) reported at
    ``where``."""
    try:
        return check(*args)
    except UserError as exc:
        fail(exc.message, where, hint=exc.hint)


def _from_folder(path: Any, folder: Path | None) -> Any:
    """A relative path as seen from the config file's folder (``folder``; None: the current folder)."""
    return path if folder is None or not isinstance(path, str) or Path(path).is_absolute() else str(folder / path)


def _dataset_specs(
    entry: Any, where: KeyPath, labels: int | None, folder: Path | None, fail: Fail, room: int,
    data_dir: PathLike | None = None,
) -> list[DatasetSpec]:
    """The datasets of one config entry: one per sweep point, each checked.

    A name that is not a registered or generated dataset is an ARFF path; relative paths (and
    ``labels_xml``) are read from the config file's folder. Table labels keep the path as written.
    """
    entry = _entry(
        _mulan_entry(entry), where, "dataset", DATASET_KEYS, "a name, a path, or {name: ..., params: {...}}", fail
    )
    params, transform = (_mapping(entry, key, where, fail) for key in ("params", "transform"))
    unknown = [key for key in transform if key not in TRANSFORMS]
    if unknown:
        fail(
            f"unknown dataset transform '{unknown[0]}'",
            where + ("transform",),
            hint=f"{did_you_mean(unknown[0], TRANSFORMS)}valid: {', '.join(TRANSFORMS)}",
        )
    written = entry["name"]
    kind = at_entry(where + ("name",), fail, dataset_kind, written, data_dir)
    name = written if kind in NAMED_KINDS else _from_folder(written, folder)
    kind = kind if kind in NAMED_KINDS else at_entry(where + ("name",), fail, dataset_kind, name, data_dir)
    if kind is None:
        relative = "the current folder" if folder is None else "the config file's folder"
        fail(unknown_dataset(written, name), where + ("name",), hint=unknown_dataset_hint(written, relative))
    as_written = {key: params[key] for key in ("labels_xml",) if key in params}
    if "labels_xml" in params:
        params["labels_xml"] = _from_folder(params["labels_xml"], folder)
    if labels is not None and kind in FILE_KINDS:
        params["labels"] = labels
    specs = []
    for point in sweep_points(_mapping(entry, "sweep", where, fail), where, fail, "dataset", room):
        point_params = {**params, **{k: v for k, v in point.items() if k not in TRANSFORMS}}
        point_transform = {**transform, **{k: v for k, v in point.items() if k in TRANSFORMS}}
        problem = at_entry(where + ("name",), fail, dataset_params_problem, name, point_params, data_dir)
        if problem is not None:
            guesses = [guess for guess in (did_you_mean(key, TRANSFORMS, cutoff=0.8) for key in point_params) if guess]
            fail(
                problem,
                where + (("sweep",) if point else ("params",)),
                hint=f"{guesses[0]}it is a transform" if guesses else None,
            )
        label = entry.get("label")
        if point or (label is None and (point_params or point_transform)):
            shown = point or {**point_params, **as_written, **point_transform}
            label = point_label(label or written, shown)
        specs.append(DatasetSpec(name, point_params, point_transform, label, entry.get("label") or written, point))
    return specs


def _method_specs(
    entry: Any, where: KeyPath, fail: Fail, room: int, overlay: BaseOverlay | None = None,
    wrapped: list[str] | None = None,
) -> list[MethodSpec]:
    """The methods of one config entry: one per sweep point, each resolved.

    Each problem is reported at its own line: the name (unknown, not importable, not a method),
    the base learner (unknown, bad parameter, not a classifier, no probabilities where the
    method needs them), the preprocessing, the parameters (or the sweep). The labels of methods
    whose base learner ``overlay`` had to wrap in one-vs-rest go to ``wrapped``.
    """
    entry = _entry(entry, where, "method", METHOD_KEYS, "a name or {name: ..., params: {...}, base: ...}", fail)
    params = _mapping(entry, "params", where, fail)
    base_params = {key[len(BASE_PREFIX):]: params.pop(key) for key in list(params) if key.startswith(BASE_PREFIX)}
    base = entry.get("base")

    def at(key: KeyPath, check: Callable[..., T], *args: Any) -> T:
        return at_entry(where + key, fail, check, *args)

    name = at(("name",), method_name, entry["name"])
    group = str(entry.get("label") or default_label(name))
    method_entry = at(("name",), get_entry, name)
    if base is not None:
        at(("base",), make_base_learner, base)
    at(("preprocess",), resolve_preprocess, entry.get("preprocess"))
    specs = []
    for point in sweep_points(_mapping(entry, "sweep", where, fail), where, fail, "method", room):
        point_params = {**params, **{k: v for k, v in point.items() if not k.startswith(BASE_PREFIX)}}
        swept_base = {k[len(BASE_PREFIX):]: v for k, v in point.items() if k.startswith(BASE_PREFIX)}
        base_point = {**base_params, **swept_base}
        if base_point and not method_entry.takes_base:
            verb, key = ("swept", "sweep") if swept_base else ("set", "params")
            fail(
                f"method '{name}' takes no base learner, so base.{next(iter(base_point))} cannot be {verb}",
                where + (key,),
            )
        point_base = at(("sweep",), _with_base_params, base or method_entry.base, base_point) if base_point else base
        preprocess, replacement = (
            entry.get("preprocess"),
            overlay.replacement(method_entry, point_base) if overlay else None,
        )
        if replacement is not None and overlay is not None:
            point_base, preprocess = replacement, overlay.preprocess
        values_at = ("sweep",) if point else ("params",)
        resolved = at(values_at, describe_method, name, point_params, point_base, preprocess)
        estimator = at(values_at, checked_estimator, method_entry, resolved)
        if replacement is not None and needs_one_vs_rest(estimator):
            point_base = one_vs_rest(point_base)
            (wrapped if wrapped is not None else []).append(point_label(group, point) if point else group)
            resolved = at(values_at, describe_method, name, point_params, point_base, preprocess)
            estimator = at(values_at, checked_estimator, method_entry, resolved)
        at(("base",) if base is not None else ("name",), check_method_base, method_entry, resolved, estimator)
        label = point_label(group, point) if point else group
        specs.append(MethodSpec(label, name, point_params, point_base, resolved, method_entry, group, point))
    return specs


def _with_base_params(spec: object, extra: dict[str, Any]) -> dict[str, Any]:
    """The base-learner spec ``spec`` with the parameters ``extra`` (a ``base.*`` sweep point) set."""
    name, params = parse_base_spec(spec)
    return {"name": name, "params": {**params, **extra}}


def config_from_options(
    datasets: Sequence[PathLike], methods: Sequence[str], *, splits: int | None = None, seed: int | None = None,
    n_jobs: int | None = None, labels: int | None = None, method_labels: Iterable[str] = (),
    protocol: str | None = None, data_dir: PathLike | None = None,
) -> RunConfig:
    """The config that ``mlhidden run -d DATASET... -m METHOD...`` describes: the same ``RunConfig``
    as a YAML file listing those names, named after them; paths are relative to the current folder.

    Methods may carry parameters and labels (:func:`~mlhidden.experiment.command_line.method_entries`);
    ``protocol`` is a ``--protocol`` value such as ``kfold:5``.
    """
    stems = [Path(str(d)).name.split(".")[0] for d in datasets]
    name = re.sub(r"[^A-Za-z0-9+._-]+", "_", "-".join(stems) + "_" + "-".join(map(str, methods)))
    data = {"name": name, "datasets": list(datasets), "methods": method_entries(methods, method_labels)}
    protocol_entry = None if protocol is None else protocol_option(protocol)
    return parse_config(
        data, splits=splits, seed=seed, n_jobs=n_jobs, labels=labels, protocol=protocol_entry, data_dir=data_dir
    )
