"""The cost priors from a reproduction: its cells' mean seconds, and its paper units for the curves.

``python -m benchmarks.prior_units OUT`` reads every ``OUT/<config>/store.sqlite`` of a reproduction
(read only) and writes

- ``mlhidden/experiment/unit_costs.csv``: per dataset (with its shape) and method label, the number
  of successful units and their mean own compute seconds (train + test; the fits a unit reused
  from another method are recorded apart), which :func:`~mlhidden.experiment.costs.measured_seconds`
  looks up;
- ``tests/fixtures/prior_units.csv``: the paper config's units (dataset, method, split, train and
  test seconds), on which :func:`~mlhidden.experiment.costs.fit_priors` fits the curves of
  :data:`~mlhidden.experiment.costs.PRIORS` for every other cell; the table it prints goes there.
"""

from __future__ import annotations

import argparse
import csv
import sqlite3
import statistics
from collections import defaultdict
from pathlib import Path

from mlhidden.experiment.costs import MEASURED_CELLS, fit_priors, own_seconds

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "prior_units.csv"
CELLS = ROOT / "mlhidden" / "experiment" / MEASURED_CELLS
COLUMNS = ("dataset", "method", "split", "train_seconds", "test_seconds")


def paper_shapes() -> dict[str, tuple[int, int, int]]:
    """(N, D, L) of the paper's real datasets, the ones the curves are fitted on (Logical's units time overheads)."""
    from mlhidden.data import catalog_entries

    return {e.name: (e.n_samples, e.n_features, e.n_labels) for e in catalog_entries()}


def read_units(fixture: Path = FIXTURE) -> list[dict[str, str]]:
    with open(fixture, newline="") as file:
        return list(csv.DictReader(file))


def stored_units(store: Path) -> list[dict]:
    """The successful units of a store, each with its dataset's shape."""
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
        db.row_factory = sqlite3.Row
        rows = db.execute(
            "SELECT u.dataset, u.method, u.label, u.split, u.train_seconds, u.test_seconds, d.n_samples, d.n_features,"
            " d.n_labels FROM units u JOIN datasets d ON d.name = u.dataset WHERE u.status = 'ok'"
            " ORDER BY u.dataset, u.method, u.label, u.split"
        ).fetchall()
    return [dict(row) for row in rows]


def write_cells(units: list[dict]) -> None:
    seconds: defaultdict[tuple, list[float]] = defaultdict(list)
    for row in units:
        seconds[row["dataset"], row["n_samples"], row["n_features"], row["n_labels"], row["label"]].append(
            own_seconds(row)
        )
    with open(CELLS, "w", newline="") as file:
        writer = csv.writer(file, lineterminator="\n")
        writer.writerow(("dataset", "n_samples", "n_features", "n_labels", "label", "units", "seconds"))
        for key in sorted(seconds):
            writer.writerow((*key, len(seconds[key]), f"{statistics.fmean(seconds[key]):.4f}"))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="a reproduction's output folder (its stores are read only)")
    args = parser.parse_args(argv)
    write_cells([row for store in sorted(args.out.glob("*/store.sqlite")) for row in stored_units(store)])
    with open(FIXTURE, "w", newline="") as file:
        writer = csv.writer(file, lineterminator="\n")
        writer.writerow(COLUMNS)
        for row in stored_units(args.out / "paper" / "store.sqlite"):
            writer.writerow((row["dataset"], row["method"], row["split"], *(f"{row[c]:.4f}" for c in COLUMNS[3:])))
    for method, prior in fit_priors(read_units(), paper_shapes()).items():
        print(f'    "{method}": {prior},')


if __name__ == "__main__":
    main()
