"""Config names -> estimators: the paper's methods, methods of installed packages, import paths.

A new built-in method is one class plus one line in ``METHODS``. Any other estimator is named in
a config by its import path (``sklearn.neighbors.KNeighborsClassifier``,
``mypkg.module:MyMethod``), or by the name an installed package gives it in the
``mlhidden.methods`` entry-point group. Either way it must follow the ``fit(X, Y)`` /
``predict(X)`` contract, which is checked before anything runs.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mlhidden.data.dataset import RandomStateLike
from mlhidden.errors import UserError, did_you_mean, unique_match
from mlhidden.imports import import_object, is_import_path, load_entry_points, provider
from mlhidden.methods.base_learners import (
    check_base_learner,
    make_base_learner,
    make_resolved_base_learner,
    resolved_base_params,
)
from mlhidden.methods.baselines import TRIVIAL_BASELINES, AllZero, LabelMajority, MostFrequentLabelSet
from mlhidden.methods.br import BR
from mlhidden.methods.cc import CC
from mlhidden.methods.ccasl import CCASL, CCASLAML, CCASLBR
from mlhidden.methods.expansion import ELM, RBFBR
from mlhidden.methods.external import ExternalMethod
from mlhidden.methods.forest import ForestBR
from mlhidden.methods.lp import LP
from mlhidden.methods.mlp import MLP
from mlhidden.methods.pcc import PCC
from mlhidden.methods.preprocessing import method_of, resolve_preprocess, with_preprocessing
from mlhidden.methods.resolved_method import ResolvedMethod
from mlhidden.methods.stacking import MBR

# Constructor parameters the protocol sets itself; they are not part of a method's identity.
RUNTIME_PARAMS = ("estimator", "random_state", "n_jobs")
ENTRY_POINT_GROUP = "mlhidden.methods"
BUILTIN_SOURCE = "mlhidden"


@dataclass(frozen=True)
class MethodEntry:
    """A registered method: its class, preset parameters, default base learner and where it comes from.

    ``source`` is what ``mlhidden methods`` shows: ``mlhidden`` for the paper's methods, the
    providing package and version for the others.
    """

    cls: type[Any]
    summary: str
    params: dict[str, Any] = field(default_factory=dict)
    base: object = "logistic"
    source: str = BUILTIN_SOURCE

    def defaults(self) -> dict[str, Any]:
        """Every tunable constructor parameter with its default (presets applied)."""
        return {**_signature_defaults(self.cls), **self.params}

    @property
    def takes_base(self) -> bool:
        return "estimator" in inspect.signature(self.cls.__init__).parameters

    @property
    def builtin(self) -> bool:
        """One of this package's methods, which need no adapting to the protocol."""
        return self.cls.__module__.startswith("mlhidden.")

    def provider(self) -> dict[str, str | None] | None:
        """The package (and version) providing a method that is not built in, for ``run.json``."""
        return None if self.builtin else provider(self.cls)


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
    "AllZero": MethodEntry(AllZero, "trivial baseline: no label for any example"),
    "Majority": MethodEntry(LabelMajority, "trivial baseline: each label's majority value in training"),
    "MostFrequentSet": MethodEntry(MostFrequentLabelSet, "trivial baseline: the most frequent training label vector"),
}


def _signature_defaults(cls: type[Any]) -> dict[str, Any]:
    signature = inspect.signature(cls.__init__)
    return {
        name: p.default
        for name, p in signature.parameters.items()
        if name != "self" and name not in RUNTIME_PARAMS and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    }


def _plain(value: Any) -> Any:
    """``value`` if it is plain data (what a YAML config can hold), else a stable name for it.

    A method's identity holds its defaults; a default such as a function or an object has no
    stable JSON form, and a config cannot set it anyway.
    """
    try:
        json.dumps(value, allow_nan=True)
        return value
    except (TypeError, ValueError):
        kind = value if inspect.isclass(value) or callable(value) else type(value)
        return f"<{getattr(kind, '__module__', '?')}.{getattr(kind, '__qualname__', repr(kind))}>"


def _contract_problem(cls: object) -> str | None:
    """What keeps ``cls`` from being run as a method (``fit(X, Y)``, ``predict(X)``, parameters), if anything."""
    if not inspect.isclass(cls):
        return f"is a {type(cls).__name__}, not an estimator class"
    if not all(callable(getattr(cls, m, None)) for m in ("fit", "get_params", "set_params")):
        return "is not a scikit-learn estimator (it needs fit, get_params and set_params)"
    if not callable(getattr(cls, "predict", None)):
        return "has no predict(X)"
    positional = [
        p for p in list(inspect.signature(cls.fit).parameters.values())[1:]  # type: ignore[attr-defined]  # checked above
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
    ]
    if len(positional) < 2 and not any(p.kind is p.VAR_POSITIONAL for p in positional):
        return "has no fit(X, Y): its fit takes no label matrix"
    if len(positional) >= 2 and positional[1].default is None:
        return f"is unsupervised: its fit(X, {positional[1].name}=None) does not need labels"
    return None


def _external_entry(cls: Any, name: str, source: str) -> MethodEntry:
    problem = _contract_problem(cls)
    if problem is not None:
        raise UserError(
            f"method '{name}' {problem}",
            hint="a method is a class with fit(X, Y) and predict(X), e.g. sklearn.neighbors.KNeighborsClassifier",
        )
    summary = (inspect.getdoc(cls) or cls.__name__).splitlines()[0]
    return MethodEntry(cls, summary, source=source)


def _imported_entry(path: str) -> MethodEntry:
    cls = import_object(path, "method")
    origin = provider(cls) if inspect.isclass(cls) else {"package": None}
    source = f"{origin['package']} {origin['version']}" if origin["package"] else "import path"
    return _external_entry(cls, path, source)


@functools.cache
def entry_point_methods() -> dict[str, MethodEntry]:
    """Methods that installed packages register in the ``mlhidden.methods`` entry-point group.

    An entry point names a method class (or a ``MethodEntry``): ``my_method = "mypkg.module:MyMethod"``.
    """
    return {
        name: loaded if isinstance(loaded, MethodEntry) else _external_entry(loaded, name, source)
        for name, (loaded, source) in load_entry_points(ENTRY_POINT_GROUP, "method").items()
    }


def registered_methods() -> dict[str, MethodEntry]:
    """Every method known by name: the built-in ones, then those of installed packages (a built-in name wins)."""
    return {**METHODS, **{name: entry for name, entry in entry_point_methods().items() if name not in METHODS}}


def method_name(name: str) -> str:
    """The registered spelling of a method name typed in any case (``ccasl`` is ``CCASL``), as
    dataset names are matched; a name registered as written, an import path or an unknown name
    is returned as it is. Two registered names that differ only in case must be written exactly.
    """
    if name in METHODS or is_import_path(name):
        return name
    return unique_match(name, registered_methods(), "method") or name


def is_trivial_baseline(label: str) -> bool:
    """Whether a table column names a built-in trivial baseline (one that ignores x), in any case.

    Tables show them as a floor but leave them out of every ranking (:func:`mlhidden.report.tables.metric_table`).
    """
    entry = METHODS.get(unique_match(label, METHODS, "method") or "")
    return entry is not None and issubclass(entry.cls, TRIVIAL_BASELINES)


def get_entry(name: str) -> MethodEntry:
    """The registry entry for a config's method name (in any case, see :func:`method_name`) or an import path.

    Built-in names are found without loading any package's entry points.
    """
    if name in METHODS:
        return METHODS[name]
    name = method_name(name)
    known = registered_methods()
    if name in known:
        return known[name]
    if is_import_path(name):
        return _imported_entry(name)
    raise UserError(
        f"unknown method '{name}'",
        hint=f"{did_you_mean(name, known)}valid methods: {', '.join(known)}, "
        "or an import path such as sklearn.neighbors.KNeighborsClassifier",
    )


def resolve_method(
    name: str, params: Mapping[str, Any] | None = None, base: object = None, preprocess: object = None,
) -> ResolvedMethod:
    """The full, canonical description of a configured method: name, every parameter, base learner,
    and its input preprocessing if any (:mod:`~mlhidden.methods.preprocessing`).

    This is what identifies a method in the results store, so that writing a default explicitly
    in a config does not make a new method. The values are checked on the one estimator built.
    """
    resolved = describe_method(name, params, base, preprocess)
    make_checked_method(get_entry(resolved.name), resolved)
    return resolved


def describe_method(
    name: str, params: Mapping[str, Any] | None = None, base: object = None, preprocess: object = None
) -> ResolvedMethod:
    """:func:`resolve_method`'s description, without building the method to check its values."""
    name = method_name(name)
    entry = get_entry(name)
    params = dict(params or {})
    defaults = entry.defaults()
    unknown = set(params) - set(defaults)
    if unknown:
        raise UserError(
            f"method '{name}' has no parameter(s) {', '.join(sorted(unknown))}",
            hint=_parameter_hint(name, entry, base, {key: params[key] for key in unknown}, defaults),
        )
    if not entry.takes_base and base is not None:
        raise UserError(
            f"method '{name}' takes no base learner", hint="remove 'base' from its entry, or base= from its -m"
        )
    return ResolvedMethod(
        name, {k: _plain(v) for k, v in {**defaults, **params}.items()},
        resolved_base_params(entry.base if base is None else base) if entry.takes_base else None,
        resolve_preprocess(preprocess) or None,
    )


def make_checked_method(entry: MethodEntry, resolved: ResolvedMethod, base_learner: Any = None) -> Any:
    """The unfitted estimator of a description, its parameter values checked against the class's constraints
    (``base_learner``: its base learner, already built and checked)."""
    estimator = make_resolved_method(entry, resolved, base_learner=base_learner)
    _check_values(resolved.name, estimator)
    return estimator


def _parameter_hint(
    name: str, entry: MethodEntry, base: Any, unknown: dict[str, Any], defaults: dict[str, Any]
) -> str:
    """Where unknown method parameters belong: the base learner's (``base.NAME``, shown as the command line
    and a config write it), or a near spelling."""
    of_base = (
        sorted(set(unknown) & set(make_base_learner(entry.base if base is None else base).get_params()))
        if entry.takes_base
        else []
    )
    if of_base:
        key = of_base[0]
        return (
            f"{key} is a parameter of the base learner: write base.{key}, "
            f"as in -m '{name}[base.{key}={unknown[key]}]' or a config's params: or sweep: {{base.{key}: ...}}"
        )
    if not defaults:
        its_base = "; base and base.PARAM set its base learner" if entry.takes_base else ""
        return f"valid: none{its_base}"
    return f"{did_you_mean(min(unknown), defaults)}valid: {', '.join(sorted(defaults))}"


def _check_values(name: str, estimator: Any) -> None:
    """Check parameter values against the class's declared constraints, before anything runs."""
    estimator = method_of(estimator)
    inner = estimator.estimator if isinstance(estimator, ExternalMethod) else estimator
    if not hasattr(inner, "_parameter_constraints"):
        return
    try:
        inner._validate_params()
    except (TypeError, ValueError) as exc:
        raise UserError(f"method '{name}': {exc}".splitlines()[0]) from None


def check_method_base(entry: MethodEntry, resolved: ResolvedMethod, estimator: Any = None) -> None:
    """Refuse a base learner the method cannot use: one without ``predict_proba`` where the method
    reads probabilities (PCC, PCCASL, exact inference, ``meta_input: proba``), a binary-only one
    where it fits a multi-class model (LP with liblinear). ``estimator``: the one already built."""
    if not entry.builtin or resolved.base is None:
        return
    estimator = method_of(make_resolved_method(entry, resolved) if estimator is None else estimator)
    try:
        check_base_learner(
            estimator.estimator, needs_probabilities=estimator._needs_probabilities(),
            needs_multiclass=estimator._needs_multiclass(), method=resolved.name,
        )
    except ValueError as exc:
        raise UserError(str(exc)) from None


def make_resolved_method(
    entry: MethodEntry, resolved: ResolvedMethod, random_state: RandomStateLike = None, base_learner: Any = None,
) -> Any:
    """An unfitted estimator from a registry entry and its resolved description: what a unit fits.

    Only parameters that differ from the class's defaults are passed, so the class fills in its
    own defaults (some have no plain form). A method that is not built in is wrapped in
    :class:`~mlhidden.methods.external.ExternalMethod`; one with ``preprocess`` steps is the last
    step of a ``Pipeline`` behind them. ``base_learner``: the one of ``resolved.base``, already built.
    """
    defaults = {k: _plain(v) for k, v in _signature_defaults(entry.cls).items()}
    kwargs = {k: v for k, v in resolved.params.items() if k not in defaults or defaults[k] != v}
    if entry.takes_base and resolved.base is not None:
        kwargs["estimator"] = make_resolved_base_learner(resolved.base) if base_learner is None else base_learner
    try:
        estimator = entry.cls(**kwargs)
    except (TypeError, ValueError) as exc:
        raise UserError(f"method '{resolved.name}': {exc}".splitlines()[0]) from None
    built = with_preprocessing(estimator if entry.builtin else ExternalMethod(estimator), resolved.preprocess)
    return seeded(built, random_state)


def seeded(estimator: Any, random_state: RandomStateLike) -> Any:
    """``estimator`` (as :func:`make_resolved_method` gives it) with its method's ``random_state`` set, where the
    method's class takes one: how one unit's copy of a method gets the unit's seed."""
    method = method_of(estimator)
    inner = method.estimator if isinstance(method, ExternalMethod) else method
    if "random_state" in inspect.signature(type(inner).__init__).parameters:
        inner.set_params(random_state=random_state)
    return estimator


def make_method(
    name: str, params: Mapping[str, Any] | None = None, base: object = None, random_state: RandomStateLike = None,
    preprocess: object = None,
) -> Any:
    """Build an unfitted estimator for a configured method."""
    resolved = describe_method(name, params, base, preprocess)
    return seeded(make_checked_method(get_entry(resolved.name), resolved), random_state)


def method_table() -> list[dict[str, Any]]:
    """One row per method known by name: where it comes from, what it is, its parameters and base learner."""
    return [
        {
            "method": name,
            "source": entry.source,
            "what it is": entry.summary,
            "parameters (defaults)": ", ".join(f"{k}={v!r}" for k, v in entry.defaults().items()) or "-",
            "base learner": entry.base if entry.takes_base else "-",
        }
        for name, entry in registered_methods().items()
    ]


def method_data() -> list[dict[str, Any]]:
    """:func:`method_table` as data (``methods --json``): the defaults as a mapping, no base learner as None."""
    return [
        {
            "method": name,
            "source": entry.source,
            "summary": entry.summary,
            "defaults": entry.defaults(),
            "base": entry.base if entry.takes_base else None,
        }
        for name, entry in registered_methods().items()
    ]
