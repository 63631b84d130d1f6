"""The expected seconds of a unit before it runs, from the unit times measured on the paper run.

A (dataset, method) pair the paper run measured expects its mean over the splits. Any other is
scaled from its dataset's size: across datasets a unit's cost grows about as sqrt(N x D x L)
(sparse features and solvers that stop early make it sublinear; the progress ETA weighs units
the same way), so it expects the seconds per sqrt(N x D x L) of its method's measured units, or
of all measured units for a method the paper run does not have. The times are a 2-core machine's:
an estimate of the scale, not a promise.
"""

from __future__ import annotations

import csv
import functools
import statistics
from dataclasses import dataclass
from pathlib import Path

PRIORS_FILE = Path(__file__).with_name("unit_seconds.csv")
SIZE_EXPONENT = 0.5
MEASURED, SCALED, SCALED_ALL = "paper run", "scaled by size", "scaled by size (all methods)"


@dataclass(frozen=True)
class CostEstimate:
    """Expected seconds of one unit; ``source``: :data:`MEASURED`, :data:`SCALED` or :data:`SCALED_ALL`."""

    seconds: float
    source: str


def size_weight(size: float) -> float:
    """A unit's relative cost from its dataset's N x D x L."""
    return max(float(size), 1.0) ** SIZE_EXPONENT


@functools.cache
def _priors() -> tuple:
    """``({(dataset, method): seconds}, {method: [seconds per weight]})`` from :data:`PRIORS_FILE`."""
    with PRIORS_FILE.open(encoding="utf-8") as stream:
        rows = list(csv.DictReader(line for line in stream if not line.startswith("#")))
    measured = {(row["dataset"], row["method"]): float(row["seconds"]) for row in rows}
    rates: dict[str, list[float]] = {}
    for row in rows:
        size = int(row["n_samples"]) * int(row["n_features"]) * int(row["n_labels"])
        rates.setdefault(row["method"], []).append(float(row["seconds"]) / size_weight(size))
    return measured, rates


def expected_unit_seconds(dataset: str, method: str, size: float) -> CostEstimate:
    """The expected seconds of a unit of ``method`` (a name or import path) on ``dataset`` of N x D x L ``size``."""
    measured, rates = _priors()
    if (dataset, method) in measured:
        return CostEstimate(measured[dataset, method], MEASURED)
    if method in rates:
        return CostEstimate(statistics.median(rates[method]) * size_weight(size), SCALED)
    every = [rate for method_rates in rates.values() for rate in method_rates]
    return CostEstimate(statistics.median(every) * size_weight(size), SCALED_ALL)
