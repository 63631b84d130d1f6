"""Two full reproductions side by side: compute seconds per config and method, and every stored score.

``python -m benchmarks.reproduce_compare BEFORE_OUT AFTER_OUT`` reads each ``OUT/<config>/store.sqlite``
(read only) and joins the units on (config, dataset, method label, split). It prints, per config and
method, the summed unit seconds of each side and their ratio, and for each score column how many
joined units differ and by how much at most. Stores older than schema 2 count the fits a unit
reused from another method in its train time; newer ones record them apart (``reused_seconds``),
so for the methods that share fits (the chain families) only the config's total is comparable.
"""

from __future__ import annotations

import argparse
import sqlite3
from collections import defaultdict
from pathlib import Path

from tabulate import tabulate

from mlhidden.experiment.cost_priors import own_seconds
from mlhidden.runs.metrics import SCORES

KEY = ("dataset", "label", "split")


def read_units(out: Path) -> dict[str, dict[tuple, dict]]:
    """Each config's successful units by (dataset, label, split)."""
    configs: dict[str, dict[tuple, dict]] = {}
    for store in sorted(out.glob("*/store.sqlite")):
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
            db.row_factory = sqlite3.Row
            rows = db.execute("SELECT * FROM units WHERE status = 'ok'").fetchall()
        configs[store.parent.name] = {tuple(row[k] for k in KEY): dict(row) for row in rows}
    return configs


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    before, after = read_units(args.before), read_units(args.after)
    table, differ = [], defaultdict(lambda: [0, 0.0, 0])
    for config in sorted(set(before) & set(after)):
        sums: defaultdict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
        for key in before[config].keys() & after[config].keys():
            old, new = before[config][key], after[config][key]
            entry = sums[old["method"]]
            entry[0] += own_seconds(old)
            entry[1] += own_seconds(new)
            entry[2] += 1
            for score in SCORES:
                gap = abs((old[score] or 0.0) - (new[score] or 0.0))
                differ[score][2] += 1
                if gap > 0:
                    differ[score][0] += 1
                    differ[score][1] = max(differ[score][1], gap)
        for method, (old_s, new_s, n) in sorted(sums.items()):
            table.append([config, method, n, round(old_s, 1), round(new_s, 1), f"{new_s / max(old_s, 1e-9):.2f}"])
        total_old, total_new = (sum(v[i] for v in sums.values()) for i in (0, 1))
        table.append([config, "(all)", sum(v[2] for v in sums.values()), round(total_old, 1), round(total_new, 1),
                      f"{total_new / max(total_old, 1e-9):.2f}"])
    print(tabulate(table, ["config", "method", "units", "before s", "after s", "after / before"], tablefmt="github"))
    print()
    rows = [[score, n, k, f"{gap:.2e}"] for score, (k, gap, n) in differ.items()]
    print(tabulate(rows, ["score", "units joined", "units differing", "largest difference"], tablefmt="github"))


if __name__ == "__main__":
    main()
