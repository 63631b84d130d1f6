"""The experiment protocol: datasets × methods × splits as independent units, run with joblib.

A unit fits one method on one split's training part and evaluates it on the test part. Units
only depend on their own seeds, so the numbers are the same whatever ``n_jobs`` or backend; the
parent process writes each finished unit to the store as soon as it arrives.

Here a run is planned, checked against its run directory and recorded (the store's meta, run.json);
:mod:`mlhidden.experiment.parallel_units` computes and stores its units.
"""

from __future__ import annotations

import json
import shutil
import time
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from mlhidden.data import Dataset, DatasetUnavailable
from mlhidden.errors import InputWarning, UserError
from mlhidden.experiment.backends import ExecutionBackend, worker_count
from mlhidden.experiment.config import RunConfig, with_n_jobs
from mlhidden.experiment.cost_history import history_priors
from mlhidden.experiment.cost_priors import GENERIC_PRIORS, CostPriors
from mlhidden.experiment.costs import PlannedCost, longest_expected_first
from mlhidden.experiment.leases import UnitLeases
from mlhidden.experiment.parallel_units import run_units
from mlhidden.experiment.reuse import reuse_units
from mlhidden.experiment.run_directory import check_run_directory, refuse_fresh_while_in_use
from mlhidden.experiment.run_summary import RunSummary, UnitCallback
from mlhidden.io import PathLike
from mlhidden.runs.compact_results import write_compact_copy
from mlhidden.runs.provenance import describe_run, field_readable, finish_run, read_run_json, write_run_json
from mlhidden.runs.specs import DatasetSpec, load_dataset_spec
from mlhidden.runs.splits import Split, SplitRecipe
from mlhidden.runs.store import ResultStore, now, remove_store
from mlhidden.runs.units import PlannedUnit


@dataclass
class DatasetPlan:
    """A loaded dataset of the run and its splits."""

    dataset: Dataset = field(repr=False)
    splits: list[Split] = field(repr=False)

    @property
    def name(self) -> str:
        return self.dataset.name

    @property
    def sha256(self) -> str:
        return self.dataset.checksum


class LoadedDatasets:
    """Datasets loaded, and split, once for many plans: planning hundreds of configs over the same datasets
    (the multiverse's dry run) would otherwise generate and hash each again per config.

    A dataset is a function of its spec (entry and resolved source), and its splits of the dataset and the
    config's :class:`~mlhidden.runs.splits.SplitRecipe`, so what is kept is what loading again would give.
    """

    def __init__(self) -> None:
        self._datasets: dict[str, Dataset | DatasetUnavailable] = {}
        self._splits: dict[tuple[str, SplitRecipe], list[Split]] = {}

    def load(self, spec: DatasetSpec) -> Dataset:
        key = _spec_key(spec)
        if key not in self._datasets:
            try:
                self._datasets[key] = load_dataset_spec(spec)
            except DatasetUnavailable as exc:
                self._datasets[key] = exc
        loaded = self._datasets[key]
        if isinstance(loaded, DatasetUnavailable):
            raise loaded
        return loaded

    def splits(self, spec: DatasetSpec, recipe: SplitRecipe, data: Dataset) -> list[Split]:
        key = (_spec_key(spec), recipe)
        if key not in self._splits:
            self._splits[key] = recipe.splits(data.name, data.Y)
        return self._splits[key]


def _spec_key(spec: DatasetSpec) -> str:
    return json.dumps([spec.record(), repr(spec.source)], sort_keys=True, default=str)


def load_datasets(
    config: RunConfig, loaded: LoadedDatasets | None = None
) -> tuple[list[DatasetPlan], dict[str, str]]:
    """Load every dataset of the config (before any unit runs), each from the source its spec resolved to when the
    config was read; user-supplied ones may be missing. ``loaded`` keeps them for other configs' plans.

    Two datasets that load under one name in any letter case (two files with one ``@relation``, a
    catalog name and a file) are refused here, as the config's check cannot see a file's name.
    """
    loaded = loaded or LoadedDatasets()
    plans: list[DatasetPlan] = []
    unavailable: dict[str, str] = {}
    named: dict[str, tuple[DatasetSpec, str]] = {}
    for spec in config.datasets:
        try:
            data = loaded.load(spec)
        except DatasetUnavailable as exc:
            unavailable[spec.label or spec.name] = exc.reason
            continue
        if data.name.casefold() in named:
            first, first_name = named[data.name.casefold()]
            names = f"both named '{data.name}'" if first_name == data.name else (
                f"named '{first_name}' and '{data.name}', one name in another letter case"
            )
            raise UserError(
                f"the datasets '{first.name}' and '{spec.name}' are {names} (a file is named by its @relation): "
                "a run's tables need one name per dataset",
                hint="list each dataset once, or give one of them a 'label' in a config file",
            )
        named[data.name.casefold()] = (spec, data.name)
        if data.n_samples < 2:
            raise UserError(
                f"the dataset has {data.n_samples} row(s); a train/test split needs at least 2", path=data.source
            )
        try:
            splits = loaded.splits(spec, config.split_recipe, data)
        except ValueError as exc:
            raise UserError(str(exc), path=data.source, hint="use fewer folds") from None
        plans.append(DatasetPlan(data, splits))
    return plans, unavailable


@dataclass
class RunPlan:
    """Every unit a config asks for, in run order, before anything is stored or computed.

    ``units`` lists them method-major within each dataset, so that a fit to share is usually ready
    before its reuse.
    """

    config: RunConfig
    datasets: list[DatasetPlan]
    unavailable: dict[str, str]
    units: list[PlannedUnit] = field(repr=False)

    @property
    def checksums(self) -> dict[str, str]:
        return {p.name: p.sha256 for p in self.datasets}


def plan_run(config: RunConfig, loaded: LoadedDatasets | None = None) -> RunPlan:
    """Load the config's datasets (kept in ``loaded`` for other plans), draw their splits and list every
    unit with its store key.

    Pure of side effects on any run directory, so what a run would do can be inspected (and
    tested) without running it.
    """
    plans, unavailable = load_datasets(config, loaded)
    units = [
        PlannedUnit(plan.dataset, split, method) for plan in plans for method in config.methods for split in plan.splits
    ]
    return RunPlan(config, plans, unavailable, units)


Pending = tuple[tuple[str, str], float]
"""A unit to run as the ETA sees it: ``((dataset, method label), expected seconds)``."""


class StartCallback(Protocol):
    """What ``run_experiment`` calls once before the first unit (see its docstring)."""

    def __call__(self, n_units: int, n_skipped: int, pending: list[Pending], *, workers: int) -> None: ...


def run_experiment(
    config: RunConfig,
    run_dir: PathLike,
    *,
    n_jobs: int | None = None,
    fresh: bool = False,
    on_unit: UnitCallback | None = None,
    on_start: StartCallback | None = None,
    backend: str = "loky",
    scheduler: str | None = None,
    share_fits: bool = True,
    reuse_from: Iterable[PathLike] = (),
    narrow: bool = False,
    priors: CostPriors | None = None,
) -> RunSummary:
    """Run every unit of ``config`` not yet in ``run_dir``'s store, storing each as it finishes.

    ``n_jobs`` (checked as ``--n-jobs`` is) replaces the config's: the run reads its worker count from the
    config alone (:func:`~mlhidden.experiment.backends.worker_count`).

    ``backend`` and ``scheduler`` say where units compute (see :class:`ExecutionBackend`);
    ``share_fits`` lets methods reuse identical fits made by others on the same split, through
    ``run_dir/shared_fits/`` (emptied before and after the run), or on dask through the cluster
    (:meth:`ExecutionBackend.shared_fits`), with bit-identical results.
    Units go out longest expected first (:func:`dispatch_order`).
    ``on_start(n_units, n_skipped, pending, workers=)`` is called once before the first unit
    (``pending``: a ``((dataset, method label), expected seconds)`` per unit to run, in dispatch
    order, for the ETA; ``workers``: the units computing at once), ``on_unit(unit, result, done, n_units)``
    after each unit is stored (:data:`~mlhidden.experiment.run_summary.UnitCallback`). ``run_dir/run.json``
    records the run's provenance.
    Several processes may run into one ``run_dir`` at once: they share the units through leases
    (:mod:`mlhidden.experiment.leases`), and each returns when every unit is stored.
    Units that a run directory in ``reuse_from`` holds under the same key are copied from it
    instead of computed (:mod:`mlhidden.experiment.reuse`); run.json names the donors.
    A config asking for a part of the run stored in ``run_dir`` and nothing more is refused,
    since it would rewrite that run's tables and run.json with fewer units, unless ``narrow``.
    ``priors`` (default: the generic ones) are the units' expected costs before they run, refitted on
    the runs stored in ``run_dir``, beside it and in ``reuse_from`` (:func:`history_priors`).
    """
    plan = plan_run(with_n_jobs(config, n_jobs))
    return execute_plan(
        plan, run_dir, fresh=fresh, on_unit=on_unit, on_start=on_start,
        backend=backend, scheduler=scheduler, share_fits=share_fits, reuse_from=reuse_from, narrow=narrow,
        priors=priors,
    )


def execute_plan(
    plan: RunPlan, run_dir: PathLike, *, fresh: bool = False,
    on_unit: UnitCallback | None = None, on_start: StartCallback | None = None, backend: str = "loky",
    scheduler: str | None = None, share_fits: bool = True, reuse_from: Iterable[PathLike] = (), narrow: bool = False,
    priors: CostPriors | None = None,
) -> RunSummary:
    """Compute and store the units of ``plan`` that ``run_dir``'s store lacks (see :func:`run_experiment`)."""
    config, run_dir, reuse_from = plan.config, Path(run_dir), list(reuse_from)
    if fresh:
        refuse_fresh_while_in_use(run_dir)
        remove_store(run_dir)
    summary = RunSummary(run_dir, unavailable=plan.unavailable)
    started = time.perf_counter()
    with (
        ExecutionBackend(backend, scheduler) as executor,
        ResultStore(run_dir) as store,
        UnitLeases(store.path) as leases,
    ):
        record = config.record()
        replaced = check_run_directory(store, record, plan.checksums, narrow=narrow)
        leases.hold_run(record["config_hash"])
        if replaced:
            warnings.warn(replaced, InputWarning, stacklevel=2)
        started_at = now()
        _record_plan(store, plan, record, started_at)
        done = store.done_keys()
        if reuse_from:
            summary.reused_units = reuse_units(store.path, reuse_from, {unit.key for unit in plan.units})
            done = store.done_keys()
        todo, expected = dispatch_order(
            [unit for unit in plan.units if unit.key not in done], store.units(),
            history_priors(run_dir, reuse_from, priors),
        )
        summary.n_units, summary.n_skipped = len(plan.units), len(plan.units) - len(todo)

        provenance = describe_run(config, plan.checksums, plan.unavailable, executor.describe(), started_at)
        # With nothing left to compute, the run.json of the invocation that computed the units stands.
        keep_run_json = not todo and _finished_before(run_dir, record["config_hash"], summary.n_units)
        if not keep_run_json:
            write_run_json(run_dir, provenance)
        try:  # from here on, whatever stops the run writes its end into run.json
            slots = executor.slots(config.n_jobs, config.n_jobs_origin)
            summary.workers = worker_count(config.n_jobs, slots, len(todo))
            shared_fits = executor.shared_fits((run_dir / SHARED_FITS_DIR).resolve()) if share_fits else None
            _remove_shared_fits(run_dir)
            if on_start is not None:
                pending = [((unit.data.name, unit.method.label), seconds) for unit, seconds in zip(todo, expected)]
                on_start(summary.n_units, summary.n_skipped, pending, workers=summary.workers)
            run_units(
                todo, worker_count(config.n_jobs, slots), executor, store, leases, summary, on_unit, shared_fits,
                config.unit_timeout,
            )
        except KeyboardInterrupt:
            summary.interrupted = True
        except UserError as exc:  # the store could not take a unit (a full disk): say what is kept
            _remove_shared_fits(run_dir)
            if not keep_run_json:
                _try_to_write_the_end(run_dir, provenance, summary)
            stored_units = summary.n_skipped + summary.n_done
            raise UserError(
                f"{exc.message}; {stored_units} of {summary.n_units} units are stored", path=exc.path, hint=exc.hint
            ) from None
        except BaseException:  # out of memory, no thread left, ...: run.json still says how the run ended
            stored = store.done_keys()
            summary.not_run = [unit.key_columns() for unit in todo if unit.key not in stored]
            _remove_shared_fits(run_dir)
            if not keep_run_json:
                _try_to_write_the_end(run_dir, provenance, summary, interrupted=summary.interrupted)
            raise
        _remove_shared_fits(run_dir)
        summary.seconds = time.perf_counter() - started
        if not keep_run_json:
            _record_the_end(store, run_dir, provenance, summary)
        write_compact_copy(run_dir, store.tables(), store.label_hits())
    return summary


def _record_plan(store: ResultStore, plan: RunPlan, record: dict[str, Any], started_at: str) -> None:
    """Store what the run is before its first unit: its config, start, and every dataset planned or unavailable."""
    store.set_meta("config", record)
    store.set_meta("unavailable", plan.unavailable)
    store.set_meta("started_at", started_at)
    for name, reason in plan.unavailable.items():
        store.record_dataset(name, status=reason)
    for dataset_plan in plan.datasets:
        d = dataset_plan.dataset
        store.record_dataset(
            d.name, sha256=dataset_plan.sha256, source=d.source, n_samples=d.n_samples, n_labels=d.n_labels,
            n_features=d.n_features, label_cardinality=d.label_cardinality,
        )
    store.set_meta("dataset_order", [p.name for p in plan.datasets] + list(plan.unavailable))


def _record_the_end(store: ResultStore, run_dir: Path, provenance: dict[str, Any], summary: RunSummary) -> None:
    """A run that ended by itself: its end in the store and in run.json."""
    finished_at = now()
    store.set_meta("finished_at", finished_at)
    write_run_json(
        run_dir,
        finish_run(
            provenance,
            summary.unit_counts(),
            finished_at,
            interrupted=summary.interrupted,
            reused_fit_seconds=summary.reused_seconds,
            reused_units=summary.reused_units,
        ),
    )


def dispatch_order(
    units: list[PlannedUnit], stored: Any, priors: CostPriors = GENERIC_PRIORS
) -> tuple[list[PlannedUnit], list[float]]:
    """``units`` (a :class:`RunPlan`'s) longest expected first, and their expected seconds in that
    order (:mod:`mlhidden.experiment.costs`; ``stored``: the store's units, whose costs count first).
    Each unit has its own seed, so the order changes when units finish, not what they compute."""
    rows = stored.to_dict("records") if len(stored) else []
    order, seconds = longest_expected_first(
        [
            PlannedCost(
                u.data.name, (u.data.n_samples, u.data.n_features, u.data.n_labels), u.method.name,
                u.method.params_hash, u.method.label, u.method.resolved,
            )
            for u in units
        ],
        rows, priors,
    )
    return [units[i] for i in order], seconds


def _try_to_write_the_end(
    run_dir: Path, provenance: dict[str, Any], summary: RunSummary, interrupted: bool = True
) -> None:
    """Write into run.json how the run ended, where the disk still allows it, rather than leave it "running"."""
    try:
        write_run_json(
            run_dir,
            finish_run(
                provenance, summary.unit_counts(), now(), interrupted=interrupted, reused_units=summary.reused_units
            ),
        )
    except UserError:
        pass


def _finished_before(run_dir: Path, config_hash: str, n_units: int) -> bool:
    """Whether run_dir's run.json tells of a finished run of this config's ``n_units`` units (one whose
    counts are unreadable does not: rewritten, it is readable again)."""
    run_json = read_run_json(run_dir)
    return (
        run_json is not None and run_json.get("status") == "finished" and run_json.get("config_hash") == config_hash
        and field_readable(run_json, "units") and run_json["units"]["total"] == n_units
    )


SHARED_FITS_DIR = "shared_fits"


def _remove_shared_fits(run_dir: Path) -> None:
    shutil.rmtree(run_dir / SHARED_FITS_DIR, ignore_errors=True)
