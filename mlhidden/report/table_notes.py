"""The notes under a results table: what its marks mean and why a row is not ranked.

Every format (Markdown, LaTeX, the terminal) prints the same notes, so a cell's mark says the
same thing wherever the table is read.
"""

from __future__ import annotations

from mlhidden.report.digits import rank_collisions
from mlhidden.report.tables import MetricTable
from mlhidden.runs.status import FAILED, MISSING, PARTIAL

PARTIAL_MARK = "†"
WARNED_MARK = "‡"
NO_VALUE = "-"
UNRECORDED_WARNINGS = "raised warnings (their kinds predate this store's record of them)"
OWN_WORK_NOTE = (
    "times are each method's own work: fits reused from another method are not counted (units.csv: reused_seconds)"
)


def table_notes(table: MetricTable, *, unavailable: bool = True) -> list[str]:
    """The footnotes a table needs: partly failed cells, failed cells, unranked methods and rows, what its times count.

    ``unavailable=False`` leaves out the unavailable datasets, for formats whose row says why.
    """
    notes = []
    states = {(d, m): table.cell_state(d, m) for d in table.datasets for m in table.methods}
    for (dataset, method), state in states.items():
        if state == PARTIAL:
            n_failed, n_splits = table.n_failed.at[dataset, method], table.n_splits.at[dataset, method]
            notes.append(
                f"{PARTIAL_MARK} {method} on {dataset}: {n_failed} of {n_splits} splits failed;"
                f" the mean is over the other {n_splits - n_failed}"
            )
    notes += _warning_notes(table)
    if FAILED in states.values():
        notes.append("failed: every split failed; ranked last (ties share the average rank)")
    ranked_methods = [m for m in table.methods if m not in table.unranked]
    incomplete = [d for d in table.datasets if any(states[d, m] == MISSING for m in ranked_methods)]
    notes.extend(f"{method} left out of the ranks: {reason}" for method, reason in table.unranked.items())
    if incomplete:
        notes.append(f"not ranked, as some cells have no result yet ({NO_VALUE}): {', '.join(incomplete)}")
    if unavailable:
        notes.extend(f"{dataset}: {reason}; not ranked" for dataset, reason in table.unavailable.items())
    if table.own_work_only:
        notes.append(OWN_WORK_NOTE)
    return notes + _collision_notes(table)


def _collision_notes(table: MetricTable) -> list[str]:
    """One footnote per two cells that print the same but rank differently (their full values are in the CSVs)."""
    return [
        f"{first} and {second} on {dataset} read the same but rank differently (the CSV files hold the full values)"
        for dataset, first, second in rank_collisions(table.means, table.ranks, table.metric.format)
    ]


def _warning_notes(table: MetricTable) -> list[str]:
    """One footnote per kind of warning, naming the cells whose units raised it and on how many splits."""
    cells_of: dict[str, list[str]] = {}
    for dataset in table.datasets:
        for method in table.methods:
            n_warned = table.n_warned.at[dataset, method]
            if n_warned:
                cell = f"{method} on {dataset} ({n_warned} of {table.n_splits.at[dataset, method]} splits)"
                for kind in table.warning_kinds.get((dataset, method)) or (UNRECORDED_WARNINGS,):
                    cells_of.setdefault(kind, []).append(cell)
    return [f"{WARNED_MARK} {', '.join(cells)}: units {kind}" for kind, cells in cells_of.items()]
