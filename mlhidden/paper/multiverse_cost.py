"""What the multiverse costs (``mlhidden multiverse --dry-run``): per piece and in all, in CPU-hours.

A finished piece costs what its units measured, those of its store or of its compact copy (a clone's
committed pieces), each unit counted once over the pieces of its run and seed. The other pieces' units are
priced as the runner prices them before they run (:func:`~mlhidden.experiment.runner.dispatch_order` with
the study's cost priors, :func:`~mlhidden.paper.cost_table.paper_cost_priors`, refitted on the runs this
machine holds, stores or compact copies, and on the piece's own run and setting at the other seeds: the
same units on other splits). A unit
is copied, at no cost, only where the real run would copy it (:func:`~mlhidden.experiment.reuse.reuse_units`
from the piece's :func:`~mlhidden.paper.multiverse_runs.donors`): from an earlier piece of the same run and
seed in this plan, which will have run first, or from a donor's store as it is now, if it is a readable
store with predictions (a compact copy alone, as in a fresh clone, gives nothing). CPU-hours are the
units' expected compute seconds added up, one core each; parallel units divide the wall time, not this.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from mlhidden.experiment import (
    LoadedDatasets,
    dispatch_order,
    history_priors,
    own_seconds,
    plan_run,
    read_stored_run,
    reusable_keys,
)
from mlhidden.paper.cost_table import paper_cost_priors
from mlhidden.paper.multiverse_runs import Piece, donors, is_finished
from mlhidden.runs import KEY_FIELDS, OK, ResultStore, has_compact_copy, load_results, store_exists

HOUR = 3600.0


@dataclass(frozen=True)
class PieceCost:
    """One piece's units: stored in its run directory, to be copied from elsewhere (for a finished piece: measured
    by an earlier finished piece), to be computed; and the CPU-hours of the units it computes itself
    (``cpu_hours``, measured where it finished) and of those still to compute (``cpu_hours_left``)."""

    piece: Piece
    finished: bool
    units: int
    stored: int
    copied: int
    to_compute: int
    cpu_hours: float
    cpu_hours_left: float


def multiverse_cost(pieces: list, out_dir, settings, reuse_dir=None, everything=None) -> list[PieceCost]:
    """The cost of each of ``pieces`` (in run order, as :func:`~mlhidden.paper.multiverse_runs.plan_pieces`
    gives them) with ``out_dir`` as it is; ``settings`` and ``reuse_dir`` name the study's run directories
    whose units are copied (:func:`~mlhidden.paper.multiverse_runs.study_donors`), ``everything`` the
    whole plan ``pieces`` were chosen from (default: ``pieces``), whose other pieces' stores are donors too."""
    out_dir = Path(out_dir)
    everything = everything or pieces
    held: dict[Path, set] = {}
    will_have_run: dict[tuple[str, int], set] = {}
    measured: dict[tuple[str, int], set] = {}
    read = functools.cache(read_stored_run)
    loaded = LoadedDatasets()
    costs = []
    for piece in pieces:
        run_dir = out_dir / piece.folder
        run_and_seed = (piece.run, piece.seed)
        stored_keys, stored = _stored(run_dir)
        plan = plan_run(piece.config, loaded)
        if is_finished(run_dir, piece.config):
            its_own = stored_keys - measured.setdefault(run_and_seed, set())
            measured[run_and_seed] |= stored_keys
            costs.append(PieceCost(
                piece, True, len(plan.units), len(stored_keys), len(stored_keys) - len(its_own), 0,
                _measured_hours(stored, its_own), 0.0,
            ))
            continue
        given = donors(piece, everything, out_dir, settings, reuse_dir)
        elsewhere = will_have_run.get(run_and_seed, set()).union(*(_reusable(folder, held) for folder in given))
        own = [unit for unit in plan.units if unit.key not in elsewhere]
        left = [unit for unit in own if unit.key not in stored_keys]
        priors = history_priors(run_dir, [*given, *_other_seeds(piece, everything, out_dir)], paper_cost_priors(), read)
        costs.append(PieceCost(
            piece, False, len(plan.units), len(stored_keys),
            sum(1 for unit in plan.units if unit.key not in stored_keys and unit.key in elsewhere), len(left),
            sum(dispatch_order(own, stored, priors)[1]) / HOUR, sum(dispatch_order(left, stored, priors)[1]) / HOUR,
        ))
        will_have_run.setdefault(run_and_seed, set()).update(unit.key for unit in plan.units)
    return costs


def _other_seeds(piece: Piece, pieces: list, out_dir: Path) -> list[Path]:
    """The run directories of ``piece``'s run and setting at the other seeds: the same units on other splits,
    whose measured seconds price its own best."""
    return [
        out_dir / other.folder for other in pieces
        if other.run == piece.run and other.setting == piece.setting and other.seed != piece.seed
    ]


def _measured_hours(stored: pd.DataFrame, keys: set) -> float:
    """The compute hours the successful units of ``stored`` whose keys are in ``keys`` took (:func:`own_seconds`)."""
    if not len(stored):
        return 0.0
    done = stored[stored["status"] == OK]
    return sum(
        own_seconds(row) for row in done.to_dict("records") if tuple(row[field] for field in KEY_FIELDS) in keys
    ) / HOUR


def _reusable(run_dir: Path, held: dict) -> set:
    """What the donor ``run_dir`` can give (:func:`~mlhidden.experiment.reuse.reusable_keys`), read once."""
    if run_dir not in held:
        held[run_dir] = reusable_keys(run_dir)
    return held[run_dir]


def _stored(run_dir: Path) -> tuple[set, pd.DataFrame]:
    """The keys of the finished units in ``run_dir``'s store, or in its compact copy where it has no store (a
    clone's committed pieces), and its units table (empty with neither)."""
    if store_exists(run_dir):
        with ResultStore(run_dir, create=False) as store:
            return store.done_keys(), store.units()
    if not has_compact_copy(run_dir):
        return set(), pd.DataFrame()
    units = load_results(run_dir).units
    done = units[units["status"] == OK]
    return set(zip(*(done[field] for field in KEY_FIELDS))), units


def cost_table(costs: list[PieceCost]) -> pd.DataFrame:
    """One row per piece, as the dry run prints it."""
    return pd.DataFrame([
        {
            "piece": cost.piece.folder, "stands for": ", ".join(cost.piece.stands_for),
            "state": "finished" if cost.finished else "to run", "units": cost.units, "stored": cost.stored,
            "copied": cost.copied, "to compute": cost.to_compute, "CPU-h": round(cost.cpu_hours, 3),
            "CPU-h left": round(cost.cpu_hours_left, 3),
        }
        for cost in costs
    ])


def cost_summary(costs: list[PieceCost]) -> str:
    """The totals in one line: pieces finished, CPU-hours in all, done and left."""
    total = sum(cost.cpu_hours for cost in costs)
    left = sum(cost.cpu_hours_left for cost in costs)
    finished = sum(cost.finished for cost in costs)
    units = sum(cost.units for cost in costs)
    stored = sum(cost.stored for cost in costs)
    return (
        f"{len(costs)} pieces ({finished} finished), {units} units ({stored} stored): "
        f"{total:.2f} CPU-hours in all, {total - left:.2f} done, {left:.2f} left"
    )
