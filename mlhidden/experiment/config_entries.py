"""A run config's ``datasets`` and ``methods`` entries, each checked and resolved into specs (one per sweep point).

An entry's problems are reported at its own line: the name, the parameters, the sweep, the base
learner, the preprocessing, a dataset's transforms. :mod:`mlhidden.experiment.config` reads the rest of the
config and puts the specs into a ``RunConfig``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar, cast

from mlhidden.data.catalog import (
    FILE_KINDS,
    dataset_params_problem,
    resolve_dataset,
    unknown_dataset,
    unknown_dataset_hint,
)
from mlhidden.data.transforms import TRANSFORMS
from mlhidden.errors import UserError, did_you_mean
from mlhidden.experiment.command_line import default_label
from mlhidden.experiment.overlay import BaseOverlay, needs_one_vs_rest, one_vs_rest
from mlhidden.experiment.sweeps import point_label, sweep_points
from mlhidden.io import PathLike
from mlhidden.methods.base_learners import make_base_learner, parse_base_spec
from mlhidden.methods.preprocessing import resolve_preprocess
from mlhidden.methods.registry import (
    check_method_base,
    describe_method,
    get_entry,
    make_checked_method,
    method_name,
)
from mlhidden.runs.specs import DatasetSpec, MethodSpec
from mlhidden.yaml_lines import Fail, KeyPath, refuse_unknown_keys

METHOD_KEYS = ("name", "label", "params", "base", "preprocess", "sweep")
DATASET_KEYS = ("name", "path", "labels_xml", "label", "params", "transform", "sweep")
BASE_PREFIX = "base."
"""A method's parameter (or sweep axis) ``base.NAME`` sets (or sweeps) its base learner's parameter ``NAME``."""
T = TypeVar("T")








def _entry(entry: Any, where: KeyPath, kind: str, keys: tuple[str, ...], forms: str, fail: Fail) -> dict[str, Any]:
    """A dataset or method entry as a mapping with a string ``name`` and only known keys."""
    if isinstance(entry, str):
        entry = {"name": entry}
    if not isinstance(entry, Mapping) or entry.get("name") is None:
        fail(f"a {kind} entry must be {forms}", where)
    refuse_unknown_keys(entry, keys, where, fail, within=f"in {kind} entry")
    for key, allowed, hint in (
        ("name", (str,), f"one name per entry: a {kind} entry is {forms}"),
        ("label", (str, int, float), "quote it to make it text"),
    ):
        value = entry.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, allowed)):
            fail(f"a {kind}'s '{key}' must be text, got {described(value)}", where + (key,), hint=hint)
    return cast("dict[str, Any]", entry)


def described(value: object) -> str:
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


NAMED_KINDS = ("generator", "catalog", "data file", "loader")
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


def dataset_specs(
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
    source = at_entry(where + ("name",), fail, resolve_dataset, written, data_dir)
    named = source is not None and source.kind in NAMED_KINDS
    name = written if named else _from_folder(written, folder)
    if name != written:
        source = at_entry(where + ("name",), fail, resolve_dataset, name, data_dir)
    if source is None:
        relative = "the current folder" if folder is None else "the config file's folder"
        fail(unknown_dataset(written, name), where + ("name",), hint=unknown_dataset_hint(written, relative))
    as_written = {key: params[key] for key in ("labels_xml",) if key in params}
    if "labels_xml" in params:
        params["labels_xml"] = _from_folder(params["labels_xml"], folder)
    if labels is not None and source.kind in FILE_KINDS:
        params["labels"] = labels
    specs = []
    for point in sweep_points(_mapping(entry, "sweep", where, fail), where, fail, "dataset", room):
        point_params = {**params, **{k: v for k, v in point.items() if k not in TRANSFORMS}}
        point_transform = {**transform, **{k: v for k, v in point.items() if k in TRANSFORMS}}
        problem = at_entry(where + ("name",), fail, dataset_params_problem, source, point_params)
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
        specs.append(
            DatasetSpec(name, point_params, point_transform, label, entry.get("label") or written, point, source)
        )
    return specs


def method_specs(
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
    written_base = at(("base",), make_base_learner, base) if base is not None else None
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
        learner = written_base if point_base is base else None
        estimator = at(values_at, make_checked_method, method_entry, resolved, learner)
        if replacement is not None and needs_one_vs_rest(estimator):
            point_base = one_vs_rest(point_base)
            (wrapped if wrapped is not None else []).append(point_label(group, point) if point else group)
            resolved = at(values_at, describe_method, name, point_params, point_base, preprocess)
            estimator = at(values_at, make_checked_method, method_entry, resolved)
        at(("base",) if base is not None else ("name",), check_method_base, method_entry, resolved, estimator)
        label = point_label(group, point) if point else group
        specs.append(MethodSpec(label, name, point_params, point_base, resolved, method_entry, group, point, estimator))
    return specs


def _with_base_params(spec: object, extra: dict[str, Any]) -> dict[str, Any]:
    """The base-learner spec ``spec`` with the parameters ``extra`` (a ``base.*`` sweep point) set."""
    name, params = parse_base_spec(spec)
    return {"name": name, "params": {**params, **extra}}
