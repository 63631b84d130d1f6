"""The rule that names the primary setting: the paper era's library defaults.

The paper (Section 5) says every method uses scikit-learn's logistic regression or random
forest and gives no parameter of either. What it ran is then that library's defaults of the
time (scikit-learn 0.17 to 0.21, 2015-2019): ``LogisticRegression`` with liblinear, C = 1, an
L2 penalty and a penalised intercept (``intercept_scaling=1``), and ``RandomForestClassifier``
with 10 trees. The primary setting is the one setting of the sensitivity config whose base
learners have exactly those parameters (:data:`PAPER_ERA_DEFAULTS`) and whose inputs are not
preprocessed; its name and the config's order play no part, and neither does any result.

Whether each setting's fits converged and whether its inputs are scaled as its solver needs
(:class:`SettingFacts`) are reported beside the rule, as facts about the setting, not as
reasons to choose it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from mlhidden.errors import UserError
from mlhidden.methods import LOGISTIC_LEARNERS, make_base_learner, parse_base_spec
from mlhidden.paper.settings import Setting
from mlhidden.runs import OK, stored_warnings

PAPER_ERA_LIBRARY = "scikit-learn 0.17-0.21"
PAPER_ERA_DEFAULTS = {
    "logistic": {
        "solver": "liblinear", "C": 1.0, "dual": False, "tol": 1e-4, "fit_intercept": True, "intercept_scaling": 1,
        "class_weight": None, "max_iter": 100,
    },
    "random_forest": {
        "n_estimators": 10, "criterion": "gini", "max_depth": None, "min_samples_split": 2, "min_samples_leaf": 1,
        "max_features": "sqrt", "bootstrap": True, "class_weight": None, "max_samples": None,
    },
}
"""Per base learner the paper names, the parameters whose values differ between then and now or
decide the fit, at the paper era's defaults (``max_features='auto'`` was ``'sqrt'`` for
classifiers)."""

SCALE_FREE_SOLVERS = ("liblinear",)
"""Logistic-regression solvers that need no scaled inputs: liblinear's trust-region and
coordinate-descent solvers, unlike lbfgs, newton-cg, sag and saga, whose convergence warnings
say to scale the data."""
SELF_SCALING_LEARNERS = ("standard_logistic",)
"""Base learners that standardise their own inputs (:mod:`mlhidden.methods.scaled_logistic`)."""


def _era_differences(base: Mapping, preprocess) -> list[str]:
    """How a setting's base learners (``base``: learner name -> replacement spec) and
    ``preprocess`` differ from the paper era's defaults, one phrase each; empty when they match.

    A learner the setting does not replace keeps today's default of this package.
    """
    differences = [] if not preprocess else ["inputs preprocessed"]
    for learner, era in PAPER_ERA_DEFAULTS.items():
        params = make_base_learner(base.get(learner, learner)).get_params()
        name = parse_base_spec(base.get(learner, learner))[0]
        if name != learner:
            differences.append(f"{learner} replaced by {name}")
            continue
        differences += [
            f"{learner} {key}={params.get(key)!r} (era: {value!r})"
            for key, value in era.items()
            if params.get(key) != value
        ]
    return differences


def primary_by_rule(settings: Iterable[Setting]) -> Setting | None:
    """The setting whose base learners are the paper era's defaults; None when no setting is.

    Two such settings would be the same computation under two names: a ``UserError``.
    """
    matching = [setting for setting in settings if not _era_differences(setting.base, setting.preprocess)]
    if len(matching) > 1:
        names = ", ".join(setting.name for setting in matching)
        raise UserError(f"settings {names} are all the paper era's defaults", hint="keep one of them")
    return matching[0] if matching else None


@dataclass(frozen=True)
class SettingFacts:
    """One setting beside the rule: how its base learners differ from the paper era's defaults,
    its stored units, how many did not converge, and whether its inputs are scaled as its solver needs."""

    setting: str
    differences: tuple
    units: int
    units_with_warnings: int
    scaled: bool

    @property
    def is_paper_era(self) -> bool:
        return not self.differences


def scales_as_solver_needs(setting: dict) -> bool:
    """Whether a manifest's setting gives every logistic regression scaled inputs or a scale-free solver.

    A setting that does not replace ``logistic`` keeps the default (lbfgs, unscaled).
    """
    spec = setting.get("base", {}).get("logistic")
    if spec is None:
        return False
    name, params = parse_base_spec(spec)
    if setting.get("preprocess") or name in SELF_SCALING_LEARNERS:
        return True
    return name not in LOGISTIC_LEARNERS or params.get("solver", "lbfgs") in SCALE_FREE_SOLVERS


def setting_facts(setting: dict, units: list) -> SettingFacts:
    """The :class:`SettingFacts` of a manifest's setting entry, from the unit tables of its runs."""
    ok = [frame[frame["status"] == OK] for frame in units]
    return SettingFacts(
        setting["name"],
        tuple(_era_differences(setting.get("base") or {}, setting.get("preprocess"))),
        sum(len(f) for f in ok),
        sum(sum(map(_not_converged, f.to_dict("records"))) for f in ok),
        scales_as_solver_needs(setting),
    )


def _not_converged(unit: dict) -> bool:
    """Whether a stored unit raised a ConvergenceWarning (any warning, if its kinds were not kept)."""
    kept = unit.get("warnings")
    if not isinstance(kept, str) or not kept:
        return unit["n_warnings"] > 0
    return any(entry["category"] == "ConvergenceWarning" for entry in stored_warnings(kept))
