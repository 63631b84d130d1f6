"""What a run would do, without doing it (``mlhidden run --dry-run``): units to compute and stored, expected cost.

Built from :func:`~mlhidden.experiment.runner.plan_run`, which loads the datasets and draws the
splits but writes nothing, and from the run directory's store read as it is.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from mlhidden.experiment.cost_history import history_priors
from mlhidden.experiment.cost_priors import CostPriors, ensemble_scale, learner_of
from mlhidden.experiment.runner import RunPlan, dispatch_order
from mlhidden.io import PathLike
from mlhidden.runs.store import ResultStore, store_exists


@dataclass
class PlanPreview:
    """Per dataset x method (``rows``, in run order): units to compute, units stored, expected seconds."""

    run_dir: Path
    rows: list[dict[str, Any]] = field(default_factory=list)
    unavailable: dict[str, str] = field(default_factory=dict)

    @property
    def n_units(self) -> int:
        return sum(row["to compute"] + row["stored"] for row in self.rows)

    @property
    def n_to_compute(self) -> int:
        return sum(row["to compute"] for row in self.rows)

    @property
    def expected_seconds(self) -> float:
        """The expected compute time of the units to compute, all added up (parallel units divide it)."""
        return float(sum(row["expected s"] for row in self.rows))


def preview_plan(
    plan: RunPlan, run_dir: PathLike, *, fresh: bool = False, priors: CostPriors | None = None,
    reuse_from: Iterable[PathLike] = (),
) -> PlanPreview:
    """The units of ``plan`` that ``run_dir``'s store lacks (all of them with ``fresh``), each pair's expected
    cost as the runner prices it (:func:`~mlhidden.experiment.runner.dispatch_order`, with ``priors``
    refitted on the run's history with ``reuse_from``, :func:`~mlhidden.experiment.cost_priors.history_priors`)
    and what that rests on. A pair with nothing to compute shows the prior of one unit."""
    run_dir = Path(run_dir)
    priors = history_priors(run_dir, reuse_from, priors)
    done, stored_units = set(), pd.DataFrame()
    if not fresh and store_exists(run_dir):
        with ResultStore(run_dir, create=False) as store:
            done, stored_units = store.done_keys(), store.units()
    expected: defaultdict[tuple[str, str], float] = defaultdict(float)
    for unit, seconds in zip(*dispatch_order([u for u in plan.units if u.key not in done], stored_units, priors)):
        expected[unit.data.name, unit.method.label] += seconds
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for unit in plan.units:
        data, method = unit.data, unit.method
        cell = (data.name, method.label)
        row = rows.get(cell)
        if row is None:
            shape = (data.n_samples, data.n_features, data.n_labels)
            learner, scale = learner_of(method.resolved), ensemble_scale(method.resolved)
            prior = priors.expected_seconds(shape, method.name, learner, cell, method.params_hash, scale)
            row = rows[cell] = {
                "dataset": data.name, "method": method.label, "to compute": 0, "stored": 0,
                "s per unit": prior, "expected s": expected[cell],
                "estimate": priors.basis(shape, method.name, cell, method.params_hash, learner, scale),
            }
        row["stored" if unit.key in done else "to compute"] += 1
    for row in rows.values():
        if row["to compute"]:
            row["s per unit"] = row["expected s"] / row["to compute"]
    return PlanPreview(run_dir, list(rows.values()), dict(plan.unavailable))

