"""Dispatch order and shared fits, simulated from a stored run's unit times.

``python -m benchmarks.dispatch [--check RUN_ROOT] [--eta LOG]`` prints a Markdown section and
writes it into ``benchmarks/results.md`` between the ``dispatch`` markers:

- the paper run (``results/paper/units.csv``) replayed on 2, 4, 16 and 64 workers in plan order
  and in the runner's order, longest expected first (:func:`~mlhidden.experiment.costs.longest_expected_first`:
  the paper study's measured cells, :func:`~mlhidden.paper.cost_table.paper_cost_priors`);
- the shared chain fits on 16 workers: computed fit seconds without a cross-process claim (each
  unit that starts before the chain is stored fits it again) and with one (it waits);
- ``--check``: each run of a reproduction folder replayed on 2 workers from its own units' worker
  times, in the order the runner dispatched them, against the unit phase it recorded
  (``reproduction.json``; see :func:`check_runs`);
- ``--eta``: the ETA of that reproduction's progress log against the true time left
  (:mod:`benchmarks.eta_accuracy`).
"""

from __future__ import annotations

import argparse
import heapq
import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import yaml

from benchmarks.eta_accuracy import read_runs, table
from benchmarks.results_file import results_path, write_section
from mlhidden.experiment.cost_priors import own_seconds
from mlhidden.experiment.costs import UNIT_OVERHEAD_SECONDS, PlannedCost, longest_expected_first
from mlhidden.experiment.eta import makespan
from mlhidden.paper.cost_table import paper_cost_priors
from mlhidden.runs.run_results import sort_units
from mlhidden.runs.store import ResultStore, load_results

ROOT = Path(__file__).resolve().parent.parent
WORKERS = (2, 4, 16, 64)
# Methods whose first fit is a chain another method of the same split fits identically.
CHAIN_OWNERS = {"CCASL+BR": "CCASL", "CCASL+AML": "CCASL", "PCC": "CC"}
CHECK_WORKERS = 2
CHECK_TARGET = 0.10
"""The simulation's largest error against a real run's unit phase, as a fraction."""


def paper_units() -> pd.DataFrame:
    from mlhidden.data import catalog_entries, make_logical

    units = pd.read_csv(ROOT / "results" / "paper" / "units.csv")
    config = yaml.safe_load((ROOT / "configs" / "paper.yaml").read_text())
    methods = [m if isinstance(m, str) else m["name"] for m in config["methods"]]
    shapes = {e.name: (e.n_samples, e.n_features, e.n_labels) for e in catalog_entries()}
    logical = make_logical()
    shapes["Logical"] = (logical.n_samples, logical.n_features, logical.n_labels)
    units = units.assign(
        _d=units["dataset"].map({d: i for i, d in enumerate(config["datasets"])}),
        _m=units["method"].map({m: i for i, m in enumerate(methods)}),
    )
    units = units.sort_values(["_d", "_m", "split"]).reset_index(drop=True)
    order, _ = longest_expected_first(
        [
            PlannedCost(u.dataset, shapes[u.dataset], u.registry_name, u.params_hash, u.method, u.params_json)
            for u in units.itertuples()
        ],
        priors=paper_cost_priors(),
    )
    return units.assign(dispatched=pd.Series(range(len(order)), index=order))


def runner_order(units: pd.DataFrame) -> list:
    """The rows of :func:`paper_units` in the order the runner hands them out into an empty store."""
    return list(units.sort_values("dispatched").itertuples())


def dispatch_table(units: pd.DataFrame) -> list[str]:
    plan = units["total_seconds"].tolist()
    first = [u.total_seconds for u in runner_order(units)]
    lines = [
        "| workers | plan order (s) | longest-expected-first (s) | gain | lower bound max(sum/w, longest) (s) |",
        "|---|---|---|---|---|",
    ]
    for w in WORKERS:
        a, b = makespan(plan, w), makespan(first, w)
        bound = max(sum(plan) / w, max(plan))
        lines.append(f"| {w} | {a:.0f} | {b:.0f} | {100 * (a - b) / a:.0f} % | {bound:.0f} |")
    return lines


def chain_costs(units: pd.DataFrame) -> tuple[dict, list[float]]:
    """Each shared chain's fit seconds, keyed (dataset, owner method, split), and each unit's seconds without it.

    A store of schema 2 or later records a chain in the train time of the unit that fitted it (whichever
    of the family went first) and in the ``reused_seconds`` of those that reused it; an older one (no
    ``reused_seconds``) counted it in the train time of every unit of the family, and the owner's is the chain.
    """
    reused = units["reused_seconds"].fillna(0.0) if "reused_seconds" in units else pd.Series(0.0, index=units.index)
    family = units["method"].map(lambda m: CHAIN_OWNERS.get(m, m))
    in_family = family.isin(set(CHAIN_OWNERS.values()))
    keys = list(zip(units["dataset"], family, units["split"]))
    chain: dict = {}
    for key, reuse, member in zip(keys, reused, in_family):
        if member:
            chain[key] = max(chain.get(key, 0.0), reuse)
    if not reused.any():  # an older store: the owner's train time is the chain
        chain = {
            k: t
            for k, m, t, member in zip(keys, units["method"], units["train_seconds"], in_family)
            if member and m == k[1]
        }
    own = [
        total - chain[key] + reuse if member else total
        for key, total, reuse, member in zip(keys, units["total_seconds"], reused, in_family)
    ]
    return chain, own


def shared_fit_simulation(units: pd.DataFrame, workers: int, lock: bool, order: list) -> tuple[float, float]:
    """(computed chain-fit seconds, makespan) of ``order`` (rows of ``units``) on ``workers``: a unit of a chain's
    family costs its own seconds (:func:`chain_costs`) when the chain is stored when it starts (or, with
    ``lock``, once the unit fitting it finishes), else it fits the chain as well."""
    chain, own = chain_costs(units)
    position = {index: i for i, index in enumerate(units.index)}
    ready: dict = {}  # chain key -> time it is stored (or being fitted until)
    free = [0.0] * workers
    computed, end = 0.0, 0.0
    for u in order:
        start = heapq.heappop(free)
        key = (u.dataset, CHAIN_OWNERS.get(u.method, u.method), u.split)
        cost = own[position[u.Index]]
        if key in chain:
            if key in ready and (ready[key] <= start or lock):
                finish = max(start, ready[key]) + cost
            else:
                computed += chain[key]
                ready.setdefault(key, start + chain[key])
                finish = start + cost + chain[key]
        else:
            finish = start + cost
        end = max(end, finish)
        heapq.heappush(free, finish)
    return computed, end


def shared_fit_table(units: pd.DataFrame) -> list[str]:
    lines = [
        "| workers | order | computed chain fits, no claim (s) | with claim (s) | makespan no claim / claim (s) |",
        "|---|---|---|---|---|",
    ]
    orders = {
        "plan": list(units.itertuples()),
        "longest-first": runner_order(units),
    }
    for w in (1, 16):
        for name, order in orders.items():
            (a, ma), (b, mb) = (
                shared_fit_simulation(units, w, False, order),
                shared_fit_simulation(units, w, True, order),
            )
            lines.append(f"| {w} | {name} | {a:.0f} | {b:.0f} | {ma:.0f} / {mb:.0f} |")
    return lines


@dataclass
class RunCheck:
    """One run of a reproduction: its dispatch simulated against what it measured.

    ``worker_timed`` of its ``units`` were replayed at their stored ``worker_seconds``, the others at
    train + test + :data:`~mlhidden.experiment.costs.UNIT_OVERHEAD_SECONDS`, on workers free from the run's
    ``worker_start`` on (None: not recorded, 0); ``measured`` is the run's ``unit_phase_seconds``, or its whole
    ``wall_seconds`` when ``phase`` is False (both from an older reproduction.json).
    """

    name: str
    units: int
    worker_timed: int
    worker_start: float | None
    simulated: float
    measured: float
    phase: bool

    @property
    def error(self) -> float:
        return (self.simulated - self.measured) / self.measured


def simulate_run(run_dir: Path, workers: int = CHECK_WORKERS, worker_start: float = 0.0) -> tuple[float, int, int]:
    """(makespan, units, units with a worker time) of the units of the run at ``run_dir`` handed out as the
    runner hands them out into an empty store (:func:`~mlhidden.experiment.costs.longest_expected_first` over
    the plan order, which is the tables' order: dataset, method, split) to the first free of ``workers``,
    each free from ``worker_start`` on."""
    results = load_results(run_dir)
    with ResultStore(run_dir, create=False) as store:
        shapes = {r.name: (r.n_samples, r.n_features, r.n_labels) for r in store.datasets().itertuples()}
    units = sort_units(results.units, results.datasets, results.methods, results.unavailable).to_dict("records")
    order, _ = longest_expected_first(
        [
            PlannedCost(
                u["dataset"], shapes[u["dataset"]], u["registry_name"], u["params_hash"], u["method"], u["params_json"]
            )
            for u in units
        ],
        priors=paper_cost_priors(),
    )
    timed = [bool(pd.notna(u["worker_seconds"])) for u in units]
    seconds = [
        float(u["worker_seconds"]) if has_time else own_seconds(u) + UNIT_OVERHEAD_SECONDS
        for u, has_time in zip(units, timed)
    ]
    return makespan([seconds[i] for i in order], workers, [worker_start] * workers), len(units), sum(timed)


def check_runs(root: Path) -> list[RunCheck]:
    """Each run of the reproduction at ``root`` (as ``mlhidden reproduce --n-jobs 2`` wrote it) simulated.

    The simulation replays what dispatch decides: which worker computes which unit, and when. So it is
    compared with the part of the run that dispatch governs, from the first unit handed out to the last
    stored (``unit_phase_seconds``), not with the run's setup (planning, loading data) nor what follows it
    (its tables); and each unit is replayed at what it took its worker (``worker_seconds``), not at its fit
    and predict alone. The workers are free from the measured ``worker_start_seconds`` on: the run's first
    config starts the worker pool after its first unit is handed out (loky spawns processes then), which
    takes seconds. What neither holds is the time between two units on a worker (returning one, receiving
    the next): 0.7 to 7 ms a unit as probed, a few per cent of the runs whose units take 10 to 20 ms.
    """
    log = json.loads((root / "reproduction.json").read_text())
    checks = []
    for name, run in log["runs"].items():
        start = run.get("worker_start_seconds")
        simulated, n_units, timed = simulate_run(root / name, worker_start=start or 0.0)
        phase = "unit_phase_seconds" in run
        measured = run["unit_phase_seconds"] if phase else run["wall_seconds"]
        checks.append(RunCheck(name, n_units, timed, start, simulated, measured, phase))
    return checks


def check_table(root: Path) -> list[str]:
    """:func:`check_runs` as a table with the runs together, and whether they meet :data:`CHECK_TARGET`."""
    checks = check_runs(root)
    lines = [
        "| run | units | unit times | worker start (s) | unit phase (s) | simulated, dispatch order (s) | error |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in checks:
        fallback = f"train + test + {UNIT_OVERHEAD_SECONDS} s"
        mixed = f"{c.worker_timed} worker_seconds, rest {fallback}"
        times = "worker_seconds" if c.worker_timed == c.units else fallback if c.worker_timed == 0 else mixed
        start = "not recorded" if c.worker_start is None else f"{c.worker_start:.2f}"
        measured = f"{c.measured:.2f}" + ("" if c.phase else " (whole run: no unit phase recorded)")
        lines.append(
            f"| {c.name} | {c.units} | {times} | {start} | {measured} | {c.simulated:.2f} | {100 * c.error:+.0f} % |"
        )
    measured, simulated = sum(c.measured for c in checks), sum(c.simulated for c in checks)
    overall = (simulated - measured) / measured
    lines.append(
        f"| all | {sum(c.units for c in checks)} | | | {measured:.2f} | {simulated:.2f} | {100 * overall:+.0f} % |"
    )
    missed = [c.name for c in checks if abs(c.error) > CHECK_TARGET]
    lines += [
        "",
        f"Target: the simulation within {100 * CHECK_TARGET:.0f} % of the measured unit phase. All runs: "
        f"{100 * overall:+.0f} %, {'met' if abs(overall) <= CHECK_TARGET else 'not met'}; per run: met by "
        f"{len(checks) - len(missed)} of {len(checks)}" + (f" (not by {', '.join(missed)})." if missed else "."),
    ]
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", type=Path, help="a reproduction folder run on 2 cores, to check the simulation against"
    )
    parser.add_argument("--eta", type=Path, help="a progress log of that reproduction")
    parser.add_argument("--quick", action="store_true", help="write results/quick/benchmarks.md, not results.md")
    args = parser.parse_args(argv)
    units = paper_units()
    lines = [
        "## Dispatch (benchmarks/dispatch.py)",
        "",
        "Paper run (results/paper/units.csv, 1,200 units) replayed:",
        "",
    ]
    lines += dispatch_table(units) + ["", "Shared chain fits (CCASL → CCASL+BR, CCASL+AML; CC → PCC) replayed:", ""]
    lines += shared_fit_table(units)
    if args.check:
        lines += ["", f"Simulation against a real 2-core run ({args.check}):", ""] + check_table(args.check)
    if args.eta:
        runs = read_runs(args.eta.read_text().splitlines())
        lines += ["", f"ETA of that run ({args.eta.name}):", ""] + table(runs[-1])
    section = write_section("dispatch", "\n".join(lines), results_path(args.quick))
    print(section)


if __name__ == "__main__":
    main()
