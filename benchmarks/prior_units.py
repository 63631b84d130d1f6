"""The paper study's table of measured unit costs, from a reproduction.

``python -m benchmarks.prior_units OUT`` reads every ``OUT/<config>/store.sqlite`` of a reproduction
(read only) and writes ``mlhidden/paper/unit_costs.csv``: per dataset (with its shape) and method
label, the number of successful units and their mean own compute seconds (train + test; the fits a
unit reused from another method are recorded apart), which
:func:`~mlhidden.paper.cost_table.paper_cost_priors` hands the runner. The generic curves are
``python -m benchmarks.cost_priors``'s.
"""

from __future__ import annotations

import argparse
import csv
import sqlite3
import statistics
from collections import defaultdict
from pathlib import Path

from mlhidden.experiment.cost_priors import own_seconds
from mlhidden.paper.cost_table import UNIT_COSTS

ROOT = Path(__file__).resolve().parent.parent
CELLS = ROOT / "mlhidden" / "paper" / UNIT_COSTS


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


if __name__ == "__main__":
    main()
