"""How long a run has left: its remaining units replayed on its workers at their expected costs.

The runner hands units to ``workers`` in dispatch order (longest expected first). The estimate
follows that: the first ``workers`` units start at once, and each time one finishes the next in
order starts. The time left is the end of a simulation of the units still running (their
expected time less the time they have run) and those still queued, each given to the first
free worker. Expected times come from :class:`~mlhidden.experiment.costs.CostModel`: each unit's
compute, rescaled by the units that finished so the estimate learns the machine's speed and
load as the run goes, plus the overhead per unit (handing out, storing) the finished units took
beyond their compute. A run of several stages (the paper's configs, one after the other) adds
for each later stage the simulated length of its units, the time its setup took when it was
planned (loading and generating datasets) and the time the stages so far took between them
beyond their setup (writing tables).

The priors are seconds an idle machine took; before any unit has finished, only the machine's
present load can say how much longer they take now. :func:`machine_slowdown` measures it with a
short probe, and :class:`RunEstimate` scales its priors by it; the units that finish then correct it.
"""

from __future__ import annotations

import heapq
import os
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mlhidden.experiment.cost_history import history_priors
from mlhidden.experiment.cost_priors import CostPriors
from mlhidden.experiment.costs import Cell, CostModel
from mlhidden.io import PathLike

if TYPE_CHECKING:
    from mlhidden.experiment.config import RunConfig

BETWEEN_STAGES_SECONDS = 0.1
"""The prior of the seconds between a stage's last unit and the next stage's setup (one stage's weight):
short, as run tables are written after the last stage, with the report."""


PROBE_SECONDS = 0.3
"""How long :func:`machine_slowdown` keeps one core busy: long enough for the scheduler to share it out."""

MAX_MACHINE_SLOWDOWN = 50.0

WHOLE_CORE = 0.95
"""A probe share of a core at least this is a whole one: an idle machine's timer and scheduling noise leave
its thread a hair under 1, which ``cores / share - 1`` would read as ``cores - 1`` others (1.5 on 2 cores
for 2 workers, with nothing else running); a share under 1 means more threads than cores, and the first
such, one more thread than cores, gives each ``cores / (cores + 1)``, far below this."""

NICE_0_WEIGHT = 1024.0
NICE_STEP = 1.25
"""The Linux scheduler's weight of a thread at nice 0, and the ratio between the weights of two nice
levels next to each other (its ``sched_prio_to_weight`` table): a thread at nice -10 weighs about
9.3 of nice 0's, and gets 9.3 times their share of a core, up to a whole core."""


def load_average() -> float:
    """The threads that wanted a core, on average over the last minute (0 where the system does not say)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return 0.0


def runnable_weights(proc: str = "/proc") -> list[float] | None:
    """The scheduler weights of the other processes' threads that want a core now (state R), from
    ``proc``'s ``<pid>/task/<tid>/stat``; None where there is no such folder (not Linux)."""
    root = Path(proc)
    if not (root / "self" / "stat").is_file():
        return None
    own = os.getpid()
    weights = []
    for stat in root.glob("[0-9]*/task/[0-9]*/stat"):
        if stat.parts[-4] == str(own):
            continue
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # a thread that ended while it was read
        if fields and fields[0] == "R":
            weights.append(NICE_0_WEIGHT / NICE_STEP ** int(fields[16]))
    return weights


def worker_share(others: Sequence[float], workers: int, cores: int, weight: float = NICE_0_WEIGHT) -> float:
    """The share of a core each of ``workers`` threads of ``weight`` gets beside threads of the
    ``others`` weights on ``cores``: shares go by weight, but no thread gets more than one core, so
    the heaviest take a core each and the rest share what is left by weight."""
    weights = sorted([*others, *[weight] * workers], reverse=True)
    if len(weights) <= cores:
        return 1.0
    left, total = float(cores), sum(weights)
    for heavy in weights:
        if heavy <= weight or heavy * left < total:
            break
        left, total = left - 1.0, total - heavy
    return min(weight * left / total, 1.0)


def machine_slowdown(
    workers: int, cores: int | None = None, seconds: float = PROBE_SECONDS,
    wall: Callable[[], float] = time.perf_counter, cpu: Callable[[], float] = time.thread_time,
    load: Callable[[], float] = load_average, runnable: Callable[[], list[float] | None] = runnable_weights,
) -> float:
    """How many times its idle time a unit takes now on one of ``workers`` sharing ``cores`` (default:
    this machine's) with whatever else runs: the largest of three readings, since each misses a load
    the others see, and the units meet the load of the minutes to come.

    - The scheduler's: for ``seconds``, the probe reads which other threads want a core and their weights
      (``runnable``: :func:`runnable_weights`), and each time works out the share of a core each of
      ``workers`` would get among them (:func:`worker_share`). A thread's weight (its nice level) counts,
      not just its count: a background job at nice -10 takes a whole core of 2 whatever the load average
      says, and the load average, a mean over the last minute, lags a load that has just risen.
    - The probe's own: the share of a core its thread got (CPU time over wall time). A share ``s`` below 1
      says ``cores / s`` equal threads want the cores, the probe one of them; ``workers`` of ours join
      the others, each then getting ``cores / (others + workers)``.
    - The ``load`` average of the last minute as the others' count, joined likewise: it misses weights and
      a load that has just risen, but not the others' bursts that a 0.3 s look at the present falls between.
      Where the scheduler can be read, it counts in proportion to the share of the readings that found
      another thread wanting a core: the mean keeps a load that has ended for a minute after, so a run
      started as another ends (CI's quick reproduction, after ``make smoke``) would otherwise be priced as
      if that one went on, while a load still running (a parallel ``make test``) is found in nearly every
      reading and counts whole.

    An idle machine gives 1 for as many workers as cores.
    """
    cores = max(int(cores or os.cpu_count() or 1), 1)
    workers = max(workers, 1)
    shares, busy_readings = [], 0
    began_wall, began_cpu = wall(), cpu()
    while (elapsed := wall() - began_wall) < seconds:
        wanting = runnable()
        if wanting is None:
            sum(range(1000))
        else:
            shares.append(worker_share(wanting, workers, cores))
            busy_readings += bool(wanting)
    probed = (cpu() - began_cpu) / max(elapsed, 1e-9)
    probe_others = cores / max(probed, 1e-6) - 1 if probed < WHOLE_CORE else 0.0
    still_running = busy_readings / len(shares) if shares else 1.0
    slowdown = (max(probe_others, load() * still_running, 0.0) + workers) / cores
    if shares:
        slowdown = max(slowdown, len(shares) / sum(shares))
    return min(max(slowdown, 1.0), MAX_MACHINE_SLOWDOWN)


def makespan(seconds: Sequence[float], workers: int, free_at: Sequence[float] = ()) -> float:
    """When the last of ``seconds`` ends, handed out in this order to the first free of ``workers``
    (``free_at`` gives the time each busy worker is free; the others are free at 0)."""
    heap = sorted(list(free_at)[:workers] + [0.0] * max(workers - len(free_at), 0))
    for cost in seconds:
        heapq.heapreplace(heap, heap[0] + cost)
    return max(heap) if heap else 0.0


class RunEstimate:
    """The remaining wall seconds of a run of one or more stages.

    Parameters
    ----------
    stages : sequence of sequences of (cell, prior seconds)
        The units each stage will compute, in dispatch order (a later stage's list is replaced
        by the runner's own when it starts, see :meth:`start_stage`).
    workers : int
        The units computing at once.
    setup : sequence of float, optional
        The seconds each stage takes before its first unit starts (planning it, as when ``stages``
        was made); 0 for each by default.
    measured : iterable of cells, optional
        Cells whose prior is already wall seconds on this machine (see
        :attr:`~mlhidden.experiment.costs.CostModel.measured`), such as a report phase after the units.
    slowdown : float, default=1
        How many times their idle seconds the units take on this machine now (:func:`machine_slowdown`):
        every prior but those of the ``measured`` cells is scaled by it, the runner's own and the units'
        overhead (handing out, storing: work on the same cores) included.
    """

    def __init__(
        self, stages: Sequence[Sequence[tuple[Cell, float]]], workers: int = 1, setup: Sequence[float] = (),
        measured: Iterable[Cell] = (), slowdown: float = 1.0,
    ):
        self.measured = set(measured)
        self.slowdown = slowdown
        self.stages = [self._scaled(units) for units in stages]
        self.setup = list(setup) + [0.0] * (len(self.stages) - len(setup))
        self.workers = self.stage_workers = max(int(workers), 1)
        self.model = CostModel()
        self.model.overhead *= slowdown  # an idle machine's too, until the finished units show this one's
        self.model.measured.update(self.measured)
        for stage, units in enumerate(self.stages):
            self.model.add(units, group=stage)
        self.stage = -1
        self.queue: list[Cell] = []
        self.running: list[tuple[Cell, float]] = []
        self.began: float | None = None
        self.stage_began = self.last_end = 0.0
        self.units = 0
        self.closed_seconds = self.compute = 0.0
        self.between: list[float] = []
        self.fraction = self.fraction_at = self.upto = 0.0
        self.shown_fraction = 0.0

    def _scaled(self, units: Sequence[tuple[Cell, float]]) -> list[tuple[Cell, float]]:
        return [(cell, seconds if cell in self.measured else seconds * self.slowdown) for cell, seconds in units]

    def start_stage(self, units: Sequence[tuple[Cell, float]], now: float, workers: int | None = None) -> None:
        """The next stage starts at ``now`` with ``units`` to compute, in dispatch order."""
        if self.stage >= 0:
            self.closed_seconds += self.stage_workers * (self.last_end - self.stage_began)
            self.between.append(
                now - self.last_end - self.setup[self.stage + 1] if self.stage + 1 < len(self.setup) else 0.0
            )
        self.stage += 1
        units = self._scaled(units)
        self.fraction = 0.0
        self.began = now if self.began is None else self.began
        self.stage_began = self.last_end = now
        if self.stage >= len(self.stages):
            self.stages.append([])
            self.setup.append(0.0)
        self.stages[self.stage] = list(units)
        self.model.add(units, group=self.stage)
        self.stage_workers = max(int(workers), 1) if workers is not None else self.workers
        self.queue = [cell for cell, _ in units]
        self.running = []
        self._start_next(now)

    def finished(self, cell: Cell, seconds: float | None, now: float) -> None:
        """A unit of ``cell`` ended at ``now`` after ``seconds`` of compute (None: it failed)."""
        running = [unit for unit, _ in self.running]
        if cell in running:
            del self.running[running.index(cell)]
        elif cell in self.queue:  # handed out ahead of time (joblib dispatches a few in advance)
            self.queue.remove(cell)
        if seconds is not None:
            self.model.finished(cell, seconds)
            self.compute += seconds
        self.units += 1
        self.last_end = now
        self._start_next(now)
        working = self.compute + sum(now - started for _, started in self.running)
        self.model.wall_seen(self.closed_seconds + self.stage_workers * (now - self.stage_began), self.units, working)

    def progressed(self, fraction: float, now: float, upto: float | None = None) -> None:
        """The units running now, which report their own progress (the report phase's steps), were
        ``fraction`` done at ``now``, and will be ``upto`` done when they report next (default: as now)."""
        self.fraction = min(max(fraction, 0.0), 1.0)
        self.fraction_at = now
        self.upto = min(max(self.fraction if upto is None else upto, self.fraction), 1.0)

    def remaining(self, now: float) -> float:
        """Seconds until the last stage ends."""
        busy = [self._left(cell, started, now) for cell, started in self.running]
        left = makespan([self.model.wall(cell) for cell in self.queue], self.stage_workers, busy)
        between = (sum(self.between) + BETWEEN_STAGES_SECONDS) / (len(self.between) + 1)
        for stage in range(self.stage + 1, len(self.stages)):
            units = self.stages[stage]
            left += max(between + self.setup[stage], 0.0) + makespan(
                [self.model.wall(cell) for cell, _ in units], self.workers
            )
        return left

    def done_fraction(self, now: float) -> float:
        """The share of the whole run's time gone by ``now``: elapsed over elapsed and :meth:`remaining`,
        never less than it was shown before (a revised estimate holds it rather than moving it back)."""
        elapsed = 0.0 if self.began is None else max(now - self.began, 0.0)
        total = elapsed + self.remaining(now)
        self.shown_fraction = max(self.shown_fraction, elapsed / total if total > 0 else 1.0)
        return self.shown_fraction

    def _left(self, cell: Cell, started: float, now: float) -> float:
        """A running unit's expected seconds left: its expected wall time less what it ran, or, once it
        reported a fraction done, its pace alone: the time it took to reach that fraction for the whole,
        and at least the time it has run for the share it will have done when it reports next."""
        ran = now - started
        if self.fraction <= 0:
            return max(self.model.wall(cell) - ran, 0.0)
        whole = max((self.fraction_at - started) / self.fraction, ran / self.upto)
        return max(whole - ran, 0.0)

    def _start_next(self, now: float) -> None:
        while self.queue and len(self.running) < self.stage_workers:
            self.running.append((self.queue.pop(0), now))


def planned_stage(
    config: RunConfig, run_dir: PathLike, priors: CostPriors | None = None, reuse_from: Iterable[PathLike] = (),
) -> list[tuple[Cell, float]]:
    """The units a run of ``config`` into ``run_dir`` would compute (those not stored there), in
    dispatch order with their expected seconds, as the runner would price them given ``priors`` and
    ``reuse_from`` (see :func:`~mlhidden.experiment.runner.run_experiment`): a later stage of a :class:`RunEstimate`."""
    from mlhidden.experiment.runner import dispatch_order, plan_run
    from mlhidden.runs.store import ResultStore, store_exists, unit_key

    plan = plan_run(config)
    stored = None
    if store_exists(run_dir):
        with ResultStore(run_dir, create=False) as store:
            stored = store.units()
    done = set() if stored is None else {unit_key(row) for row in stored.to_dict("records") if row["status"] == "ok"}
    units, seconds = dispatch_order(
        [u for u in plan.units if u.key not in done], stored if stored is not None else [],
        history_priors(run_dir, reuse_from, priors),
    )
    return [((u.data.name, u.method.label), cost) for u, cost in zip(units, seconds)]
