"""The expected compute seconds of a unit before it runs: for dispatch order, plan previews and ETAs.

A unit's cost is fitted, per method, as ``exp(a) * (N x D x L) ** b`` over the units of a stored
paper run (``results/paper/units.csv``: nine real datasets from 2.5e5 to 2e9 N x D x L, 2 cores, one
BLAS thread per unit; Logical, whose 120 cells time only overheads, is left out;
:func:`fit_priors` recomputes the table). Left out one dataset at a time,
the fit is within a factor of about 2 of the dataset's mean unit time for every method: enough to
order units and to weigh the remaining ones, not to promise seconds on another machine, which is
why :class:`CostModel` rescales the priors by the units that have finished.

A method without a prior (a plug-in, an import path) gets the median of the fitted curves.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

# method: (a, b) with expected seconds exp(a) * (N * D * L) ** b, by fit_priors() on results/paper/units.csv
# without Logical
PRIORS: dict[str, tuple[float, float]] = {
    "AllZero": (-9.61, 0.231),
    "BR": (-10.91, 0.557),
    "BR_RF": (-6.15, 0.446),
    "CC": (-11.05, 0.569),
    "CCASL": (-12.47, 0.711),
    "CCASL+AML": (-11.42, 0.684),
    "CCASL+BR": (-11.37, 0.675),
    "ELM": (-12.86, 0.657),
    "MLP": (-4.31, 0.362),
    "Majority": (-10.27, 0.267),
    "MostFrequentSet": (-12.18, 0.469),
    "PCC": (-11.25, 0.602),
}
# Registered methods the paper run lacks, priced as the method whose work they repeat.
T = TypeVar("T")
PRIOR_ALIASES = {"PCCASL": "CCASL", "CC_RF": "BR_RF", "MBR": "BR", "BR_phi": "ELM", "LP": "BR"}
GENERIC_PRIOR = (statistics.median(a for a, _ in PRIORS.values()), statistics.median(b for _, b in PRIORS.values()))


def expected_seconds(shape: tuple[int, int, int], method: str) -> float:
    """The expected compute seconds of one unit of ``method`` (a registered name) on a dataset of
    ``shape`` = (N samples, D features, L labels), on one core of the machine the priors come from."""
    n_samples, n_features, n_labels = shape
    a, b = PRIORS.get(PRIOR_ALIASES.get(method, method), GENERIC_PRIOR)
    return float(math.exp(a) * max(float(n_samples) * n_features * n_labels, 1.0) ** b)


def fit_priors(
    units: Iterable[Mapping[str, Any]], shapes: Mapping[str, tuple[int, int, int]]
) -> dict[str, tuple[float, float]]:
    """The :data:`PRIORS` table from stored units (rows with ``dataset``, ``method``, ``total_seconds``)
    and each dataset's (N, D, L): a least-squares line of log mean seconds against log N x D x L."""
    import numpy as np

    seconds: defaultdict[tuple[str, str], list[float]] = defaultdict(list)
    for row in units:
        if row["dataset"] in shapes:
            seconds[row["method"], row["dataset"]].append(float(row["total_seconds"]))
    by_method: defaultdict[str, list[tuple[float, float]]] = defaultdict(list)
    for (method, dataset), values in seconds.items():
        size = math.prod(shapes[dataset])
        by_method[method].append((math.log(max(size, 1)), math.log(max(statistics.fmean(values), 1e-6))))
    priors = {}
    for method, points in sorted(by_method.items()):
        x, y = np.array(points).T
        b, a = np.polyfit(x, y, 1) if len(points) > 1 else (0.0, y[0])
        priors[method] = (round(float(a), 2), round(float(b), 3))
    return priors


SHRINKAGE = 1.0
"""The weight, in finished units, of the prior belief that a dataset or method effect is 0."""

Cell = tuple[str, str]
"""A (dataset, method label) pair: the units whose costs are alike."""


class CostModel:
    """The expected seconds of units, learned from the finished ones.

    A unit's expected cost is the mean of the finished units of its cell; before one has
    finished, its prior times the ratio of actual to prior seconds of its method's finished
    units (of all finished units when its method has none yet: the machine and its load move
    every method alike), weighing most those nearest in expected size (:meth:`ratio`).

    Parameters
    ----------
    priors : iterable of (cell, prior seconds)
        Every cell the model will be asked about, with its prior (:func:`expected_seconds`).
    """

    def __init__(self, priors: Iterable[tuple[Cell, float]]):
        self.prior: dict[Cell, float] = {cell: max(float(seconds), 1e-6) for cell, seconds in priors}
        self.seconds: defaultdict[Cell, float] = defaultdict(float)
        self.count: Counter[Cell] = Counter()
        self._effects: dict[tuple[str, str], float] | None = None

    def finished(self, cell: Cell, seconds: float) -> None:
        """A unit of ``cell`` took ``seconds`` of compute."""
        self.seconds[cell] += max(seconds, 1e-6)
        self.count[cell] += 1
        self._effects = None

    def ratio(self, cell: Cell) -> float:
        """Actual over prior seconds expected for ``cell``: exp(dataset effect + method effect), fitted
        to the log ratios of the finished cells with both effects shrunk towards 0 (ratio 1).

        The priors miss in two ways that finished units reveal: a method slower or faster than
        its curve on this machine, and a dataset (sparse, easy) cheaper or dearer than its size.
        """
        if self._effects is None:
            self._effects = self._fit_effects()
        return math.exp(self._effects.get(("d", cell[0]), 0.0) + self._effects.get(("m", cell[1]), 0.0))

    def _fit_effects(self) -> dict[tuple[str, str], float]:
        import numpy as np

        cells = [cell for cell in self.count if cell in self.prior]
        if not cells:
            return {}
        names = sorted({("d", d) for d, _ in cells} | {("m", m) for _, m in cells})
        index = {name: i for i, name in enumerate(names)}
        design = np.zeros((len(cells), len(names)))
        for row, (dataset, method) in enumerate(cells):
            design[row, index["d", dataset]] = design[row, index["m", method]] = 1.0
        target = np.array([math.log(self.seconds[cell] / self.count[cell] / self.prior[cell]) for cell in cells])
        weight = np.array([self.count[cell] for cell in cells], dtype=float)[:, None]  # each finished unit counts
        effects = np.linalg.solve(design.T @ (weight * design) + SHRINKAGE * np.eye(len(names)), design.T @ (weight[:, 0] * target))
        return dict(zip(names, effects.tolist()))

    def expected(self, cell: Cell) -> float:
        """The expected seconds of one more unit of ``cell``."""
        if self.count[cell]:
            return self.seconds[cell] / self.count[cell]
        return self.prior.get(cell, 0.0) * self.ratio(cell)


def expected_unit_seconds(
    units: Iterable[tuple[str, tuple[int, int, int], str, str]], stored: Iterable[Mapping[str, Any]] | None = None
) -> list[float]:
    """The expected seconds of each of ``units``, given as (dataset, (N, D, L), method name, params hash).

    ``stored`` (rows with those keys, ``status`` and ``train_seconds`` + ``test_seconds``, e.g. a
    store's units) gives a unit the mean cost of the stored successful units of its dataset and
    method; the others get their prior (:func:`expected_seconds`).
    """
    measured: defaultdict[tuple[str, str, str], list[float]] = defaultdict(list)
    for row in [] if stored is None else stored:
        if row["status"] == "ok":
            measured[row["dataset"], row["method"], row["params_hash"]].append(row["train_seconds"] + row["test_seconds"])
    return [
        statistics.fmean(measured[dataset, method, params]) if measured[dataset, method, params] else expected_seconds(shape, method)
        for dataset, shape, method, params in units
    ]


def longest_first(units: Sequence[T], seconds: Sequence[float]) -> list[T]:
    """``units`` by decreasing expected ``seconds``, ties in their given order.

    Handing the longest out first keeps one long unit from starting last and running alone
    while the other workers idle.
    """
    return [units[i] for i in sorted(range(len(units)), key=lambda i: -seconds[i])]
