"""What a run did (:class:`RunSummary`), filled by the runner and its executor as units are stored.

Apart from both so that :mod:`mlhidden.experiment.runner` (which plans and records a run) and
:mod:`mlhidden.experiment.parallel_units` (which computes its units) import it without importing
each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mlhidden.runs.unit_warnings import warning_lines
from mlhidden.runs.units import PlannedUnit, UnitResult

UnitCallback = Callable[[PlannedUnit, UnitResult, int, int], None]
"""``on_unit(unit, result, done, n_units)``: called after each unit is stored, with the unit as planned and what
computing it gave (``result.row(unit.key)`` is its row of the store's units table)."""


@dataclass
class RunSummary:
    """What a run did. ``not_run`` holds the keys of units not run, and ``not_run_reason`` why: their
    workers were lost on every attempt, or the cluster had none left.

    ``unit_warnings`` holds the recorded warnings of each unit run (see
    :mod:`mlhidden.runs.unit_warnings`), ``failures`` one ``(dataset, method label, split,
    first line of the error)`` per failed unit. ``n_discarded`` counts units computed here whose
    claim another process took over meanwhile (this one was stopped past its lease): theirs are kept.
    ``unit_phase_seconds``: from the first unit handed out to the last stored; ``worker_start_seconds``: until
    the workers took the first (both: see :func:`~mlhidden.experiment.parallel_units.run_units`). ``workers``: the
    units computed at once (:func:`~mlhidden.experiment.backends.worker_count`, as ``--dry-run`` shows it).
    """

    run_dir: Path
    n_units: int = 0
    n_skipped: int = 0
    n_done: int = 0
    n_failed: int = 0
    unavailable: dict[str, str] = field(default_factory=dict)
    interrupted: bool = False
    seconds: float = 0.0
    n_resubmitted: int = 0
    reused_seconds: float = 0.0
    unit_phase_seconds: float = 0.0
    worker_start_seconds: float = 0.0
    reused_units: dict[str, Any] = field(default_factory=dict)
    not_run: list[dict[str, Any]] = field(default_factory=list)
    not_run_reason: str = ""
    unit_warnings: list[str] = field(default_factory=list)
    failures: list[tuple[str, str, int, str]] = field(default_factory=list)
    n_discarded: int = 0
    workers: int = 0

    def unit_counts(self) -> dict[str, int]:
        return {
            "total": self.n_units,
            "done": self.n_done,
            "failed": self.n_failed,
            "skipped": self.n_skipped,
            "not_run": len(self.not_run),
        }

    def problem_lines(self) -> list[str]:
        """One line per warning kind of the units run, then one per failed unit with its reason."""
        failed = [
            f"{label} on {dataset} failed (split {split}): {reason}" for dataset, label, split, reason in self.failures
        ]
        discarded = [
            f"{self.n_discarded} unit(s) computed here were discarded: this process was stopped past its claim's lease"
            " and another run took them over (that run's results are kept)"
        ] if self.n_discarded else []
        return warning_lines(self.unit_warnings) + failed + discarded
