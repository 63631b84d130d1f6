"""The expected seconds of units as a run goes (priors rescaled by the finished units), and the dispatch order.

Before a unit of a cell has finished, its expected cost is its prior
(:class:`~mlhidden.experiment.cost_priors.CostPriors`); :class:`CostModel` rescales the priors by
what the finished units show of the machine, its load and the run, since priors order units and
weigh the remaining ones but cannot promise seconds on another machine.
"""

from __future__ import annotations

import json
import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple, TypeVar

from mlhidden.experiment.cost_priors import (
    GENERIC_PRIORS,
    MIN_UNIT_SECONDS,
    SHARED_FITS,
    CostPriors,
    Identity,
    Shape,
    ensemble_scale,
    learner_of,
    own_seconds,
    plain_identity,
)
from mlhidden.experiment.sweeps import sweep_of

SHRINKAGE = 2.0
"""The weight, in finished units, of the prior belief that an effect of :meth:`CostModel.ratio` is 0 (ratio 1)."""

MAX_EFFECT = 100.0
"""The largest factor one effect may put on a prior, either way."""

PACE_SECONDS = 30.0
"""The compute seconds of finished units of a run at which its effect counts half towards a run not started yet."""

BACKFIT_ROUNDS = 3
NESTED = ("group", "dataset")
"""(kind, kind nested in it): the inner effect is left out when the outer one is fitted."""

REUSED_FIT_SHARE = 0.1
"""What a unit that reuses a fit still pays of that fit's cost (reading it, predicting with it), as the stored
runs of the paper config show it for CC after PCC and for CCASL after CCASL+AML."""

UNIT_OVERHEAD_SECONDS = 0.02
"""Wall seconds a unit takes a worker beyond its fit and predict (handing it out, splitting the data,
storing the result), at most; the finished units
show what a run takes (:meth:`CostModel.wall_seen`), and a loaded machine's further wait goes to the slowdown."""

OVERHEAD_WEIGHT = 10.0
"""The weight, in units, of the prior belief that a unit's overhead is :data:`UNIT_OVERHEAD_SECONDS`."""

SLOWDOWN_WEIGHT = 10.0
"""The weight, in compute seconds, of the prior belief that a run's units take no more wall time than their
compute and :data:`UNIT_OVERHEAD_SECONDS` (slowdown 1)."""

MAX_SLOWDOWN = 10.0

Cell = tuple[str, str]
"""A (dataset, method label) pair: the units whose costs are alike."""
Effect = tuple[object, ...]
"""The key of one learned effect: ("all",), ("group", run), ("dataset", run, dataset), ("method", run, method)
or ("pace",)."""
T = TypeVar("T")


def wall_seconds(compute_seconds: float, n_units: int, workers: int = 1) -> float:
    """About how long ``n_units`` units of ``compute_seconds`` in all take on ``workers``, with their overhead."""
    return (compute_seconds + n_units * UNIT_OVERHEAD_SECONDS) / max(workers, 1)


class CostModel:
    """The expected seconds of units, learned from the finished ones.

    A unit's expected cost is the mean of the finished units of its cell; before one has
    finished, its prior times a ratio of actual to prior seconds learned from the finished cells
    of its run and method (:meth:`ratio`). A unit's wall time on a worker is its compute times
    the slowdown the finished units showed (workers waiting on the parent, storing), plus
    their overhead (:meth:`wall_seen`).

    Parameters
    ----------
    priors : iterable of (cell, prior seconds)
        Every cell the model will be asked about, with its prior (:meth:`CostPriors.expected_seconds`).

    Attributes
    ----------
    slowdown : float
        The finished units' wall seconds, less their overhead, per compute second (:meth:`wall_seen`).
    overhead : float
        The wall seconds a unit takes beyond its compute (:meth:`wall_seen`).
    measured : set of cells
        Cells whose prior is wall seconds this machine already took (a reproduction's report phase,
        timed in the same folder): neither rescaled by the units nor teaching them anything.
    """

    def __init__(self, priors: Iterable[tuple[Cell, float]] = ()):
        self.prior: dict[Cell, float] = {}
        self.group: dict[Cell, object] = {}
        self.seconds: defaultdict[Cell, float] = defaultdict(float)
        self.count: Counter[Cell] = Counter()
        self.slowdown = 1.0
        self.overhead = UNIT_OVERHEAD_SECONDS
        self.latest: Cell | None = None
        self.measured: set[Cell] = set()
        self._effects: dict[Effect, float] | None = None
        self.add(priors)

    def add(self, priors: Iterable[tuple[Cell, float]], group: object = None) -> None:
        """Cells to be asked about, with their priors; ``group`` names the run they belong to (their
        effects are learned within it, see :meth:`ratio`)."""
        for cell, seconds in priors:
            self.prior[cell] = max(float(seconds), 1e-6)
            if group is not None:
                self.group[cell] = group
        self._effects = None

    def finished(self, cell: Cell, seconds: float) -> None:
        """A unit of ``cell`` took ``seconds`` of compute."""
        self.seconds[cell] += max(seconds, 1e-6)
        self.count[cell] += 1
        self.latest = cell
        self._effects = None

    def wall_seen(self, worker_seconds: float, units: int, compute_seconds: float) -> None:
        """Workers spent ``worker_seconds`` (wall time x workers) on ``units`` units that computed
        ``compute_seconds``.

        The time beyond the compute is first a per-unit overhead, up to :data:`UNIT_OVERHEAD_SECONDS`
        (less if that is all the units took: :data:`OVERHEAD_WEIGHT`), then a slowdown of the compute
        (a loaded machine, workers waiting on the parent)."""
        excess = max(worker_seconds - compute_seconds, 0.0)
        self.overhead = min(
            UNIT_OVERHEAD_SECONDS, (excess + OVERHEAD_WEIGHT * UNIT_OVERHEAD_SECONDS) / (units + OVERHEAD_WEIGHT)
        )
        beyond = max(worker_seconds - units * self.overhead, compute_seconds)
        slowdown = (beyond + SLOWDOWN_WEIGHT) / (max(compute_seconds, 0.0) + SLOWDOWN_WEIGHT)
        self.slowdown = min(slowdown, MAX_SLOWDOWN)

    def ratio(self, cell: Cell) -> float:
        """Actual over prior seconds expected for ``cell``: the product of its effects, each the ratio of
        the actual to the expected seconds of the finished cells that share it, shrunk towards 1.

        The priors miss in ways that finished units reveal: the machine and its load (all units),
        a run whose datasets (sparse, easy, generated) are cheaper or dearer than their size (its
        ``group``, weighed by how many of its methods agree: units go out a method at a time), one
        dataset of a run cheaper or dearer than its size for every method (weighed alike), a
        method slower or faster in a run than its curve (it reuses another method's fits there,
        or this machine suits it; the points of a method sweep, ``MLP [n_hidden=4]``, share the
        effect of ``MLP``). Ratios of sums, not means of log ratios: a unit that reused
        another's fit took next to nothing, and weighs as little. A run not started yet is paced
        as the latest run, as far as that run's compute so far is worth (:data:`PACE_SECONDS`):
        the machine's load moves as a long run goes.
        """
        if self._effects is None:
            self._effects = self._fit_effects()
        keys = self._keys(cell)
        if keys[1] not in self._effects:
            keys.append(("pace",))
        return math.exp(sum(self._effects.get(key, 0.0) for key in keys))

    def _keys(self, cell: Cell) -> list[Effect]:
        group = self.group.get(cell)
        return [("all",), ("group", group), ("dataset", group, cell[0]), ("method", group, sweep_of(cell[1]))]

    def _fit_effects(self) -> dict[Effect, float]:
        """The effect of all units first, then each other effect in turn from what the others leave
        unexplained (backfitting), so that a group's effect is its departure from the pace of all. A
        dataset's effect is its departure from the other datasets of its group: what they share is
        the group's (:func:`_centre_in_groups`), which a dataset not seen yet carries, and a dataset
        never explains its group away (:data:`NESTED`)."""
        cells = [cell for cell in self.count if cell in self.prior and cell not in self.measured]
        keys = {cell: self._keys(cell) for cell in cells}
        effects: dict[Effect, float] = {}
        for sweep in range(BACKFIT_ROUNDS):
            for kind in ("all", "group", "method", "dataset") if sweep == 0 else ("group", "method", "dataset"):
                actual: defaultdict[Effect, float] = defaultdict(float)
                expected: defaultdict[Effect, float] = defaultdict(float)
                units: Counter[Effect] = Counter()
                methods: defaultdict[Effect, set[Effect]] = defaultdict(set)
                for cell in cells:
                    key = next((k for k in keys[cell] if k[0] == kind), None)
                    if key is None:
                        continue
                    others = sum(effects.get(k, 0.0) for k in keys[cell] if k != key and (kind, k[0]) != NESTED)
                    actual[key] += self.seconds[cell]
                    expected[key] += self.count[cell] * self.prior[cell] * math.exp(others)
                    units[key] += self.count[cell]
                    methods[key].add(keys[cell][3])
                for key, n in units.items():
                    if kind in ("group", "dataset"):  # how many methods say the data are dearer, not how many units
                        n = len(methods[key])
                    effects[key] = n / (n + SHRINKAGE) * math.log(_clip(actual[key] / expected[key]))
                if kind == "dataset":
                    _centre_in_groups(effects, list(units))
        if self.latest is not None:
            latest = self.group.get(self.latest)
            seconds = sum(self.seconds[cell] for cell in cells if self.group.get(cell) == latest)
            effects[("pace",)] = seconds / (seconds + PACE_SECONDS) * effects.get(("group", latest), 0.0)
        return effects

    def expected(self, cell: Cell) -> float:
        """The expected compute seconds of one more unit of ``cell``."""
        if self.count[cell]:
            return self.seconds[cell] / self.count[cell]
        if cell in self.measured:
            return self.prior[cell]
        return self.prior.get(cell, 0.0) * self.ratio(cell)

    def wall(self, cell: Cell) -> float:
        """The expected seconds one more unit of ``cell`` takes a worker, overhead included (for a
        :attr:`measured` cell, its prior: wall seconds already)."""
        if cell in self.measured:
            return self.expected(cell)
        return self.expected(cell) * self.slowdown + self.overhead


class PlannedCost(NamedTuple):
    """A unit as its cost is looked up: its dataset and shape (N, D, L), its registered method, params hash and
    label, and the method's resolved identity (:data:`~mlhidden.experiment.cost_priors.Identity`), which names
    its base learner."""

    dataset: str
    shape: Shape
    method: str
    params_hash: str
    label: str
    resolved: Identity


def _expected_unit_seconds(
    units: Iterable[PlannedCost], stored: Iterable[Mapping[str, Any]] | None = None,
    priors: CostPriors = GENERIC_PRIORS,
) -> list[float]:
    """The expected seconds of each of ``units``.

    ``stored`` (rows with ``dataset``, ``method``, ``params_hash``, ``status`` and ``train_seconds`` +
    ``test_seconds``, e.g. a store's units) gives a unit the mean cost of the stored successful units of
    its dataset and method; the others get their measured cost or their prior
    (:meth:`CostPriors.expected_seconds`), less the fits they will reuse (:func:`_less_shared_fits`).
    """
    units = list(units)
    measured: defaultdict[tuple[str, str, str], list[float]] = defaultdict(list)
    for row in [] if stored is None else stored:
        if row["status"] == "ok":
            measured[row["dataset"], row["registry_name"], row["params_hash"]].append(own_seconds(row))
    seconds: list[float] = []
    priced: list[int] = []
    for position, unit in enumerate(units):
        stored_seconds = measured[unit.dataset, unit.method, unit.params_hash]
        learner, scale = learner_of(unit.resolved), ensemble_scale(unit.resolved)
        known = (
            statistics.fmean(stored_seconds) if stored_seconds
            else priors.measured_seconds(
                unit.shape, unit.method, (unit.dataset, unit.label), unit.params_hash, learner, scale)
        )
        if known is None:
            priced.append(position)
            known = priors.curve_seconds(unit.shape, unit.method, learner, scale)
        seconds.append(known)
    return _less_shared_fits(units, seconds, priced, priors)


def _less_shared_fits(
    units: Sequence[PlannedCost], seconds: list[float], priced: Iterable[int], priors: CostPriors
) -> list[float]:
    """``seconds`` with the fits the ``priced`` units (those priced by a curve) will reuse taken off.

    Methods that make one fit (:data:`~mlhidden.experiment.cost_priors.SHARED_FITS`) on the same dataset with
    the same base learner compute it once per split: the dearest of them, which goes first, pays for it and
    the others' curves (which price their whole work) overstate them by most of that fit's curve
    (:data:`REUSED_FIT_SHARE`). A group with two labels of one method is left as it is: which fits
    they share depends on their parameters.
    """
    groups: defaultdict[tuple[str, str, str], list[int]] = defaultdict(list)
    for position in priced:
        unit = units[position]
        shared = SHARED_FITS.get(unit.method, unit.method)
        if shared in SHARED_FITS.values():
            groups[unit.dataset, shared, _base_identity(unit.resolved)].append(position)
    for (_, shared, _), members in groups.items():
        labels = {units[i].label: units[i].method for i in members}
        if len(labels) < 2 or len(set(labels.values())) < len(labels):
            continue
        payer = units[max(members, key=lambda i: seconds[i])].label
        for i in members:
            unit = units[i]
            if unit.label != payer:
                fit = priors.curve_seconds(unit.shape, shared, learner_of(unit.resolved), ensemble_scale(unit.resolved))
                seconds[i] = max(seconds[i] - (1 - REUSED_FIT_SHARE) * fit, MIN_UNIT_SECONDS)
    return seconds


def _base_identity(resolved: Identity) -> str:
    return json.dumps(plain_identity(resolved).get("base"), sort_keys=True)


def longest_expected_first(
    units: Sequence[PlannedCost], stored: Iterable[Mapping[str, Any]] | None = None,
    priors: CostPriors = GENERIC_PRIORS,
) -> tuple[list[int], list[float]]:
    """The positions of ``units`` (as :func:`_expected_unit_seconds` takes them, in plan order) in the order
    the runner hands them out, and their expected seconds in that order: the longest expected unit of each
    dataset first, then the others longest expected first, ties in plan order. The one dispatch order, of
    the runner and of any replay of its runs.

    Going first, one unit of each dataset shows how its cost departs from its size
    (:meth:`CostModel.ratio`) while the long units run, where longest first alone would leave a small
    dataset's units all to the end and the estimate to carry the large datasets' pace over to them."""
    seconds = _expected_unit_seconds(units, stored, priors)
    order = _longest_first(list(range(len(units))), seconds)
    firsts = set({units[i].dataset: i for i in reversed(order)}.values())
    order = [i for i in order if i in firsts] + [i for i in order if i not in firsts]
    return order, [seconds[i] for i in order]


def _longest_first(units: Sequence[T], seconds: Sequence[float]) -> list[T]:
    """``units`` by decreasing expected ``seconds``, ties in their given order.

    Handing the longest out first keeps one long unit from starting last and running alone
    while the other workers idle.
    """
    return [units[i] for i in sorted(range(len(units)), key=lambda i: -seconds[i])]


def _centre_in_groups(effects: dict[Effect, float], datasets: Sequence[Effect]) -> None:
    """Move the mean effect of each group's ``datasets`` (``("dataset", group, name)`` keys) to the group's effect."""
    by_group: defaultdict[object, list[Effect]] = defaultdict(list)
    for key in datasets:
        by_group[key[1]].append(key)
    for group, keys in by_group.items():
        mean = statistics.fmean(effects[key] for key in keys)
        for key in keys:
            effects[key] -= mean
        effects["group", group] = effects.get(("group", group), 0.0) + mean


def _clip(ratio: float) -> float:
    return min(max(ratio, 1 / MAX_EFFECT), MAX_EFFECT)
