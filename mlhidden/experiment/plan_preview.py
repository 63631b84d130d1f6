"""What a run would do, without doing it (``mlhidden run --dry-run``): units to compute and stored, expected cost.

Built from :func:`~mlhidden.experiment.runner.plan_run`, which loads the datasets and draws the
splits but writes nothing, and from the run directory's store read as it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mlhidden.experiment.cost_priors import CostPriors, ensemble_scale, history_priors, learner_of
from mlhidden.experiment.runner import RunPlan
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
    cost as the runner prices it (``priors`` refitted on the run's history with ``reuse_from``,
    :func:`~mlhidden.experiment.cost_priors.history_priors`) and what that rests on."""
    run_dir = Path(run_dir)
    priors = history_priors(run_dir, reuse_from, priors)
    stored = set()
    if not fresh and store_exists(run_dir):
        with ResultStore(run_dir, create=False) as store:
            stored = store.done_keys()
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for unit in plan.units:
        data, method = unit.data, unit.method
        row = rows.get((data.name, method.label))
        if row is None:
            shape = (data.n_samples, data.n_features, data.n_labels)
            cell = (data.name, method.label)
            resolved = method.resolved
            seconds = priors.expected_seconds(
                shape, method.name, learner_of(resolved), cell, method.params_hash, ensemble_scale(resolved)
            )
            row = rows[cell] = {
                "dataset": data.name, "method": method.label, "to compute": 0, "stored": 0,
                "s per unit": seconds, "expected s": 0.0,
                "estimate": priors.basis(shape, method.name, cell, method.params_hash),
            }
        if unit.key in stored:
            row["stored"] += 1
        else:
            row["to compute"] += 1
            row["expected s"] += row["s per unit"]
    return PlanPreview(run_dir, list(rows.values()), dict(plan.unavailable))

