"""The ETA of a reproduction replayed from its stored unit times, sampled more often than its log.

``python -m benchmarks.eta_replay RUN_ROOT [LOG] [--every S]`` replays each config's units (the
runner's dispatch order, each unit's stored compute seconds) on 2 simulated workers through
:class:`~mlhidden.experiment.eta.RunEstimate`, as ``reproduce`` feeds it, and prints the
:mod:`benchmarks.eta_accuracy` table of the ETA every ``--every`` seconds of simulated time.

With the run's stamped progress ``LOG`` (``--quick`` reproductions), each unit also costs its
config's measured wall time beyond its compute, spread over its units, and the configs are apart
by the gaps the log shows. Without one (the full reproduction, ``RUN_ROOT`` = ``results``), each
unit costs 0.05 s more and configs are apart by their planning time. What the simulation leaves
out (the machine's load changing, units finishing out of order) only a real run shows.
"""

from __future__ import annotations

import argparse
import heapq
import re
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import pandas as pd

from benchmarks.eta_accuracy import Run, Sample, table
from mlhidden.experiment.cost_priors import own_seconds
from mlhidden.experiment.costs import UNIT_OVERHEAD_SECONDS
from mlhidden.experiment.eta import RunEstimate, planned_stage
from mlhidden.paper.cost_table import paper_cost_priors
from mlhidden.paper.primary_setting import primary_by_rule
from mlhidden.paper.reproduction import paper_configs
from mlhidden.paper.settings import load_sensitivity

WORKERS = 2


def stage_spans(log: Path) -> dict[int, tuple[float, float]]:
    """Each stage's first and last status line times in a stamped log."""
    spans: dict[int, list[float]] = {}
    for line in log.read_text().splitlines():
        match = re.match(r"^([\d.]+)\tprogress: stage (\d+)/\d+", line)
        if match:
            spans.setdefault(int(match[2]), []).append(float(match[1]))
    return {stage: (times[0], times[-1]) for stage, times in spans.items()}


def replay(root: Path, log: Path | None, every: float) -> Run:
    quick = log is not None
    configs = paper_configs(
        "configs", quick=quick, setting=primary_by_rule(load_sensitivity("configs/sensitivity.yaml").settings)
    )
    spans = stage_spans(log) if log else {}
    stages, setup = [], []
    with tempfile.TemporaryDirectory() as empty:
        for config in configs:
            began = time.perf_counter()
            stages.append(planned_stage(config, Path(empty) / config.name, priors=paper_cost_priors()))
            setup.append(time.perf_counter() - began)
    estimate = RunEstimate(stages, WORKERS, setup)
    samples, now = [], 0.0
    for number, (config, units) in enumerate(zip(configs, stages), start=1):
        stored = pd.read_csv(root / config.name / "units.csv")
        seconds = defaultdict(list)
        for (dataset, label), cost in zip(
            zip(stored["dataset"], stored["label"]), stored.apply(own_seconds, axis=1)
        ):
            seconds[dataset, label].append(cost)
        compute = sum(sum(costs) for costs in seconds.values())
        if quick:
            first, last = spans[number]
            overhead = max((WORKERS * (last - first) - compute) / len(stored), 0.0)
            now += first - spans[number - 1][1] if number > 1 else 0.0
        else:
            overhead = UNIT_OVERHEAD_SECONDS
            now += setup[number - 1] if number > 1 else 0.0
        workers = min(WORKERS, len(units))
        estimate.start_stage(units, now, workers)
        free = [(now, worker) for worker in range(workers)]
        ends = []
        for cell, _ in units:
            start, worker = heapq.heappop(free)
            cost = seconds[cell].pop(0)
            ends.append((start + cost + overhead, cell, cost))
            heapq.heappush(free, (ends[-1][0], worker))
        samples.append(Sample(now, f"stage {number}/{len(configs)}", estimate.remaining(now)))
        tick = now
        for end, cell, cost in sorted(ends):
            while tick + every < end:
                tick += every
                samples.append(Sample(tick, f"stage {number}/{len(configs)}", estimate.remaining(tick)))
            estimate.finished(cell, cost, end)
            now = end
        samples.append(Sample(now, f"stage {number}/{len(configs)}", estimate.remaining(now)))
    return Run(samples)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="a reproduction folder (units.csv per config)")
    parser.add_argument("log", type=Path, nargs="?", help="its stamped progress log (a --quick reproduction)")
    parser.add_argument(
        "--every", type=float, default=None, help="seconds between samples (default 5, 60 without a log)"
    )
    args = parser.parse_args(argv)
    run = replay(args.root, args.log, args.every or (5.0 if args.log else 60.0))
    print("\n".join(table(run)))


if __name__ == "__main__":
    main()
