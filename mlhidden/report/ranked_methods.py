"""Which methods a table ranks: one rule for every table, test, plot and claim.

Every ranking goes through :func:`~mlhidden.report.tables.metric_table`, which leaves out of
the ranks the methods :func:`unranked_methods` names: the trivial baselines always (they ignore
x: a floor for the scores, no rival in time), and in merged runs whose method sets differ the
methods some dataset lacks (:func:`shared_methods`). Such a method's cells show their values,
without a rank, and a note under the table says why.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import pandas as pd

from mlhidden.methods.registry import is_trivial_baseline

TRIVIAL_UNRANKED = "a trivial baseline (it ignores x): shown as a floor, never ranked"


def unranked_methods(methods: Sequence[str], unranked: Mapping[str, str] | None = None) -> dict[str, str]:
    """Method -> why it is left out of the ranks: ``unranked`` (of ``methods``), and every trivial baseline.

    The trivial baselines are never ranked nor best, unless nothing else is there to rank.
    """
    left_out = {method: reason for method, reason in (unranked or {}).items() if method in methods}
    trivial = {method: TRIVIAL_UNRANKED for method in methods if is_trivial_baseline(method)}
    if len(trivial) < len(methods):
        left_out = {**trivial, **left_out}
    return left_out


def shared_methods(
    units: pd.DataFrame, datasets: Iterable[str], methods: Sequence[str], unavailable: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Method -> why to leave it out of the ranks of merged runs: it has no unit on some dataset others have.

    Runs merged from different method sets leave whole cells empty; ranking only the datasets
    every method has would drop the others from the ranks. Ranking instead over the methods with
    results on every dataset keeps each dataset ranked. Fewer than two such methods leave nothing
    to rank, so then every method stays (and the incomplete rows stay unranked, as in one run).
    """
    rows = [dataset for dataset in datasets if dataset not in (unavailable or {})]
    present = set(zip(units["dataset"], units["method"]))
    missing = {method: [d for d in rows if (d, method) not in present] for method in methods}
    shared = [method for method in methods if not missing[method]]
    if len(shared) < 2 or len(shared) == len(methods):
        return {}
    return {
        method: f"it has no results on {', '.join(gaps)} "
        f"(ranked over the methods every dataset has: {', '.join(shared)})"
        for method, gaps in missing.items()
        if gaps
    }
