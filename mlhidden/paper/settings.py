"""Base-learner settings as data: every claim-bearing run of the paper, once per setting.

``configs/sensitivity.yaml`` names the runs (the paper's configs, by file name) and the
settings. A setting replaces base learners by name and may add input preprocessing::

    settings:
      b_liblinear_C1:
        about: liblinear, C = 1 (the paper era's scikit-learn default)
        base: {logistic: {name: logistic, params: {solver: liblinear}}}
      e_standard_lbfgs_C1:
        base: {logistic: logistic}
        preprocess: standard

A setting is an overlay (:class:`~mlhidden.experiment.overlay.BaseOverlay`) that the config
parser applies: every method of a run whose base learner is named under ``base`` (``logistic``
for the logistic-regression methods, ``random_forest`` for BR_RF and CC_RF) gets the replacement
and, if given, the setting's ``preprocess`` (:mod:`mlhidden.methods.preprocessing`); the other
methods (MLP, the trivial baselines) are unchanged. A setting with no ``base`` is the configs as
they are. The manifest lists the parser's adjustments (LP's one-vs-rest). Everything is
resolved and checked before the first unit runs.

Layout (what the sensitivity report reads)::

    <out>/settings.json             the manifest: config, quick or not, every configured
                                    setting in order with its parameters, and per setting run its
                                    name, about, base, preprocess, adjustments, the runs it
                                    plans, their directories (relative to <out>) once run,
                                    wall seconds and units copied
    <out>/<setting>/<run>/          a normal run directory (store, run.json, tables) per run

``<out>`` is ``results/sensitivity`` (``results/quick/sensitivity`` for the quick slice). The
splits and unit seeds depend on the run seed, dataset and split only, so every setting sees
the same splits: comparisons across settings are paired. Each run directory resumes, merges and
tabulates like any other.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections import Counter
from collections.abc import Callable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mlhidden import RunConfig, load_config, run_experiment
from mlhidden.errors import UserError, did_you_mean, unique_match
from mlhidden.experiment import BaseOverlay, check_run_path
from mlhidden.io import write_text
from mlhidden.methods import make_base_learner, parse_base_spec, resolve_preprocess, resolved_base_params
from mlhidden.paper.cost_table import paper_cost_priors
from mlhidden.yaml_lines import failure_at, read_yaml_with_lines, refuse_unknown_keys

SENSITIVITY_DIR = "sensitivity"
"""The study's folder under an output folder: ``<out>/sensitivity/<setting>/<run>/``."""

MANIFEST_FILE = "settings.json"
TOP_LEVEL_KEYS = ("name", "runs", "settings", "quick")
SETTING_KEYS = ("about", "base", "preprocess")
QUICK_KEYS = ("datasets", "splits", "max_sweep_points")


@dataclass(frozen=True)
class QuickSlice:
    """What ``--quick`` keeps: the named datasets (catalog or generator names), at most
    ``max_sweep_points`` points of each dataset or method sweep, and at most ``splits`` splits."""

    datasets: tuple = ("Logical", "Music", "Scene", "SyntheticComplex", "SyntheticSimple")
    splits: int = 2
    max_sweep_points: int = 2

    def shrink(self, config: RunConfig) -> RunConfig | None:
        """``config`` cut to the slice, or None when none of its datasets is in it."""
        datasets = self._first_points([spec for spec in config.datasets if spec.name in self.datasets])
        if not datasets:
            return None
        return dataclasses.replace(
            config,
            datasets=datasets,
            methods=self._first_points(config.methods),
            splits=min(config.splits, self.splits),
        )

    def _first_points(self, specs) -> tuple:
        """The specs with at most ``max_sweep_points`` of each entry's sweep (entries without one are kept)."""
        seen: Counter[str | None] = Counter()
        kept = []
        for spec in specs:
            seen[spec.group] += 1
            if not spec.sweep or seen[spec.group] <= self.max_sweep_points:
                kept.append(spec)
        return tuple(kept)


@dataclass(frozen=True)
class Setting:
    """One base-learner setting: replacement base learners by name, and preprocessing for the methods it re-bases."""

    name: str
    about: str = ""
    base: dict = field(default_factory=dict)
    preprocess: list | None = None

    @property
    def overlay(self) -> BaseOverlay:
        """What the config parser applies to every run config under this setting."""
        return BaseOverlay(self.base, self.preprocess)

    def load(self, path, **options) -> RunConfig:
        """The run config at ``path`` under this setting (``options`` as for :func:`load_config`).

        Its problems under the setting are ``UserError``s naming the setting.
        """
        try:
            return load_config(path, overlay=self.overlay, **options)
        except UserError as exc:
            raise UserError(f"setting '{self.name}': {exc.message}", path=exc.path, hint=exc.hint) from None

    def manifest_entry(self) -> dict:
        """The manifest's entry: each replacement base learner with its defaults filled in."""
        base = {replaced: resolved_base_params(spec) for replaced, spec in self.base.items()}
        return {"name": self.name, "about": self.about, "base": base, "preprocess": self.preprocess}


@dataclass(frozen=True)
class Sensitivity:
    """A validated sensitivity config: the runs (config file names) and the settings. Which
    setting ``mlhidden reproduce`` makes the main tables under is decided by the rule of
    :mod:`mlhidden.paper.primary_setting`, not by the config."""

    runs: tuple
    settings: tuple
    quick: QuickSlice = QuickSlice()
    source: str | None = None

    def setting(self, name: str) -> Setting:
        """The setting called ``name``; an unknown name is a ``UserError`` listing the valid ones."""
        known = {s.name: s for s in self.settings}
        key = unique_match(name, known, "setting")
        if key is None:
            hint = f"{did_you_mean(name, list(known))}valid settings: {', '.join(known)}"
            raise UserError(f"unknown setting '{name}'", path=self.source, hint=hint)
        return known[key]


def load_sensitivity(path) -> Sensitivity:
    """Read and validate a sensitivity config; every problem is one ``UserError`` naming file:line."""
    path = Path(path)
    data, lines = read_yaml_with_lines(path)
    fail = failure_at(path, lines)
    if not isinstance(data, Mapping):
        fail("a sensitivity config must be a mapping with 'runs' and 'settings'", hint="see configs/sensitivity.yaml")
    refuse_unknown_keys(data, TOP_LEVEL_KEYS, (), fail)
    runs = data.get("runs")
    if not isinstance(runs, list) or not runs or not all(isinstance(r, str) for r in runs):
        fail("'runs' must be a non-empty list of config names (files in the configs folder, without .yaml)", ("runs",))
    settings = data.get("settings")
    if not isinstance(settings, Mapping) or not settings:
        fail("'settings' must be a non-empty mapping of setting names to {about, base, preprocess}", ("settings",))
    parsed = tuple(_setting(str(name), value, ("settings", name), fail) for name, value in settings.items())
    return Sensitivity(tuple(runs), parsed, _quick(data.get("quick") or {}, fail), str(path))


def _setting(name, value, where, fail) -> Setting:
    value = value or {}
    if not isinstance(value, Mapping):
        fail(f"setting '{name}' must be a mapping with {', '.join(SETTING_KEYS)}", where)
    refuse_unknown_keys(value, SETTING_KEYS, where, fail, within=f"in setting '{name}'")
    base = value.get("base") or {}
    if not isinstance(base, Mapping):
        fail(
            f"setting '{name}': 'base' maps base-learner names to their replacements", where + ("base",),
            hint="e.g. base: {logistic: {name: logistic, params: {C: 10}}}",
        )
    for replaced, spec in base.items():
        try:
            parse_base_spec(replaced)
            make_base_learner(spec)
        except UserError as exc:
            fail(f"setting '{name}': {exc.message}", where + ("base", replaced), hint=exc.hint)
    try:
        preprocess = resolve_preprocess(value.get("preprocess"))
    except UserError as exc:
        fail(f"setting '{name}': {exc.message}", where + ("preprocess",), hint=exc.hint)
    if preprocess and not base:
        fail(
            f"setting '{name}': 'preprocess' applies to the methods the setting re-bases, and it re-bases none",
            where + ("preprocess",),
            hint="add e.g. base: {logistic: logistic}",
        )
    return Setting(name, str(value.get("about", "")), dict(base), preprocess)


def _quick(value, fail) -> QuickSlice:
    if not isinstance(value, Mapping) or any(k not in QUICK_KEYS for k in value):
        fail(f"'quick' must be a mapping with keys among {', '.join(QUICK_KEYS)}", ("quick",))
    fields: dict[str, Any] = {k: tuple(v) if k == "datasets" else v for k, v in value.items()}
    return dataclasses.replace(QuickSlice(), **fields)


def setting_plans(sensitivity: Sensitivity, config_dir="configs", quick: bool = False, only=None, **options) -> list:
    """``(setting, run configs, adjustments)`` for every setting (or those named in ``only``), all
    resolved and checked before anything runs (``options``: ``data_dir`` and ``n_jobs``, as for
    :func:`load_config`)."""
    settings = [sensitivity.setting(name) for name in only] if only else list(sensitivity.settings)
    paths = [Path(config_dir) / f"{run}.yaml" for run in sensitivity.runs]
    for run, path in zip(sensitivity.runs, paths):
        if not path.is_file():
            raise UserError(
                f"config of run '{run}' not found", path=path, hint="run from the project root or pass --configs DIR"
            )
    plans = []
    for setting in settings:
        loaded = [setting.load(path, **options) for path in paths]
        configs = [
            c for c in (sensitivity.quick.shrink(config) if quick else config for config in loaded) if c is not None
        ]
        plans.append((setting, configs, [note for config in configs for note in config.adjustments]))
    return plans


def run_sensitivity(
    sensitivity: Sensitivity, out_dir, *, config_dir="configs", quick: bool = False, only=None,
    data_dir=None, n_jobs=None, progress: Callable | None = None, reuse_dir=None,
) -> dict:
    """Run every setting's configs into ``out_dir/<setting>/<run>/`` and write the manifest.

    Resumes what is stored, like every run. A unit a setting leaves as it was (MLP, the trivial
    baselines, the forests under a logistic-only setting) is copied from the main run
    ``reuse_dir/<run>/`` or from another setting's run directory when one holds it
    (:mod:`mlhidden.experiment.reuse`), not computed again. ``progress(label)`` returns a context manager with
    the runner's ``start`` and ``unit`` callbacks, as for :func:`mlhidden.paper.reproduction.reproduce`.
    Returns the manifest (its ``interrupted`` key set when a run was interrupted).
    """
    out_dir = Path(out_dir)
    plans = setting_plans(sensitivity, config_dir, quick, only, data_dir=data_dir, n_jobs=n_jobs)
    for setting, configs, _ in plans:
        for config in configs:
            check_run_path(out_dir / setting.name / config.name, "give a shorter --out")
    manifest = read_manifest(out_dir) or {}
    earlier = {s["name"]: s for s in manifest.get("settings", [])} if manifest.get("quick") == quick else {}
    manifest = {
        "config": sensitivity.source, "quick": quick, "runs": list(sensitivity.runs), "settings": [],
        "order": [setting.name for setting in sensitivity.settings],
        "configured": {setting.name: setting.manifest_entry() for setting in sensitivity.settings},
    }
    for setting, configs, adjustments in plans:
        entry = {
            **setting.manifest_entry(),
            "adjustments": adjustments,
            "run_dirs": {},
            "wall_seconds": earlier.get(setting.name, {}).get("wall_seconds", 0.0),
            "reused_units": earlier.get(setting.name, {}).get("reused_units", 0),
            "runs": [config.name for config in configs],
        }
        manifest["settings"].append(entry)
        _write_manifest(out_dir, manifest)  # a setting being run shows as unfinished, not as absent
        for config in configs:
            run_dir = out_dir / setting.name / config.name
            donors = ([Path(reuse_dir) / config.name] if reuse_dir is not None else []) + [
                out_dir / other.name / config.name for other in sensitivity.settings if other.name != setting.name
            ]
            started = time.perf_counter()
            with progress(f"{setting.name} / {config.name}") if progress is not None else nullcontext() as shown:
                summary = run_experiment(
                    config, run_dir, reuse_from=donors,
                    on_start=getattr(shown, "start", None), on_unit=getattr(shown, "unit", None),
                    priors=paper_cost_priors(),
                )
            entry["reused_units"] += sum(summary.reused_units.values())
            entry["run_dirs"][config.name] = str(run_dir.relative_to(out_dir))
            entry["wall_seconds"] += time.perf_counter() - started if summary.n_done else 0.0
            written = _write_manifest(out_dir, manifest)
            if summary.interrupted:
                return {**written, "interrupted": True}
    return _write_manifest(out_dir, manifest)


def _write_manifest(out_dir: Path, manifest: dict) -> dict:
    """Write the manifest, and return what was written: this call's settings, and every other
    configured setting's entry as the file holds it now (another study may be running other
    settings into the same folder), in the config's order (``order``)."""
    own = {entry["name"] for entry in manifest["settings"]}
    on_disk = read_manifest(out_dir) or {}
    if on_disk.get("quick") == manifest["quick"]:
        others = [
            entry
            for entry in on_disk.get("settings", [])
            if entry["name"] not in own and entry["name"] in manifest["order"]
        ]
    else:
        others = []
    written = {
        **manifest,
        "settings": sorted(manifest["settings"] + others, key=lambda entry: manifest["order"].index(entry["name"])),
    }
    write_text(out_dir / MANIFEST_FILE, json.dumps(written, indent=2, sort_keys=True) + "\n")
    return written


def read_manifest(out_dir) -> dict | None:
    """The manifest a sensitivity run wrote into ``out_dir``, or None."""
    path = Path(out_dir) / MANIFEST_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
