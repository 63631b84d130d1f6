"""Dispatch order and shared fits, simulated from a stored run's unit times.

``python -m benchmarks.dispatch [--check RUN_ROOT] [--eta LOG]`` prints a Markdown section and
writes it into ``benchmarks/results.md`` between the ``dispatch`` markers:

- the paper run (``results/paper/units.csv``) replayed on 2, 4, 16 and 64 workers in plan order
  and longest-expected-first (priors of :mod:`mlhidden.experiment.costs`);
- the shared chain fits on 16 workers: computed fit seconds without a cross-process claim (each
  unit that starts before the chain is stored fits it again) and with one (it waits);
- ``--check``: each run of a reproduction folder replayed on 2 workers from its own unit times in
  the order the runner dispatches (priors), against the wall time it recorded (``reproduction.json``);
- ``--eta``: the ETA of that reproduction's progress log against the true time left
  (:mod:`benchmarks.eta_accuracy`).
"""

from __future__ import annotations

import argparse
import heapq
import json
from pathlib import Path

import pandas as pd
import yaml

from benchmarks.eta_accuracy import read_runs, table
from benchmarks.results_file import write_section
from mlhidden.experiment.costs import expected_seconds, longest_first
from mlhidden.experiment.eta import makespan
from mlhidden.experiment.store import ResultStore

ROOT = Path(__file__).resolve().parent.parent
WORKERS = (2, 4, 16, 64)
# Methods whose first fit is a chain another method of the same split fits identically.
CHAIN_OWNERS = {"CCASL+BR": "CCASL", "CCASL+AML": "CCASL", "PCC": "CC"}


def paper_units() -> pd.DataFrame:
    from mlhidden.data import make_logical, registry_entries

    units = pd.read_csv(ROOT / "results" / "paper" / "units.csv")
    config = yaml.safe_load((ROOT / "configs" / "paper.yaml").read_text())
    methods = [m if isinstance(m, str) else m["name"] for m in config["methods"]]
    shapes = {e.name: (e.n_samples, e.n_features, e.n_labels) for e in registry_entries()}
    logical = make_logical()
    shapes["Logical"] = (logical.n_samples, logical.n_features, logical.n_labels)
    units = units.assign(
        _d=units["dataset"].map({d: i for i, d in enumerate(config["datasets"])}),
        _m=units["method"].map({m: i for i, m in enumerate(methods)}),
        prior=[expected_seconds(shapes[d], m) for d, m in zip(units["dataset"], units["method"])],
    )
    return units.sort_values(["_d", "_m", "split"]).reset_index(drop=True)


def dispatch_table(units: pd.DataFrame) -> list[str]:
    plan = units["total_seconds"].tolist()
    first = [u.total_seconds for u in longest_first(list(units.itertuples()), units["prior"].tolist())]
    lines = [
        "| workers | plan order (s) | longest-expected-first (s) | gain | lower bound max(sum/w, longest) (s) |",
        "|---|---|---|---|---|",
    ]
    for w in WORKERS:
        a, b = makespan(plan, w), makespan(first, w)
        bound = max(sum(plan) / w, max(plan))
        lines.append(f"| {w} | {a:.0f} | {b:.0f} | {100 * (a - b) / a:.0f} % | {bound:.0f} |")
    return lines


def shared_fit_simulation(units: pd.DataFrame, workers: int, lock: bool, order: list) -> tuple[float, float]:
    """(computed chain-fit seconds, makespan) of ``order`` on ``workers``: a unit reusing a chain
    costs its own seconds less the chain's when the chain is stored when it starts (or, with
    ``lock``, once the unit fitting it finishes), else it fits the chain again."""
    chain = {
        (u.dataset, u.method, u.split): u.train_seconds
        for u in units.itertuples()
        if u.method in set(CHAIN_OWNERS.values())
    }
    ready: dict = {}  # chain key -> time it is stored (or being fitted until)
    free = [0.0] * workers
    computed, end = 0.0, 0.0
    for u in order:
        start = heapq.heappop(free)
        owner = CHAIN_OWNERS.get(u.method, u.method)
        key = (u.dataset, owner, u.split)
        cost = u.total_seconds
        if key in chain:
            fit = chain[key]
            own = cost - fit  # a consumer's train time counts the chain it reused
            if key in ready and (ready[key] <= start or lock):
                finish = max(start, ready[key]) + own
            else:
                computed += fit
                ready.setdefault(key, start + fit)
                finish = start + own + fit
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
        "longest-first": longest_first(list(units.itertuples()), units["prior"].tolist()),
    }
    for w in (1, 16):
        for name, order in orders.items():
            (a, ma), (b, mb) = (
                shared_fit_simulation(units, w, False, order),
                shared_fit_simulation(units, w, True, order),
            )
            lines.append(f"| {w} | {name} | {a:.0f} | {b:.0f} | {ma:.0f} / {mb:.0f} |")
    return lines


def check_table(root: Path) -> list[str]:
    """Each run of a reproduction at ``root`` replayed on 2 workers from its own unit times."""
    log = json.loads((root / "reproduction.json").read_text())
    lines = ["| run | units | measured wall (s) | simulated, dispatch order (s) | error |", "|---|---|---|---|---|"]
    total_wall = total_sim = 0.0
    for name, run in log["runs"].items():
        with ResultStore(root / name, create=False) as store:
            shapes = {r.name: (r.n_samples, r.n_features, r.n_labels) for r in store.datasets().itertuples()}
            units = store.units()
        seconds = (units["train_seconds"] + units["test_seconds"]).tolist()
        priors = [expected_seconds(shapes[d], m) for d, m in zip(units["dataset"], units["method"])]
        simulated = makespan(longest_first(seconds, priors), 2)
        wall = run["wall_seconds"]
        total_wall, total_sim = total_wall + wall, total_sim + simulated
        lines.append(
            f"| {name} | {len(units)} | {wall:.1f} | {simulated:.1f} | {100 * (simulated - wall) / wall:+.0f} % |"
        )
    lines.append(
        f"| all | | {total_wall:.1f} | {total_sim:.1f} | {100 * (total_sim - total_wall) / total_wall:+.0f} % |"
    )
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", type=Path, help="a reproduction folder run on 2 cores, to check the simulation against"
    )
    parser.add_argument("--eta", type=Path, help="a progress log of that reproduction")
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
    section = write_section("dispatch", "\n".join(lines))
    print(section)


if __name__ == "__main__":
    main()
