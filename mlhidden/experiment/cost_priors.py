"""What a unit is expected to cost before any unit of its run has finished: for dispatch order, plan previews and ETAs.

A unit's expected seconds are ``exp(a + s) * size ** b * m``, at least a floor: a curve of its dataset's
:func:`size` per method family (the registered method a label names; the points of a sweep share
it), a factor ``exp(s)`` for the base learner the method fits, named with its solver
(:func:`learner_of`), and ``m``, the size of its base learner's ensemble against the one the curves
assume (:func:`ensemble_scale`: a forest of 100 trees does ten times the work of one of 10). A forest
base's factor is measured by CC_RF, CC on a forest base (:data:`BASE_VARIANTS`).
:func:`fit_cost_priors` fits the curves and factors by least squares on stored units: each cell's
(dataset and method label) log mean seconds, per reference ensemble, against log size. The priors shipped here
(:data:`GENERIC_PRIORS`) are that fit on this project's own stored runs of its methods
(refitted, and measured against those runs, by ``make bench``); they name
methods and learners, never datasets, and are meant to order units and weigh the remaining ones,
not to promise seconds on another machine, which is why the ETA rescales them by the units that finish.

A run's history refines them (:func:`~mlhidden.experiment.cost_history.history_priors`): the stored
runs beside it and those it reuses rescale each family's curve to this machine and price the cells they
measured by their mean (:meth:`CostPriors.refitted`). A study that ships a table of its measured cells hands it to
the runner the same way (:meth:`CostPriors.with_cells`, :func:`read_cell_table`).
"""

from __future__ import annotations

import csv
import json
import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    from mlhidden.methods.resolved_method import ResolvedMethod

Shape = tuple[int, int, int]
"""A dataset's (N samples, D features, L labels)."""
Curve = tuple[float, float]
"""(a, b) of ``exp(a) * size ** b`` seconds."""
CellKey = tuple[str, Shape, str]
"""(dataset, its shape, method label): the units whose costs are alike."""

# family: (a, b), and learner: s, by fit_cost_priors() on this project's stored runs (benchmarks.cost_priors)
FAMILY_CURVES: dict[str, Curve] = {
    "AllZero": (-11.09, 0.267), "BR": (-11.02, 0.517), "BR_RF": (-8.26, 0.423), "CC": (-10.14, 0.478),
    "CCASL": (-13.11, 0.69), "CCASL+AML": (-10.58, 0.585), "CCASL+BR": (-12.41, 0.673), "CC_RF": (-15.1, 0.944),
    "ELM": (-14.9, 0.713), "MLP": (-5.54, 0.386), "Majority": (-11.56, 0.297), "MostFrequentSet": (-15.18, 0.602),
    "PCC": (-11.47, 0.565), "PCCASL": (-13.82, 0.765), "sklearn.multioutput.ClassifierChain": (-6.57, 0.518),
    "sklearn.neighbors.KNeighborsClassifier": (-10.56, 0.64),
}
LEARNER_FACTORS: dict[str, float] = {"logistic": 0.07, "logistic_cv": 2.18, "random_forest": 1.96}
OWN_LEARNERS = {"BR_RF": "random_forest", "CC_RF": "random_forest"}
"""Families whose curve was fitted on a learner with a factor: their curve prices it already."""
BASE_VARIANTS = {"CC_RF": ("CC", "random_forest")}
"""Registered methods that are another family on another base learner -> (that family, that learner): their
units measure the learner's factor on the family's curve (:func:`fit_cost_priors`), which then prices it on
every family fitted on the reference learner (BR, PCC or CCASL on a forest base fit one forest per label, as
CC_RF does). The committed runs time a forest base on no other family; BR_RF is one multi-output forest for
all labels, several times cheaper than one per label, and prices itself only."""
REFERENCE_LEARNER = "logistic:liblinear"
"""The learner whose factor is 1: the others are priced relative to it."""
PRIOR_ALIASES = {"MBR": "BR", "CC_RF": "BR_RF", "PCCASL": "CCASL", "BR_phi": "ELM", "LP": "BR"}
"""Registered methods priced, when no stored run has timed them, as the method whose work they repeat."""
SHARED_FITS = {"PCC": "CC", "MBR": "BR", "CCASL+BR": "CCASL", "CCASL+AML": "CCASL", "PCCASL": "CCASL"}
"""A registered method -> the registered method whose whole fit it makes too (:mod:`mlhidden.methods.shared_fits`):
on a split, the first of them to run computes that fit and the others of the same base learner reuse it."""

MIN_UNIT_SECONDS = 0.005
"""What a unit's fit and predict cost however small its dataset (checks, estimator set-up)."""
MIN_FIT_SIZE = 1e5
"""Cells of a smaller :func:`size` time only a unit's set-up (:data:`MIN_UNIT_SECONDS`), not its
dataset, and are left out of the curves."""
FEATURES_PER_SAMPLE = 100
"""What a sample costs beyond its features, in features (predicting, scoring and copying each
sample's labels): without it, a dataset of many samples and few features looks cheaper than it is."""
REFERENCE_ENSEMBLE = 10
"""The members (``n_estimators``) of the ensembles the curves price: the paper era's forests."""
LEARNER_PENALTY = 1e-3
"""The ridge weight on the learner factors: a learner seen with one family only leaves its
whole cost to that family's curve, where the data cannot tell the two apart."""


def size(shape: Shape) -> float:
    """N x (D + :data:`FEATURES_PER_SAMPLE`) x L of ``shape`` = (N samples, D features, L labels)."""
    n_samples, n_features, n_labels = shape
    return max(float(n_samples) * (n_features + FEATURES_PER_SAMPLE) * n_labels, 1.0)


Identity = Union["ResolvedMethod", Mapping[str, Any], str]
"""A method's resolved identity: a :class:`~mlhidden.runs.specs.MethodSpec`'s ``resolved``, or its plain form
(a stored unit's ``params_json``, read or not)."""


def plain_identity(resolved: Identity) -> Mapping[str, Any]:
    """``resolved`` in its plain form (:meth:`~mlhidden.methods.resolved_method.ResolvedMethod.as_dict`)."""
    if isinstance(resolved, str):
        return json.loads(resolved) if resolved else {}
    return resolved if isinstance(resolved, Mapping) else resolved.as_dict()


def learner_of(resolved: Identity) -> str:
    """The base learner a method fits, as ``name`` or ``name:solver`` ("" for none), from its resolved
    identity."""
    base = plain_identity(resolved).get("base")
    if not isinstance(base, Mapping):
        return ""
    solver = (base.get("params") or {}).get("solver")
    return f"{base.get('name', '')}:{solver}" if solver else str(base.get("name", ""))


def ensemble_scale(resolved: Identity) -> float:
    """How many times the work of :data:`REFERENCE_ENSEMBLE` members a method's base learner does (1 for a
    learner that is no ensemble), from the same resolved identity as :func:`learner_of`: an ensemble's fit
    and predict grow with its members, which no learner factor can price when a config changes their number."""
    base = plain_identity(resolved).get("base")
    members = (base.get("params") or {}).get("n_estimators") if isinstance(base, Mapping) else None
    return members / REFERENCE_ENSEMBLE if isinstance(members, int) and members > 0 else 1.0


def own_seconds(row: Mapping[str, Any]) -> float:
    """The compute seconds a stored or just finished unit (a row with ``train_seconds`` and ``test_seconds``)
    took: its own work. The fits it reused from other methods are recorded apart (``reused_seconds``) and
    are not in its train time, so they are neither added nor taken off."""
    return float(row.get("train_seconds") or 0.0) + float(row.get("test_seconds") or 0.0)


def work_seconds(row: Mapping[str, Any]) -> float:
    """What a stored unit's work cost, whichever method paid for the fits it shares: its own seconds
    and those of the fits it reused. A family's curve prices its work; which method of a run pays for
    a shared fit depends on the order they ran in, which the ETA learns as the run goes."""
    reused = float(row.get("reused_seconds") or 0.0)  # NULL in stores older than schema 2
    return own_seconds(row) + (0.0 if math.isnan(reused) else reused)


UnitCost = tuple[str, str, str]
"""(dataset, registered method, params hash): the units of a stored run whose cost is one."""


@dataclass(frozen=True)
class StoredCell:
    """The successful units of one dataset and method label of a stored run: what they fit, their mean work."""

    shape: Shape
    family: str
    learner: str
    seconds: float
    scale: float = 1.0
    """:func:`ensemble_scale` of what they fit."""


def stored_cells(units: Iterable[Mapping[str, Any]], shapes: Mapping[str, Shape]) -> list[StoredCell]:
    """The cells of one stored run's ``units`` (rows of a store's units table: ``dataset``, ``registry_name``,
    ``label``, ``params_json``, ``status``, ``train_seconds``, ``test_seconds``,
    ``reused_seconds``) whose dataset has a shape in ``shapes``; their seconds: :func:`work_seconds`."""
    seconds: defaultdict[tuple[str, str], list[float]] = defaultdict(list)
    kind: dict[tuple[str, str], tuple[str, str, float]] = {}
    for row in units:
        if row.get("status", "ok") == "ok" and row["dataset"] in shapes:
            key = (row["dataset"], row["label"])
            seconds[key].append(work_seconds(row))
            resolved = row.get("params_json") or ""
            kind.setdefault(key, (row["registry_name"], learner_of(resolved), ensemble_scale(resolved)))
    return [
        StoredCell(shapes[dataset], family, learner, statistics.fmean(values), scale)
        for (dataset, label), values in seconds.items()
        for family, learner, scale in [kind[dataset, label]]
    ]


@dataclass(frozen=True)
class CostPriors:
    """The expected seconds of a unit before it runs: the mean of the stored units of its dataset,
    method and parameters if known (``timed``), else its cell's in a study's table (``cells``), else
    its family's curve times its learner's factor (families without a curve: the median curve).

    ``source`` says in a plan preview what the curves rest on.
    """

    curves: Mapping[str, Curve]
    learners: Mapping[str, float] = field(default_factory=dict)
    cells: Mapping[CellKey, float] = field(default_factory=dict)
    timed: Mapping[UnitCost, float] = field(default_factory=dict)
    source: str = "generic priors"
    own_learners: Mapping[str, str] = field(default_factory=dict)
    """Family -> the learner its curve was fitted on, where that learner has a factor (:data:`OWN_LEARNERS`)."""

    def curve(self, method: str) -> Curve:
        """``method``'s curve: its own, the one of the method it repeats, or the median of all."""
        family = self.family(method)
        return self.curves[family] if family is not None else self.median_curve()

    def family(self, method: str) -> str | None:
        return next((f for f in (method, PRIOR_ALIASES.get(method, method)) if f in self.curves), None)

    def median_curve(self) -> Curve:
        if not self.curves:
            return (0.0, 0.0)
        return statistics.median(a for a, _ in self.curves.values()), statistics.median(
            b for _, b in self.curves.values()
        )

    def learner_cost(self, method: str, learner: str = "", scale: float = 1.0) -> float:
        """How many times the work of one fit of :data:`REFERENCE_LEARNER` (or of the learner its family's curve
        was fitted on, :data:`OWN_LEARNERS`) with :data:`REFERENCE_ENSEMBLE` members a unit of ``method`` fitting
        ``learner``, an ensemble of ``scale`` times the reference's members, does."""
        own = self.own_learners.get(self.family(method) or "") == learner
        return math.exp(0.0 if own else self.learners.get(learner, 0.0)) * scale

    def curve_seconds(self, shape: Shape, method: str, learner: str = "", scale: float = 1.0) -> float:
        """The curve's expected compute seconds of one unit of ``method`` (a registered name) fitting
        ``learner`` on a dataset of ``shape``, an ensemble of ``scale`` times the reference's members."""
        a, b = self.curve(method)
        seconds = math.exp(a) * size(shape) ** b * self.learner_cost(method, learner, scale)
        return max(MIN_UNIT_SECONDS, float(seconds))

    def expected_seconds(
        self, shape: Shape, method: str, learner: str = "", cell: tuple[str, str] | None = None,
        params_hash: str | None = None, scale: float = 1.0,
    ) -> float:
        """The expected compute seconds of one unit (see the class); ``cell`` = (dataset name, method
        label) and ``params_hash`` look it up among the timed units and the measured cells first;
        ``scale``: :func:`ensemble_scale`."""
        measured = None if cell is None else self.measured_seconds(shape, method, cell, params_hash, learner, scale)
        return self.curve_seconds(shape, method, learner, scale) if measured is None else measured

    def measured_seconds(
        self, shape: Shape, method: str, cell: tuple[str, str], params_hash: str | None = None,
        learner: str = "", scale: float = 1.0,
    ) -> float | None:
        """A unit's seconds as stored units timed them, else as a study's table measured its cell, times
        :meth:`learner_cost` of its ``learner`` and ``scale``; None if neither did (see :meth:`expected_seconds`).

        A study's cells were measured on the reference learner and ensemble (the paper era's liblinear and
        forests of :data:`REFERENCE_ENSEMBLE` trees): a setting that fits another learner, or a forest of 100
        trees, does the cell's work that many times over."""
        timed = self.timed.get((cell[0], method, params_hash)) if params_hash is not None else None
        if timed is not None:
            return max(timed, MIN_UNIT_SECONDS)
        measured = self.cells.get((cell[0], shape, cell[1]))
        return None if measured is None else max(measured * self.learner_cost(method, learner, scale), MIN_UNIT_SECONDS)

    def basis(
        self, shape: Shape, method: str, cell: tuple[str, str], params_hash: str | None = None,
        learner: str = "", scale: float = 1.0,
    ) -> str:
        """What :meth:`expected_seconds` of this unit rests on, in a few words."""
        if (cell[0], method, params_hash) in self.timed:
            return "stored units"
        if (cell[0], shape, cell[1]) in self.cells:
            cost = self.learner_cost(method, learner, scale)
            return f"{self.source}: its cell" + ("" if cost == 1.0 else f" x {cost:.3g} for its base learner")
        family = self.family(method)
        return f"{self.source}: {family} curve" if family else f"{self.source}: median curve"

    def with_cells(self, cells: Mapping[CellKey, float], source: str) -> CostPriors:
        """These priors with ``cells`` measured (they take precedence over the ones already known)."""
        return replace(self, cells={**self.cells, **cells}, source=source)

    def refitted(self, runs: Iterable[tuple[Iterable[Mapping[str, Any]], Mapping[str, Shape]]]) -> CostPriors:
        """These priors rescaled to stored runs, each its units (as :func:`stored_cells` takes them) and its
        datasets' shapes: each family's curve by the mean log ratio of its cells' seconds to the curve's,
        the families they lack by the median of those ratios (the machine's pace); and the stored units
        timed by dataset, method and parameters: the mean of each run's, the lowest of those over the runs
        that timed them. A unit's seconds are wall time, which a machine busy with other work only adds to:
        the same computations measured on a busy day and a quiet one cost what the quiet one says."""
        residuals: defaultdict[str, list[float]] = defaultdict(list)
        timed: defaultdict[UnitCost, list[float]] = defaultdict(list)
        for units, shapes in runs:
            units = [row for row in units if row.get("status", "ok") == "ok"]
            seconds: defaultdict[UnitCost, list[float]] = defaultdict(list)
            for row in units:
                seconds[row["dataset"], row["registry_name"], row["params_hash"]].append(own_seconds(row))
            for key, values in seconds.items():
                timed[key].append(statistics.fmean(values))
            for cell in stored_cells(units, shapes):
                if size(cell.shape) >= MIN_FIT_SIZE:
                    expected = self.curve_seconds(cell.shape, cell.family, cell.learner, cell.scale)
                    residuals[cell.family].append(math.log(max(cell.seconds, 1e-6) / expected))
        if not timed:
            return self
        offsets = {family: statistics.fmean(values) for family, values in residuals.items()}
        pace = statistics.median(offsets.values()) if offsets else 0.0
        curves = {family: (a + offsets.get(family, pace), b) for family, (a, b) in self.curves.items()}
        for family in offsets.keys() - curves.keys():
            a, b = self.curve(family)
            curves[family] = (a + offsets[family], b)
        measured = {key: min(means) for key, means in timed.items()}
        source = f"{self.source}, rescaled" if offsets else self.source
        return replace(self, curves=curves, timed={**self.timed, **measured}, source=source)


def fit_cost_priors(cells: Iterable[StoredCell], source: str = "generic priors") -> CostPriors:
    """Curves per family and factors per learner fitted on stored ``cells`` (:func:`stored_cells`):
    least squares of log mean seconds on a family intercept and slope of log :func:`size`, and a
    learner term (none for :data:`REFERENCE_LEARNER` and for methods without a base learner),
    lightly penalised (:data:`LEARNER_PENALTY`), each cell's seconds divided by its :attr:`StoredCell.scale`.
    Cells of one family, learner and shape count as one point; cells smaller than :data:`MIN_FIT_SIZE` are left out."""
    import numpy as np

    grouped: defaultdict[tuple[str, str, Shape], list[float]] = defaultdict(list)
    for cell in cells:
        if size(cell.shape) >= MIN_FIT_SIZE:
            grouped[cell.family, cell.learner, cell.shape].append(math.log(max(cell.seconds, 1e-6) / cell.scale))
    families = sorted({family for family, _, _ in grouped})
    learners = sorted({learner for _, learner, _ in grouped} - {REFERENCE_LEARNER, ""})
    if not families:
        return CostPriors({}, source=source)
    n_columns = 2 * len(families) + len(learners)
    rows, targets = [], []
    for (family, learner, shape), values in grouped.items():
        row = np.zeros(n_columns)
        f = families.index(family)
        row[2 * f], row[2 * f + 1] = 1.0, math.log(size(shape))
        if learner in learners:
            row[2 * len(families) + learners.index(learner)] = 1.0
        rows.append(row)
        targets.append(statistics.fmean(values))
    for k in range(len(learners)):
        row = np.zeros(n_columns)
        row[2 * len(families) + k] = math.sqrt(LEARNER_PENALTY)
        rows.append(row)
        targets.append(0.0)
    solution = np.linalg.lstsq(np.array(rows), np.array(targets), rcond=None)[0]
    sizes = {family: {math.log(size(shape)) for f, _, shape in grouped if f == family} for family in families}
    slopes = [float(solution[2 * f + 1]) for f, family in enumerate(families) if len(sizes[family]) > 1]
    curves: dict[str, Curve] = {}
    for f, family in enumerate(families):
        a, b = float(solution[2 * f]), float(solution[2 * f + 1])
        if len(sizes[family]) == 1 and slopes:  # one size gives no slope: the median one, through that point
            x = next(iter(sizes[family]))
            a, b = a + b * x - statistics.median(slopes) * x, statistics.median(slopes)
        curves[family] = (round(a, 2), round(b, 3))
    factors = {learner: round(float(solution[2 * len(families) + k]), 2) for k, learner in enumerate(learners)}
    factors = {learner: factor for learner, factor in factors.items() if factor}
    return _with_base_variants(CostPriors(curves, factors, source=source), grouped)


def _with_base_variants(priors: CostPriors, grouped: Mapping[tuple[str, str, Shape], list[float]]) -> CostPriors:
    """``priors`` with the factor of each learner a :data:`BASE_VARIANTS` method measures: the mean log ratio of
    its cells (``grouped`` as :func:`fit_cost_priors` groups them) to its family's curve. The fit cannot tell it
    from the curves of the families seen only with that learner, which keep pricing it
    (:attr:`CostPriors.own_learners`)."""
    factors, own = dict(priors.learners), {}
    for variant, (family, learner) in BASE_VARIANTS.items():
        logs = [
            statistics.fmean(values) - math.log(priors.curve_seconds(shape, family))
            for (name, _, shape), values in grouped.items() if name == variant
        ]
        if logs and family in priors.curves:
            factors[learner] = round(statistics.fmean(logs), 2)
            own.update({name: learner for name, used, _ in grouped if used == learner})
    return replace(priors, learners=factors, own_learners=own)


GENERIC_PRIORS = CostPriors(FAMILY_CURVES, LEARNER_FACTORS, own_learners=OWN_LEARNERS)
"""The priors of a run with no stored history: this project's own runs of its methods, no dataset."""


def read_cell_table(text: str) -> dict[CellKey, float]:
    """A table of measured cells (CSV: dataset, n_samples, n_features, n_labels, label, units, seconds)."""
    return {
        (row["dataset"], (int(row["n_samples"]), int(row["n_features"]), int(row["n_labels"])), row["label"]):
        float(row["seconds"])
        for row in csv.DictReader(text.splitlines())
    }
