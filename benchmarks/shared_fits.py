"""Shared chain fits at several worker counts, measured on real runs (not simulated).

``python -m benchmarks.shared_fits [--workers N] [--splits S] [--quick]`` runs one config whose methods share
fits (CCASL, CCASL+BR and CCASL+AML share CCASL's chain; PCC shares CC's) once with one worker and
once with ``N`` (default: every core), each into a fresh folder, and writes a Markdown section into
``benchmarks/results.md`` (between its ``shared fits`` markers):

- per run, how many shared fits were computed (a consumer that stored no reused time computed the
  fit itself) against how many there are to compute (one per dataset, split and owner);
- the sum of the units' own fit seconds (``train_seconds``, borrowed fits excluded), whose
  ratio between the runs is the target: equal within 5 %;
- whether every stored score is identical between the runs.

Unit seconds are wall seconds: on a machine loaded beyond its cores, units that run side by side
take longer each, so the count of computed fits is the noise-free check and the seconds need a quiet machine.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import pandas as pd

from benchmarks.results_file import QUICK_RESULTS, results_path, write_section
from mlhidden.experiment.config import parse_config
from mlhidden.experiment.runner import run_experiment
from mlhidden.runs.metrics import METRICS
from mlhidden.runs.store import ResultStore
from mlhidden.runs.store_schema import REUSED_SECONDS

# Which method computes the fit each consumer can borrow.
FIT_OWNERS = {"CCASL": "CCASL", "CCASL+BR": "CCASL", "CCASL+AML": "CCASL", "CC": "CC", "PCC": "CC"}
CONFIG = {
    "name": "shared_fits",
    "datasets": ["Scene", "Medical", "Enron"],
    "methods": [{"name": name} for name in FIT_OWNERS],
    "seed": 0,
}
QUICK_DATASET, QUICK_SPLITS = "Scene", 2


def measure(workers: int, splits: int, folder: Path, datasets: list[str]) -> tuple[pd.DataFrame, float]:
    """The stored units of the config run on ``datasets`` with ``workers`` workers, and the run's wall seconds."""
    config = parse_config({**CONFIG, "datasets": datasets, "splits": splits})
    started = time.perf_counter()
    summary = run_experiment(config, folder, n_jobs=workers, fresh=True)
    wall = time.perf_counter() - started
    if summary.interrupted or summary.n_failed:
        raise SystemExit(f"the run with {workers} worker(s) did not finish: {summary.unit_counts()}")
    with ResultStore(folder, create=False) as store:
        return store.units(), wall


def computed_fits(units: pd.DataFrame) -> tuple[int, int]:
    """How many shared fits the run computed, and how many distinct ones there are."""
    units = units.assign(owner=units["registry_name"].map(FIT_OWNERS))
    computed = int((units[REUSED_SECONDS].fillna(0) == 0).sum())
    return computed, int(units.groupby(["dataset", "split", "owner"]).ngroups)


def section(workers: int, splits: int, datasets: list[str]) -> str:
    """The Markdown section comparing one worker against ``workers``."""
    rows, scores = [], {}
    with tempfile.TemporaryDirectory() as scratch:
        for count in (1, workers):
            units, wall = measure(count, splits, Path(scratch) / f"w{count}", datasets)
            computed, distinct = computed_fits(units)
            key = ["dataset", "registry_name", "split"]
            scores[count] = units.sort_values(key).set_index(key)[
                [m for m in METRICS if m in units and not m.endswith("_seconds")]
            ]
            rows.append(
                {
                    "workers": count,
                    "units": len(units),
                    "shared fits computed": computed,
                    "distinct shared fits": distinct,
                    "own fit s (sum)": round(float(units["train_seconds"].sum()), 1),
                    "reused s (sum)": round(float(units[REUSED_SECONDS].fillna(0).sum()), 1),
                    "wall s": round(wall, 1),
                }
            )
    table = pd.DataFrame(rows)
    ratio = table["own fit s (sum)"].iloc[1] / table["own fit s (sum)"].iloc[0]
    same = scores[1].equals(scores[workers])
    once = bool((table["shared fits computed"] == table["distinct shared fits"]).all())
    load = os.getloadavg()[0]
    return (
        f"### Shared fits at 1 and {workers} workers (real runs; load average {load:.1f} at the end)\n\n"
        f"`python -m benchmarks.shared_fits --workers {workers} --splits {splits}`: {', '.join(datasets)} x "
        f"{', '.join(FIT_OWNERS)}, {splits} splits.\n\n{table.to_markdown(index=False)}\n\n"
        f"Every shared fit computed once: {'yes' if once else 'no'}. Own fit seconds at {workers} / at 1 worker: "
        f"{ratio:.3f} (target within 5 %: {'met' if abs(ratio - 1) <= 0.05 else 'not met'}). "
        f"Every stored score identical: {'yes' if same else 'no'}.\n"
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--splits", type=int, default=10)
    parser.add_argument(
        "--quick", action="store_true", help=f"{QUICK_SPLITS} splits of {QUICK_DATASET}, into {QUICK_RESULTS}"
    )
    args = parser.parse_args(argv)
    datasets = [QUICK_DATASET] if args.quick else CONFIG["datasets"]
    splits = QUICK_SPLITS if args.quick else args.splits
    print(write_section("shared fits", section(args.workers, splits, datasets), results_path(args.quick)))


if __name__ == "__main__":
    main()
