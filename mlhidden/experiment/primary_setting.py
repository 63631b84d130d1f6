"""The rule that names the primary setting, fixed before any setting's results are read (issue #17).

A setting of a sensitivity run (:mod:`mlhidden.experiment.sensitivity`) qualifies as primary
when both hold:

1. **Its fits converge**: no unit of any of its runs raised a ``ConvergenceWarning``. A unit
   stored before warning kinds were kept (no ``warnings`` entry) counts as not converged if it
   raised any warning, which can only make the rule stricter.
2. **Its inputs are scaled as its solver needs**: every logistic regression it uses either sees
   standardised inputs (the setting's ``preprocess``) or uses a solver that does not need them
   (:data:`SCALE_FREE_SOLVERS`). Forests are scale-invariant and need nothing.

Of the settings that qualify, the first in the sensitivity config's order is the primary one
(:func:`named_by_rule`). The rule does not look at agreement with the paper.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mlhidden.experiment.sensitivity import read_manifest
from mlhidden.experiment.status import OK
from mlhidden.experiment.store import load_results
from mlhidden.experiment.unit_warnings import stored_warnings
from mlhidden.methods.base_learners import LOGISTIC_LEARNERS, parse_base_spec

SCALE_FREE_SOLVERS = ("liblinear",)
"""Logistic-regression solvers the rule accepts on unscaled inputs: liblinear's trust-region and
coordinate-descent solvers, unlike the quasi-Newton and stochastic-gradient ones (lbfgs,
newton-cg, sag, saga), whose scikit-learn convergence warnings say to scale the data."""


@dataclass(frozen=True)
class RuleVerdict:
    """How one setting fares under the rule: ``units`` stored, how many raised warnings, whether its inputs are scaled."""

    setting: str
    units: int
    units_with_warnings: int
    scaled: bool
    """``units_with_warnings`` counts the units that did not converge (see the module docstring)."""

    @property
    def converges(self) -> bool:
        return self.units > 0 and self.units_with_warnings == 0

    @property
    def qualifies(self) -> bool:
        return self.converges and self.scaled

    def reason(self) -> str:
        if self.units == 0:
            return "no stored units"
        parts = []
        if not self.converges:
            parts.append(f"{self.units_with_warnings} of {self.units} units did not converge")
        if not self.scaled:
            parts.append("logistic regression on unscaled inputs with a solver that needs them scaled")
        return "; ".join(parts) or "converges, inputs scaled as the solver needs"


def scales_as_solver_needs(setting: dict) -> bool:
    """Whether a manifest's setting gives every logistic regression scaled inputs or a scale-free solver.

    A setting that does not replace ``logistic`` keeps the default (lbfgs, unscaled).
    """
    spec = setting.get("base", {}).get("logistic")
    if spec is None:
        return False
    if setting.get("preprocess"):
        return True
    name, params = parse_base_spec(spec)
    return name not in LOGISTIC_LEARNERS or params.get("solver", "lbfgs") in SCALE_FREE_SOLVERS


def apply_primary_rule(out_dir) -> list:
    """A :class:`RuleVerdict` per setting of the sensitivity run in ``out_dir``, in manifest order."""
    manifest = read_manifest(out_dir)
    if manifest is None:
        raise FileNotFoundError(f"no sensitivity manifest in {out_dir}")
    return [
        rule_verdict(setting, [load_results(Path(out_dir) / run_dir).units for run_dir in setting["run_dirs"].values()])
        for setting in manifest["settings"]
    ]


def rule_verdict(setting: dict, units: list) -> RuleVerdict:
    """The :class:`RuleVerdict` of a manifest's setting entry, from the unit tables of its runs."""
    ok = [frame[frame["status"] == OK] for frame in units]
    return RuleVerdict(
        setting["name"], sum(len(f) for f in ok), sum(sum(map(_not_converged, f.to_dict("records"))) for f in ok), scales_as_solver_needs(setting),
    )


def _not_converged(unit: dict) -> bool:
    """Whether a stored unit raised a ConvergenceWarning (any warning, if its kinds were not kept)."""
    kept = unit.get("warnings")
    if not isinstance(kept, str) or not kept:
        return unit["n_warnings"] > 0
    return any(entry["category"] == "ConvergenceWarning" for entry in stored_warnings(kept))


def named_by_rule(verdicts) -> RuleVerdict | None:
    """The first qualifying setting of ``verdicts`` (in the config's order), or None when none qualifies."""
    return next((verdict for verdict in verdicts if verdict.qualifies), None)
