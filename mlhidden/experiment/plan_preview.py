"""What a run would do, without doing it (``mlhidden run --dry-run``): units to compute and stored, expected cost.

Built from :func:`~mlhidden.experiment.runner.plan_run`, which loads the datasets and draws the
splits but writes nothing, and from the run directory's store read as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mlhidden.experiment.costs import PRIOR_ALIASES, PRIORS, expected_seconds, measured_seconds
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


def preview_plan(plan: RunPlan, run_dir: PathLike, *, fresh: bool = False) -> PlanPreview:
    """The units of ``plan`` that ``run_dir``'s store lacks (all of them with ``fresh``), each pair's expected cost."""
    run_dir = Path(run_dir)
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
            seconds = expected_seconds(shape, method.name, (data.name, method.label))
            measured = measured_seconds(data.name, shape, method.label) is not None
            row = rows[data.name, method.label] = {
                "dataset": data.name, "method": method.label, "to compute": 0, "stored": 0,
                "s per unit": seconds, "expected s": 0.0,
                "estimate": estimate_basis(method.name, measured),
            }
        if unit.key in stored:
            row["stored"] += 1
        else:
            row["to compute"] += 1
            row["expected s"] += row["s per unit"]
    return PlanPreview(run_dir, list(rows.values()), dict(plan.unavailable))


def estimate_basis(method: str, measured: bool = False) -> str:
    """What a method's expected seconds rest on (:mod:`mlhidden.experiment.costs`): the cell's units in
    the paper run (``measured``), its own curve fitted on that run, another method's it repeats, or
    the median curve."""
    if measured:
        return "paper run's cell"
    if method in PRIORS:
        return "paper run"
    if method in PRIOR_ALIASES:
        return f"paper run ({PRIOR_ALIASES[method]})"
    return "median of the methods"
