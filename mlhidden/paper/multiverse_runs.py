"""The multiverse's runs: each claim-bearing experiment once per distinct setting and split seed.

``configs/multiverse.yaml`` names the sensitivity config (its settings and runs) and lists blocks,
each a product of runs, settings and seeds::

    sensitivity: sensitivity.yaml        # beside this file
    blocks:
      - runs: [logical, synthetic]
        settings: all                    # or a list of the sensitivity config's setting names
        seeds: 5                         # seeds 0..4, or a list such as [0, 1, 2]

Seed ``k`` is the run seed ``config seed + k``: seed 0 is each config as written (today's run), and
another seed draws other splits and method seeds for every unit (:mod:`mlhidden.runs.splits`).

**Duplicates are merged per run.** Two settings under which a run's config is the same
computation (the same :attr:`~mlhidden.runs.record.RunRecord.config_hash`: every method's fully
resolved base learner and preprocessing alike) are one piece, run once in the directory of its
representative (the primary setting if it is among them, else the first in the sensitivity
config's order); the manifest names what it stands for. On a run without random forests,
``g_forest_10_trees`` is ``a_lbfgs_C1`` and ``b_liblinear_C1`` is ``j_paper_era``. Settings that
differ for some methods only stay distinct pieces, and the manifest lists, per run, which
settings share which methods' units: those units have the same store keys, so each is computed
once and copied into the others (:mod:`mlhidden.experiment.reuse`).

Layout::

    <out>/multiverse.json                  the manifest: every piece, what it stands for, its state
    <out>/<setting>/seed<k>/<run>/         a normal run directory per piece, with its compact copy

A finished piece (run.json finished, no unit failed or not run, its compact results written) is
skipped; any other resumes through its store. Seed 0's units are copied from the main runs and the
sensitivity study's (``<reuse>/<run>/``, ``<reuse>/sensitivity/<setting>/<run>/``) where they hold them.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from mlhidden import RunConfig, run_experiment
from mlhidden.errors import UserError, did_you_mean
from mlhidden.experiment import check_run_path
from mlhidden.io import write_text
from mlhidden.paper.cost_table import paper_cost_priors
from mlhidden.paper.parallel_jobs import run_jobs
from mlhidden.paper.primary_setting import primary_by_rule
from mlhidden.paper.reference import LABEL_ACCURACY_FILE, LABEL_ACCURACY_REFITS
from mlhidden.paper.refits import label_accuracy_job
from mlhidden.paper.settings import SENSITIVITY_DIR, Sensitivity, load_sensitivity
from mlhidden.runs import has_compact_copy, read_run_json
from mlhidden.yaml_lines import failure_at, read_yaml_with_lines, refuse_unknown_keys

MULTIVERSE_DIR = "multiverse"
MANIFEST_FILE = "multiverse.json"
TOP_LEVEL_KEYS = ("name", "sensitivity", "closest", "blocks")
BLOCK_KEYS = ("runs", "settings", "seeds", "why")
ALL_SETTINGS = "all"
EXAMPLE = "see configs/multiverse.yaml"


@dataclass(frozen=True)
class Block:
    """One product of the multiverse: these runs under these settings (None: all) at these seeds."""

    runs: tuple[str, ...]
    settings: tuple[str, ...] | None
    seeds: tuple[int, ...]


@dataclass(frozen=True)
class Multiverse:
    """A validated multiverse config: the sensitivity study it draws settings and runs from, and its blocks."""

    sensitivity: Sensitivity
    blocks: tuple[Block, ...]
    source: str
    closest: str | None = None
    """The setting declared closest to the paper, whose seed-0 verdicts the first screen shows beside the primary's."""


@dataclass(frozen=True)
class Piece:
    """One run directory of the multiverse: a run's config under a setting (``setting``, the
    representative of ``stands_for``, the settings that make the same config) at seed ``seed``."""

    setting: str
    stands_for: tuple[str, ...]
    seed: int
    config: RunConfig

    @property
    def run(self) -> str:
        return self.config.name

    @property
    def folder(self) -> str:
        """The run directory, relative to the multiverse's folder."""
        return f"{self.setting}/seed{self.seed}/{self.run}"


def load_multiverse(path) -> Multiverse:
    """Read and validate a multiverse config; every problem is one ``UserError`` naming file:line."""
    path = Path(path)
    data, lines = read_yaml_with_lines(path)
    fail = failure_at(path, lines)
    if not isinstance(data, Mapping):
        fail("a multiverse config must be a mapping with 'sensitivity' and 'blocks'", hint=EXAMPLE)
    refuse_unknown_keys(data, TOP_LEVEL_KEYS, (), fail)
    if not isinstance(data.get("sensitivity"), str):
        fail("'sensitivity' must name the sensitivity config (a file beside this one)", ("sensitivity",))
    sensitivity = load_sensitivity(path.parent / data["sensitivity"])
    blocks = data.get("blocks")
    if not isinstance(blocks, list) or not blocks:
        fail("'blocks' must be a non-empty list of {runs, settings, seeds}", ("blocks",))
    parsed = tuple(_block(entry, ("blocks", i), sensitivity, fail) for i, entry in enumerate(blocks))
    closest = data.get("closest")
    names = [setting.name for setting in sensitivity.settings]
    if closest is not None and closest not in names:
        fail(f"'closest' names no setting of the sensitivity config: {closest!r}", ("closest",),
             hint=f"{did_you_mean(str(closest), names)}one of: {', '.join(names)}")
    return Multiverse(sensitivity, parsed, str(path), closest)


def _block(entry, where, sensitivity: Sensitivity, fail) -> Block:
    if not isinstance(entry, Mapping):
        fail("a block must be a mapping with runs, settings and seeds", where)
    refuse_unknown_keys(entry, BLOCK_KEYS, where, fail, within="in a block")
    runs = entry.get("runs")
    if not isinstance(runs, list) or not runs or not all(isinstance(r, str) for r in runs):
        fail("'runs' must be a non-empty list of the sensitivity config's runs", where + ("runs",))
    for run in runs:
        if run not in sensitivity.runs:
            hint = f"{did_you_mean(run, list(sensitivity.runs))}its runs: {', '.join(sensitivity.runs)}"
            fail(f"run '{run}' is not among the sensitivity config's runs", where + ("runs",), hint=hint)
    settings = entry.get("settings", ALL_SETTINGS)
    if settings != ALL_SETTINGS:
        if not isinstance(settings, list) or not settings or not all(isinstance(s, str) for s in settings):
            fail(f"'settings' must be '{ALL_SETTINGS}' or a non-empty list of setting names", where + ("settings",))
        for name in settings:
            try:
                sensitivity.setting(name)
            except UserError as exc:
                fail(exc.message, where + ("settings",), hint=exc.hint)
    seeds = entry.get("seeds", 1)
    if isinstance(seeds, int) and not isinstance(seeds, bool) and seeds >= 1:
        seeds = list(range(seeds))
    if not isinstance(seeds, list) or not seeds or not all(
        isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in seeds
    ):
        fail("'seeds' must be a count (seeds 0..N-1) or a list of seeds >= 0", where + ("seeds",))
    chosen = None if settings == ALL_SETTINGS else tuple(sensitivity.setting(s).name for s in settings)
    return Block(tuple(runs), chosen, tuple(sorted(set(seeds))))


def plan_pieces(multiverse: Multiverse, config_dir="configs", quick: bool = False, only=(), **options) -> list:
    """Every piece of the multiverse in run order (block, seed, run, setting), duplicates merged, all
    configs resolved and checked before anything runs; ``only``: names of settings, runs or ``seed<k>``
    a piece must match (within a kind, any of them). ``options``: ``data_dir`` and ``n_jobs``."""
    sensitivity = multiverse.sensitivity
    groups = {run: _same_config_groups(sensitivity, config_dir, run, quick, options) for run in _runs(multiverse)}
    pieces: dict[str, Piece] = {}
    for block in multiverse.blocks:
        names = block.settings or tuple(s.name for s in sensitivity.settings)
        for seed in block.seeds:
            for run in block.runs:
                for group in groups[run]:
                    if any(name in group.stands_for for name in names):
                        piece = _at_seed(group, seed)
                        pieces.setdefault(piece.folder, piece)
    return select_pieces(list(pieces.values()), only, multiverse)


@dataclass(frozen=True)
class _Group:
    """Settings under which a run's seed-0 config is one computation, representative first."""

    stands_for: tuple[str, ...]
    config: RunConfig


def _runs(multiverse: Multiverse) -> list[str]:
    return list(dict.fromkeys(run for block in multiverse.blocks for run in block.runs))


def _config_path(config_dir, run: str) -> Path:
    path = Path(config_dir) / f"{run}.yaml"
    if not path.is_file():
        hint = "run from the project root or pass --configs DIR"
        raise UserError(f"config of run '{run}' not found", path=path, hint=hint)
    return path


def _load(sensitivity: Sensitivity, name: str, config_dir, run: str, quick: bool, options):
    config = sensitivity.setting(name).load(_config_path(config_dir, run), **options)
    return sensitivity.quick.shrink(config) if quick else config


def _same_config_groups(sensitivity: Sensitivity, config_dir, run: str, quick: bool, options) -> list[_Group]:
    """The run's settings grouped by config hash, in the config's order of their representatives."""
    primary = primary_by_rule(sensitivity.settings)
    by_hash: dict[str, list] = {}
    for setting in sensitivity.settings:
        config = _load(sensitivity, setting.name, config_dir, run, quick, options)
        if config is not None:
            by_hash.setdefault(config.config_hash, []).append((setting.name, config))
    groups = []
    for members in by_hash.values():
        names = [name for name, _ in members]
        first = names.index(primary.name) if primary is not None and primary.name in names else 0
        ordered = [members[first], *(m for i, m in enumerate(members) if i != first)]
        groups.append(_Group(tuple(name for name, _ in ordered), ordered[0][1]))
    order = [s.name for s in sensitivity.settings]
    return sorted(groups, key=lambda group: order.index(group.stands_for[0]))


def _at_seed(group: _Group, seed: int) -> Piece:
    """The group's piece at ``seed``: its config with the run seed ``config seed + seed``. The seed decides
    nothing a config's parsing reads (only the split recipe), so the parsed config is reused, not read again."""
    config = group.config if seed == 0 else dataclasses.replace(group.config, seed=group.config.seed + seed)
    return Piece(group.stands_for[0], group.stands_for, seed, config)


def select_pieces(pieces: list, only, multiverse: Multiverse) -> list:
    """The pieces matching every kind of name in ``only``; an unknown name is a ``UserError`` listing the valid ones."""
    if not only:
        return pieces
    settings = {s.name for s in multiverse.sensitivity.settings}
    runs = set(_runs(multiverse))
    seeds = {f"seed{seed}" for block in multiverse.blocks for seed in block.seeds}
    wanted: dict[str, set] = {}
    for name in only:
        kind = next((k for k, names in (("setting", settings), ("run", runs), ("seed", seeds)) if name in names), None)
        if kind is None:
            valid = sorted(settings | runs | seeds)
            raise UserError(f"--only '{name}' names no setting, run or seed of the multiverse",
                            path=multiverse.source, hint=f"{did_you_mean(name, valid)}choose among: {', '.join(valid)}")
        wanted.setdefault(kind, set()).add(name)

    def matches(piece: Piece) -> bool:
        return (
            ("setting" not in wanted or bool(wanted["setting"] & set(piece.stands_for)))
            and ("run" not in wanted or piece.run in wanted["run"])
            and ("seed" not in wanted or f"seed{piece.seed}" in wanted["seed"])
        )

    return [piece for piece in pieces if matches(piece)]


def merges(pieces: list) -> dict:
    """Per run, what is merged: ``same_run`` (representative -> the settings its one run directory
    stands for, where more than one) and ``same_units`` (settings of distinct run directories whose
    units agree for some methods, and those methods' labels), read from the resolved method specs."""
    found: dict[str, dict] = {}
    for piece in pieces:
        if piece.seed != min(p.seed for p in pieces if p.run == piece.run):
            continue
        entry = found.setdefault(piece.run, {"same_run": {}, "same_units": [], "_specs": {}})
        if len(piece.stands_for) > 1:
            entry["same_run"][piece.setting] = list(piece.stands_for)
        entry["_specs"][piece.setting] = {m.label: m.params_hash for m in piece.config.methods}
    for entry in found.values():
        specs = entry.pop("_specs")
        shared: dict[tuple, list] = {}
        for label in next(iter(specs.values())):
            by_hash: dict[str, list] = {}
            for setting, hashes in specs.items():
                by_hash.setdefault(hashes[label], []).append(setting)
            for settings in by_hash.values():
                if len(settings) > 1:
                    shared.setdefault(tuple(settings), []).append(label)
        entry["same_units"] = [{"settings": list(s), "methods": labels} for s, labels in shared.items()]
    return found


def merge_lines(pieces: list) -> list[str]:
    """:func:`merges` as sentences, one per run and merge, e.g. ``logical: b_liblinear_C1 = j_paper_era for
    every method (one run directory, j_paper_era)``."""
    lines = []
    for run, entry in merges(pieces).items():
        for setting, names in entry["same_run"].items():
            lines.append(f"{run}: {' = '.join(names[1:] + names[:1])} for every method (one run directory, {setting})")
        for shared in entry["same_units"]:
            lines.append(
                f"{run}: {' = '.join(shared['settings'])} for {', '.join(shared['methods'])} "
                "(distinct run directories; these units are computed once and copied)"
            )
    return lines


def is_finished(run_dir, config: RunConfig) -> bool:
    """Whether a piece's run directory holds this config's finished run, no unit failed or left, and its
    compact results."""
    run_json = read_run_json(run_dir)
    if run_json is None or run_json.get("status") != "finished" or run_json.get("config_hash") != config.config_hash:
        return False
    units = run_json.get("units") or {}
    return not units.get("failed") and not units.get("not_run") and has_compact_copy(run_dir)


def study_donors(piece: Piece, settings, reuse_dir) -> list[Path]:
    """At seed 0, the run directories outside the multiverse that may hold a piece's units: the main
    run (``reuse_dir/<run>/``) and the sensitivity study's under each of ``settings``; none at another seed."""
    if piece.seed != 0 or reuse_dir is None:
        return []
    reuse_dir = Path(reuse_dir)
    return [reuse_dir / piece.run, *(reuse_dir / SENSITIVITY_DIR / name / piece.run for name in settings)]


def donors(piece: Piece, pieces: list, out_dir: Path, settings, reuse_dir) -> list[Path]:
    """Where a piece's units may already be: :func:`study_donors`, then the other pieces of its run and
    seed; units are copied only under the same store key."""
    siblings = [
        out_dir / other.folder for other in pieces
        if other.run == piece.run and other.seed == piece.seed and other.folder != piece.folder
    ]
    return [*study_donors(piece, settings, reuse_dir), *siblings]


def run_multiverse(
    multiverse: Multiverse, out_dir, *, config_dir="configs", quick: bool = False, only=(), data_dir=None,
    n_jobs=None, progress: Callable | None = None, reuse_dir=None,
) -> dict:
    """Run every piece not finished into ``out_dir/<setting>/seed<k>/<run>/``, write its compact results
    as it ends, and keep the manifest current; returns it (``interrupted`` set when a run was).
    ``progress(label)`` returns a context manager with the runner's ``start`` and ``unit`` callbacks."""
    out_dir = Path(out_dir)
    everything = plan_pieces(multiverse, config_dir, quick, data_dir=data_dir, n_jobs=n_jobs)
    pieces = select_pieces(everything, only, multiverse)
    settings = [setting.name for setting in multiverse.sensitivity.settings]
    for piece in pieces:
        check_run_path(out_dir / piece.folder, "give a shorter --out")
    manifest = _manifest(multiverse, everything, quick, out_dir)
    entries = {entry["dir"]: entry for entry in manifest["pieces"]}
    for piece in pieces:
        run_dir, entry = out_dir / piece.folder, entries[piece.folder]
        if is_finished(run_dir, piece.config):
            entry["status"] = "finished"
            refit_label_accuracy(run_dir, piece.run, data_dir, n_jobs)
            continue
        started = time.perf_counter()
        with progress(f"{piece.folder}") if progress is not None else nullcontext() as shown:
            summary = run_experiment(
                piece.config, run_dir, reuse_from=donors(piece, everything, out_dir, settings, reuse_dir),
                on_start=getattr(shown, "start", None), on_unit=getattr(shown, "unit", None),
                priors=paper_cost_priors(),
            )
        entry["wall_seconds"] += time.perf_counter() - started
        entry["reused_units"] += sum(summary.reused_units.values())
        if summary.interrupted:
            entry["status"] = "interrupted"
            return {**_write_manifest(out_dir, manifest), "interrupted": True}
        entry["status"] = "finished" if is_finished(run_dir, piece.config) else "incomplete"
        if entry["status"] == "finished":
            refit_label_accuracy(run_dir, piece.run, data_dir, n_jobs)
        _write_manifest(out_dir, manifest)
    return _write_manifest(out_dir, manifest)


def refit_label_accuracy(run_dir: Path, run: str, data_dir=None, n_jobs=None) -> None:
    """The per-label refits a claim reads (:data:`~mlhidden.paper.reference.LABEL_ACCURACY_REFITS`, C8's) for a
    finished piece that lacks them, as a reproduction makes them for its own runs: without them that claim
    would be "not evaluated" in every world."""
    if run in LABEL_ACCURACY_REFITS and not (run_dir / LABEL_ACCURACY_FILE).is_file():
        run_jobs([label_accuracy_job(run_dir, *LABEL_ACCURACY_REFITS[run], data_dir)], n_jobs)


def _manifest(multiverse: Multiverse, pieces: list, quick: bool, out_dir: Path) -> dict:
    """The manifest of ``pieces``, keeping the times and copies that the manifest in ``out_dir`` recorded
    for the same slice."""
    earlier = read_manifest(out_dir) or {}
    before = {e["dir"]: e for e in earlier.get("pieces", [])} if earlier.get("quick") == quick else {}
    entries = []
    for piece in pieces:
        old = before.get(piece.folder, {})
        status = "finished" if is_finished(out_dir / piece.folder, piece.config) else old.get("status", "not run")
        entries.append({
            "dir": piece.folder, "setting": piece.setting, "stands_for": list(piece.stands_for), "seed": piece.seed,
            "run_seed": piece.config.seed, "run": piece.run, "status": status,
            "wall_seconds": old.get("wall_seconds", 0.0), "reused_units": old.get("reused_units", 0),
        })
    return {"config": multiverse.source, "quick": quick, "pieces": entries, "merges": merges(pieces)}


def _write_manifest(out_dir: Path, manifest: dict) -> dict:
    write_text(out_dir / MANIFEST_FILE, json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest


def read_manifest(out_dir) -> dict | None:
    """The manifest a multiverse run wrote into ``out_dir``, or None."""
    path = Path(out_dir) / MANIFEST_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
