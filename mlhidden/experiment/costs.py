"""The expected compute seconds of a unit before it runs: for dispatch order, plan previews and ETAs.

A unit's cost is fitted, per method, as ``exp(a) * (N x D x L) ** b`` over the units of a stored
paper run (``results/paper/units.csv``: ten real datasets from 120 to 2e9 N x D x L, 2 cores, one
BLAS thread per unit; :func:`fit_priors` recomputes the table). Left out one dataset at a time,
the fit is within a factor of about 2 of the dataset's mean unit time for every method: enough to
order units and to weigh the remaining ones, not to promise seconds on another machine, which is
why :class:`CostModel` rescales the priors by the units that have finished.

A method without a prior (a plug-in, an import path) gets the median of the fitted curves.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable

# method: (a, b) with expected seconds exp(a) * (N * D * L) ** b; from benchmarks/dispatch.py fit_priors()
PRIORS: dict[str, tuple[float, float]] = {
    "AllZero": (-7.66, 0.125),
    "BR": (-7.45, 0.369),
    "BR_RF": (-3.58, 0.307),
    "CC": (-7.72, 0.389),
    "CCASL": (-7.88, 0.462),
    "CCASL+AML": (-7.08, 0.448),
    "CCASL+BR": (-7.04, 0.439),
    "ELM": (-7.81, 0.383),
    "MLP": (-3.37, 0.311),
    "Majority": (-8.03, 0.146),
    "MostFrequentSet": (-9.14, 0.304),
    "PCC": (-7.92, 0.421),
}
# Registered methods the paper run lacks, priced as the method whose work they repeat.
PRIOR_ALIASES = {"PCCASL": "CCASL", "CC_RF": "BR_RF", "MBR": "BR", "BR_phi": "ELM", "LP": "BR"}
GENERIC_PRIOR = (statistics.median(a for a, _ in PRIORS.values()), statistics.median(b for _, b in PRIORS.values()))


def expected_seconds(shape: tuple[int, int, int], method: str) -> float:
    """The expected compute seconds of one unit of ``method`` (a registered name) on a dataset of
    ``shape`` = (N samples, D features, L labels), on one core of the machine the priors come from."""
    n_samples, n_features, n_labels = shape
    a, b = PRIORS.get(PRIOR_ALIASES.get(method, method), GENERIC_PRIOR)
    return math.exp(a) * max(float(n_samples) * n_features * n_labels, 1.0) ** b


def fit_priors(units, shapes: dict) -> dict[str, tuple[float, float]]:
    """The :data:`PRIORS` table from stored units (rows with ``dataset``, ``method``, ``total_seconds``)
    and each dataset's (N, D, L): a least-squares line of log mean seconds against log N x D x L."""
    import numpy as np

    seconds: defaultdict[tuple[str, str], list] = defaultdict(list)
    for row in units:
        if row["dataset"] in shapes:
            seconds[row["method"], row["dataset"]].append(float(row["total_seconds"]))
    by_method: defaultdict[str, list] = defaultdict(list)
    for (method, dataset), values in seconds.items():
        size = math.prod(shapes[dataset])
        by_method[method].append((math.log(max(size, 1)), math.log(max(statistics.fmean(values), 1e-6))))
    priors = {}
    for method, points in sorted(by_method.items()):
        x, y = np.array(points).T
        b, a = np.polyfit(x, y, 1) if len(points) > 1 else (0.0, y[0])
        priors[method] = (round(float(a), 2), round(float(b), 3))
    return priors


Cell = tuple[str, str]
"""A (dataset, method label) pair: the units whose costs are alike."""


class CostModel:
    """The expected seconds of units, learned from the finished ones.

    A unit's expected cost is the mean of the finished units of its cell; before one has
    finished, its prior times the ratio of actual to prior seconds of its method's finished
    units, or of all finished units when its method has none yet (the machine, its load and the
    dataset's sparsity move every method alike).

    Parameters
    ----------
    priors : iterable of (cell, prior seconds)
        Every cell the model will be asked about, with its prior (:func:`expected_seconds`).
    """

    def __init__(self, priors: Iterable[tuple[Cell, float]]):
        self.prior: dict[Cell, float] = {cell: max(float(seconds), 1e-6) for cell, seconds in priors}
        self.seconds: defaultdict[Cell, float] = defaultdict(float)
        self.count: Counter[Cell] = Counter()

    def finished(self, cell: Cell, seconds: float) -> None:
        """A unit of ``cell`` took ``seconds`` of compute."""
        self.seconds[cell] += seconds
        self.count[cell] += 1

    def ratio(self, method: str | None = None) -> float:
        """Actual over prior seconds of the finished units (of ``method``'s, when it has some); 1 before any."""
        cells = [cell for cell in self.count if cell in self.prior]
        mine = [cell for cell in cells if cell[1] == method]
        cells = mine or cells
        expected = sum(self.count[cell] * self.prior[cell] for cell in cells)
        return sum(self.seconds[cell] for cell in cells) / expected if expected else 1.0

    def expected(self, cell: Cell) -> float:
        """The expected seconds of one more unit of ``cell``."""
        if self.count[cell]:
            return self.seconds[cell] / self.count[cell]
        return self.prior.get(cell, 0.0) * self.ratio(cell[1])
