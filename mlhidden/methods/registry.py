"""Config names -> estimators. A new method is one class plus one line in ``METHODS``."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field

from mlhidden.errors import UserError
from mlhidden.methods.base_learners import make_base_learner, resolved_base_params
from mlhidden.methods.br import BR
from mlhidden.methods.cc import CC
from mlhidden.methods.ccasl import CCASL, CCASLAML, CCASLBR
from mlhidden.methods.expansion import ELM, RBFBR
from mlhidden.methods.forest import ForestBR
from mlhidden.methods.lp import LP
from mlhidden.methods.mlp import MLP
from mlhidden.methods.pcc import PCC
from mlhidden.methods.stacking import MBR

# Constructor parameters the protocol sets itself; they are not part of a method's identity.
RUNTIME_PARAMS = ("estimator", "random_state", "n_jobs")


@dataclass(frozen=True)
class MethodEntry:
    """A registered method: its class, preset parameters and default base learner."""

    cls: type
    summary: str
    params: dict = field(default_factory=dict)
    base: object = "logistic"

    def defaults(self) -> dict:
        """Every tunable constructor parameter with its default (presets applied)."""
        signature = inspect.signature(self.cls.__init__)
        values = {
            name: p.default
            for name, p in signature.parameters.items()
            if name != "self" and name not in RUNTIME_PARAMS and p.kind is p.POSITIONAL_OR_KEYWORD
        }
        return {**values, **self.params}

    @property
    def takes_base(self) -> bool:
        return "estimator" in inspect.signature(self.cls.__init__).parameters


METHODS: dict[str, MethodEntry] = {
    "BR": MethodEntry(BR, "binary relevance: one independent base model per label"),
    "CC": MethodEntry(CC, "classifier chain, greedy inference (eq. 3)"),
    "PCC": MethodEntry(PCC, "probabilistic CC: Monte-Carlo search for the most probable vector (M=50)"),
    "CCASL": MethodEntry(CCASL, "CC with K=L cascaded synthetic labels first (Sec. 4.1)"),
    "PCCASL": MethodEntry(CCASL, "CCASL with PCC's Monte-Carlo inference", params={"inference": "mc"}),
    "CCASL+BR": MethodEntry(CCASLBR, "CCASL as middle layer, meta BR on [x, its outputs] (Sec. 4.2)"),
    "CCASL+AML": MethodEntry(CCASLAML, "CCASL+BR with K'=2L meta labels from label subsets (Sec. 4.3)"),
    "ELM": MethodEntry(ELM, "random threshold hidden layer (K=2L), BR on it"),
    "BR_RF": MethodEntry(ForestBR, "BR with random forest: one multi-output forest", base="random_forest"),
    "CC_RF": MethodEntry(CC, "classifier chain with random forest base", base="random_forest"),
    "MLP": MethodEntry(MLP, "one sigmoid hidden layer, back-propagation (K in {2L, 2D} <= 100)"),
    "LP": MethodEntry(LP, "label powerset: one multi-class model over seen label vectors"),
    "MBR": MethodEntry(MBR, "meta BR: BR, then BR on [x, BR's outputs]"),
    "BR_phi": MethodEntry(RBFBR, "BR on a random RBF expansion of x (Table 3)"),
}


def get_entry(name: str) -> MethodEntry:
    try:
        return METHODS[name]
    except KeyError:
        raise UserError(f"unknown method '{name}'", hint=f"valid methods: {', '.join(METHODS)}") from None


def resolve_method(name: str, params: Mapping | None = None, base=None) -> dict:
    """The full, canonical description of a configured method: name, every parameter, base learner.

    This is what identifies a method in the results store, so that writing a default explicitly
    in a config does not make a new method.
    """
    entry = get_entry(name)
    params = dict(params or {})
    defaults = entry.defaults()
    unknown = set(params) - set(defaults)
    if unknown:
        raise UserError(
            f"method '{name}' has no parameter(s) {', '.join(sorted(unknown))}",
            hint=f"valid: {', '.join(sorted(defaults)) or 'none'}",
        )
    resolved = {"name": name, "params": {**defaults, **params}}
    _check_values(name, entry, resolved["params"])
    if entry.takes_base:
        resolved["base"] = resolved_base_params(entry.base if base is None else base)
    elif base is not None:
        raise UserError(f"method '{name}' takes no base learner", hint="remove 'base' from its entry")
    return resolved


def _check_values(name: str, entry: MethodEntry, params: dict):
    """Check parameter values against the class's declared constraints, before anything runs."""
    if not hasattr(entry.cls, "_parameter_constraints"):
        return
    try:
        entry.cls(**params)._validate_params()
    except (TypeError, ValueError) as exc:
        raise UserError(f"method '{name}': {exc}") from None


def make_method(name: str, params: Mapping | None = None, base=None, random_state=None):
    """Build an unfitted estimator for a configured method."""
    resolved = resolve_method(name, params, base)
    entry = METHODS[name]
    kwargs = dict(resolved["params"])
    if entry.takes_base:
        kwargs["estimator"] = make_base_learner(resolved["base"])
    if "random_state" in inspect.signature(entry.cls.__init__).parameters:
        kwargs["random_state"] = random_state
    try:
        return entry.cls(**kwargs)
    except (TypeError, ValueError) as exc:
        raise UserError(f"method '{name}': {exc}") from None
