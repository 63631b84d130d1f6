"""A run's history as cost priors: the units the runs beside it, and those it reuses, have stored and timed.

The priors (:mod:`mlhidden.experiment.cost_priors`) are refitted on them (:meth:`CostPriors.refitted`). A run
folder is read from its store, or where it has none from its compact copy
(:mod:`mlhidden.runs.compact_results`), so a clone's committed runs time the next run as the machine's stores do.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from contextlib import closing
from pathlib import Path
from typing import Any

from mlhidden.errors import UserError
from mlhidden.experiment.cost_priors import GENERIC_PRIORS, CostPriors, Shape
from mlhidden.io import PathLike
from mlhidden.runs.compact_results import has_compact_copy, read_compact_tables


def read_stored_run(run_dir: PathLike) -> tuple[list[dict[str, Any]], dict[str, Shape]]:
    """The successful units of the store in ``run_dir`` and its datasets' shapes, read only; without a store,
    those of its compact copy (:mod:`mlhidden.runs.compact_results`: a clone's committed runs time their units
    too); none where neither is there or can be read (priors are a guess, never a reason to stop)."""
    path = Path(run_dir) / "store.sqlite"
    if not path.is_file():
        return _read_compact_copy(Path(run_dir))
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            db.row_factory = sqlite3.Row
            shapes = {
                r["name"]: (int(r["n_samples"]), int(r["n_features"]), int(r["n_labels"]))
                for r in db.execute("SELECT * FROM datasets WHERE n_samples IS NOT NULL AND n_features IS NOT NULL")
            }
            units = [
                {**dict(r), "registry_name": r["method"], "method": r["label"]}
                for r in db.execute("SELECT * FROM units WHERE status = 'ok'")
            ]
    except (sqlite3.Error, KeyError, TypeError, ValueError):
        return [], {}
    return units, shapes


def _read_compact_copy(run_dir: Path) -> tuple[list[dict[str, Any]], dict[str, Shape]]:
    """:func:`read_stored_run`'s units and shapes from the compact copy in ``run_dir``."""
    if not has_compact_copy(run_dir):
        return [], {}
    try:
        tables = read_compact_tables(run_dir)
    except UserError:
        return [], {}
    datasets = tables.datasets.dropna(subset=["n_samples", "n_features", "n_labels"])
    shapes = {
        str(name): (int(n), int(d), int(labels))
        for name, n, d, labels in zip(
            datasets["name"], datasets["n_samples"], datasets["n_features"], datasets["n_labels"]
        )
    }
    units = tables.units[tables.units["status"] == "ok"]
    return [{**row, "method": row["label"]} for row in units.to_dict("records")], shapes


def history_priors(
    run_dir: PathLike, reuse_from: Iterable[PathLike] = (), base: CostPriors | None = None,
    read: Callable[[Path], tuple[list[dict[str, Any]], dict[str, Shape]]] = read_stored_run,
) -> CostPriors:
    """``base`` (default :data:`GENERIC_PRIORS`) refitted on the runs this machine stored in ``run_dir``,
    in the run folders beside it and in ``reuse_from`` (:meth:`CostPriors.refitted`), each read by ``read``
    (:func:`read_stored_run`; a caller pricing many runs over the same folders passes it cached)."""
    run_dir = Path(run_dir)
    folders = [run_dir, *(Path(folder) for folder in reuse_from)]
    if run_dir.parent.is_dir():
        folders += sorted(p for p in run_dir.parent.iterdir() if p.is_dir())
    return (base or GENERIC_PRIORS).refitted(read(folder) for folder in dict.fromkeys(folders))
