"""A claims file: claims in their author's words, each split into sub-claims a test decides.

A claim quotes its source (``quote``, ``source``) and lists ``subclaims``. A sub-claim says what it
compares on which stored run and how its words are read as numbers, so that the file, not code,
holds every direction, size and reading (docs/claims.md shows the format)::

    - id: C1.1
      says: my method beats BR on exact match across these datasets
      run: mine                   # a run directory given on the command line
      metric: exact_match
      difference: [Mine, BR]      # or value: M | ratio: [A, B] | ranks: {control: M, than: [...]}
      direction: above            # above | below | within
      smallest_effect: 0.01       # where no size is claimed: a smaller difference is a practical tie
      unit: datasets              # splits | datasets | datasets x splits
      alternatives:               # other readings the same words allow, each from the paper's words
        - name: lenient
          words: "line 234: 'only (c) suffices'"
          reading: "'beats' read as ahead by 0.05"
          size: 0.05              # the keys it changes; the rest are the primary reading's

Everything is checked when the file is read; a mistake is one :class:`~mlhidden.errors.UserError`
at the line of the key that is wrong.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mlhidden.claims.spec_values import (
    DatasetSelection,
    checked_text,
    claimed_target,
    dataset_selection,
    finite_number,
    method_names,
    one_of,
)
from mlhidden.errors import UserError, did_you_mean
from mlhidden.stats.replication import AVERAGE_RANK, DATASETS, RANK_TESTS, TOP_SHARE, UNITS, Target
from mlhidden.stats.uncertainty import HOLM, MULTIPLICITY
from mlhidden.yaml_lines import Fail, KeyPath, failure_at, line_of, read_yaml_with_lines, refuse_unknown_keys

CLAIM_KEYS = ("id", "about", "source", "quote", "note", "notes", "multiplicity", "subclaims")
FILE_KEYS = ("multiplicity", "controls", "claims")
STATISTICS = ("value", "difference", "ratio", "ranks")
SUBCLAIM_KEYS = (
    "id", "says", "run", "metric", "datasets", "extractor", "params", *STATISTICS, "factor", "methods",
    "direction", "size", "reading", "smallest_effect", "unit", "note", "test", "alternatives", "role",
)
PRIMARY = "primary"
"""The name of a sub-claim's own reading, beside the alternatives it declares."""
ALTERNATIVE_KEYS = ("name", "words", "reading")
NOT_REREAD = ("id", "says", "run", "role", "alternatives")
"""The sub-claim keys an alternative reading keeps: it reads the same statement on the same run."""
CORE, SUPPORTING = "core", "supporting"
CONTROL_KEPT_OUT = ("role", "alternatives")
"""The sub-claim keys a positive control does not take: it decides no claim and has one reading."""
CONTROL_ONLY = ("covers",)
"""The keys only a positive control takes: ``covers``, the other runs on its data, splits and base learner."""
ROLES = (CORE, SUPPORTING)
"""A core sub-claim is what the quoted words say, and decides its claim; a supporting one is shown, never decides."""
@dataclass(frozen=True)
class SubClaim:
    """One atomic statement and the test that decides it; ``where`` is its key path in the file, ``lines`` the file's.

    ``sides`` are the methods compared, each side a mean over its methods: one side for a value,
    (A, B) for a difference A - factor B or a ratio A / B, (control, others) for ranks among
    ``ranked``.
    """

    id: str
    says: str
    run: str | None
    metric: str
    statistic: str
    sides: tuple[tuple[str, ...], ...]
    factor: float
    target: Target
    unit: str
    datasets: DatasetSelection = DatasetSelection()
    extractor: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    ranked: tuple[str, ...] = ()
    note: str = ""
    role: str = CORE
    where: KeyPath = ()
    lines: Mapping[KeyPath, int] = field(default_factory=dict, repr=False, compare=False)
    rank_test: str = AVERAGE_RANK
    alternatives: tuple[Alternative, ...] = ()
    covers: tuple[str, ...] = ()

    def under(self, reading: str) -> SubClaim:
        """This sub-claim under the reading named ``reading``: its alternative of that name, else itself."""
        return next((a.subclaim for a in self.alternatives if a.name == reading), self)


@dataclass(frozen=True)
class Alternative:
    """A declared other reading of a sub-claim's words: its name, the paper's words it rests on, and the
    sub-claim read that way (the primary's keys with the alternative's in their place)."""

    name: str
    words: str
    subclaim: SubClaim


@dataclass(frozen=True)
class ClaimSpec:
    """A claim: its words, where they are, and its sub-claims; ``where`` and ``lines`` as a :class:`SubClaim`'s.

    ``multiplicity`` controls its refutation across its core sub-claims (its own key, else the file's, else
    Holm); ``controls`` are the file's positive controls, any of which may cover one of its sub-claims.
    """

    id: str
    about: str
    source: str
    quote: str
    subclaims: tuple[SubClaim, ...]
    note: str = ""
    notes: tuple[str, ...] = ()
    multiplicity: str = HOLM
    controls: tuple[SubClaim, ...] = ()
    where: KeyPath = ()
    lines: Mapping[KeyPath, int] = field(default_factory=dict, repr=False, compare=False)

    @property
    def readings(self) -> tuple[str, ...]:
        """The claim's readings dimension: :data:`PRIMARY`, then every alternative its sub-claims name."""
        names = (a.name for sub in self.subclaims for a in sub.alternatives)
        return (PRIMARY, *dict.fromkeys(names))

    @property
    def core(self) -> tuple[SubClaim, ...]:
        return tuple(sub for sub in self.subclaims if sub.role == CORE)


def _check_entry(entry: Any, kind: str, shape: str, allowed: tuple[str, ...], required: Sequence[str], where: KeyPath,
                 fail: Fail) -> None:
    """Refuse (by ``fail``) a claim or sub-claim that is not a mapping, has a key it does not know, or lacks one."""
    if not isinstance(entry, dict):
        fail(f"a {kind} is a mapping with {shape}", where)
    refuse_unknown_keys(entry, allowed, where, fail, f"in {kind}")
    for key in required:
        if key not in entry:
            fail(f"{kind} lacks '{key}'", where)


def _once_each(names: tuple[str, ...], where: KeyPath, fail: Fail) -> tuple[str, ...]:
    repeated = next((name for i, name in enumerate(names) if name in names[:i]), None)
    if repeated is not None:
        fail(f"'{where[-1]}' names {repeated!r} twice", where)
    return names


def _ranks(entry: Mapping[str, Any], where: KeyPath, fail: Fail) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]:
    """A ranks sub-claim's sides (control, others) and the methods ranked.

    Ranks are taken among ``methods``: two or more, each once, holding the control and the others.
    """
    ranks = entry["ranks"]
    if not isinstance(ranks, dict) or set(ranks) - {"control", "than"} or "control" not in ranks:
        fail("'ranks' needs {control: M, than: [methods] or all}", where + ("ranks",))
    if entry.get("direction", "above") not in ("above", "below"):
        fail("a ranks sub-claim has direction above or below", where + ("direction",))
    if entry["unit"] != DATASETS:
        fail(f"a ranks sub-claim has unit {DATASETS}", where + ("unit",))
    ranked = _once_each(method_names(entry.get("methods"), where + ("methods",), fail), where + ("methods",), fail)
    if len(ranked) < 2:
        fail("ranks need at least two methods in 'methods'", where + ("methods",))
    control = method_names(ranks["control"], where + ("ranks", "control"), fail, count=1)
    if control[0] not in ranked:
        fail(f"the control {control[0]!r} is not one of 'methods'", where + ("ranks", "control"),
             hint=f"methods: {', '.join(ranked)}")
    than = ranks.get("than", "all")
    if than == "all":
        return (control, tuple(m for m in ranked if m not in control)), ranked
    others = _once_each(method_names(than, where + ("ranks", "than"), fail), where + ("ranks", "than"), fail)
    for name in others:
        if name == control[0]:
            fail(f"'than' names the control {name!r}", where + ("ranks", "than"))
        if name not in ranked:
            fail(f"{name!r} in 'than' is not one of 'methods'", where + ("ranks", "than"),
                 hint=f"{did_you_mean(name, ranked)}methods: {', '.join(ranked)}")
    return (control, others), ranked


def _rank_test(entry: Mapping[str, Any], statistic: str, where: KeyPath, fail: Fail) -> str:
    """How a ranks sub-claim is tested (:data:`~mlhidden.stats.replication.RANK_TESTS`); only ranks take ``test``.

    A top share test's ``size`` is the share of datasets claimed, whichever end ``direction`` names.
    """
    test = entry.get("test", AVERAGE_RANK)
    if "test" in entry and statistic != "ranks":
        fail("'test' is for a ranks sub-claim: the other statistics' test follows their unit", where + ("test",))
    if test not in RANK_TESTS:
        fail(f"unknown test {test!r}", where + ("test",),
             hint=f"{did_you_mean(str(test), RANK_TESTS)}one of: {', '.join(RANK_TESTS)}")
    share = entry.get("size")
    if test == TOP_SHARE and not (isinstance(share, (int, float)) and not isinstance(share, bool) and 0 < share < 1):
        fail(f"a {TOP_SHARE!r} test needs size: the share of datasets claimed, between 0 and 1",
             where + ("size" if "size" in entry else "test",), hint="e.g. size: 0.5 for 'on most datasets'")
    return str(test)


def _alternatives(entry: Mapping[str, Any], where: KeyPath, fail: Fail,
                  lines: Mapping[KeyPath, int]) -> tuple[Alternative, ...]:
    """A sub-claim's declared alternative readings, each parsed as the sub-claim with its keys in their place.

    A statistic an alternative names replaces the primary's; every key but :data:`NOT_REREAD` may change.
    """
    given, at = entry.get("alternatives"), where + ("alternatives",)
    if given is None:
        return ()
    if not isinstance(given, list) or not given:
        fail("'alternatives' must be a non-empty list of {name, words, reading, and the keys read otherwise}", at)
    allowed = (*ALTERNATIVE_KEYS, *(key for key in SUBCLAIM_KEYS if key not in NOT_REREAD))
    found: list[Alternative] = []
    for k, item in enumerate(given):
        here = at + (k,)
        _check_entry(item, "alternative reading", "name, words, reading and the keys it reads otherwise", allowed,
                     ALTERNATIVE_KEYS, here, fail)
        name = checked_text(item["name"], here + ("name",), fail)
        if name == PRIMARY or name in [a.name for a in found]:
            fail(f"alternative {name!r} is named twice in this sub-claim"
                 + (f" ({PRIMARY!r} is the sub-claim's own reading)" if name == PRIMARY else ""), here + ("name",))
        restated = any(key in item for key in STATISTICS)
        merged = {key: value for key, value in entry.items()
                  if key != "alternatives" and not (restated and key in STATISTICS)}
        merged |= {key: value for key, value in item.items() if key not in ("name", "words")}
        found.append(Alternative(name, checked_text(item["words"], here + ("words",), fail),
                                 _subclaim(merged, here, fail, lines)))
    return tuple(found)


def _subclaim(entry: Any, where: KeyPath, fail: Fail, lines: Mapping[KeyPath, int],
              kind: str = "sub-claim") -> SubClaim:
    """A sub-claim, or (``kind`` "control") a positive control: a sub-claim's keys but ``role`` and ``alternatives``."""
    allowed = SUBCLAIM_KEYS if kind == "sub-claim" else (
        *(k for k in SUBCLAIM_KEYS if k not in CONTROL_KEPT_OUT), *CONTROL_ONLY)
    _check_entry(entry, kind, "id, says, a statistic, direction and unit", allowed, ("id", "says", "unit"), where, fail)
    given = [key for key in STATISTICS if key in entry]
    if len(given) != 1:
        fail(f"a sub-claim names exactly one of {', '.join(STATISTICS)}", where + tuple(given[1:2]),
             hint="value: M, difference: [A, B], ratio: [A, B] or ranks: {control: M, than: [...]}")
    statistic = given[0]
    unit = entry["unit"]
    if unit not in UNITS:
        fail(f"unknown unit {unit!r}", where + ("unit",), hint=f"{did_you_mean(unit, UNITS)}one of: {', '.join(UNITS)}")
    ranked: tuple[str, ...] = ()
    if statistic == "ranks":
        sides, ranked = _ranks(entry, where, fail)
    else:
        value = entry[statistic]
        count = 1 if statistic == "value" else 2
        entries = [value] if count == 1 else value
        if not isinstance(entries, list) or len(entries) != count:
            fail(f"'{statistic}' needs {'a method' if count == 1 else 'two entries: [A, B]'}", where + (statistic,))
        sides = tuple(method_names(side, where + (statistic,), fail) for side in entries)
    factor = finite_number(entry.get("factor", 1.0), where + ("factor",), fail)
    params = entry.get("params", {})
    if not isinstance(params, dict):
        fail("'params' must be a mapping", where + ("params",))
    return SubClaim(
        id=str(entry["id"]), says=checked_text(entry["says"], where + ("says",), fail),
        run=None if entry.get("run") is None else str(entry["run"]), metric=str(entry.get("metric", "value")),
        statistic=statistic, sides=sides, factor=factor, target=claimed_target(entry, statistic, where, fail),
        unit=unit, datasets=dataset_selection(entry.get("datasets"), where + ("datasets",), fail),
        extractor=entry.get("extractor"), params=params, ranked=ranked,
        note=checked_text(entry.get("note"), where + ("note",), fail, required=False),
        role=one_of(entry, "role", ROLES, CORE, where, fail), where=where, lines=lines,
        rank_test=_rank_test(entry, statistic, where, fail), alternatives=_alternatives(entry, where, fail, lines),
        covers=_run_names(entry.get("covers", []), where + ("covers",), fail),
    )


def _run_names(value: Any, where: KeyPath, fail: Fail) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(run, str) and run for run in value):
        fail(f"'{where[-1]}' must be a list of run names", where, hint="e.g. covers: [hidden_nodes]")
    return tuple(value)


def _checked_subclaim(entry: Any, where: KeyPath, fail: Fail, lines: Mapping[KeyPath, int],
                      extractors: Sequence[str], kind: str = "sub-claim") -> SubClaim:
    """:func:`_subclaim`, its extractor one of ``extractors``."""
    subclaim = _subclaim(entry, where, fail, lines, kind)
    for read in (subclaim, *(a.subclaim for a in subclaim.alternatives)):
        if read.extractor is not None and read.extractor not in extractors:
            fail(f"unknown extractor {read.extractor!r}", read.where + ("extractor",),
                 hint=f"{did_you_mean(read.extractor, extractors)}known: {', '.join(extractors) or 'none'}")
    return subclaim


def _controls(data: Mapping[str, Any], fail: Fail, lines: Mapping[KeyPath, int],
              extractors: Sequence[str]) -> tuple[SubClaim, ...]:
    """The file's positive controls (``controls:``): each a statement a setting must satisfy for the
    sub-claims it covers to be testable under it (docs/claims.md)."""
    entries = data.get("controls", [])
    if not isinstance(entries, list):
        fail("'controls' must be a list of controls", ("controls",))
    return tuple(_checked_subclaim(entry, ("controls", i), fail, lines, extractors, "control")
                 for i, entry in enumerate(entries))


def read_claims(path: str | Path, extractors: Sequence[str] = (), notes: Sequence[str] = ()) -> list[ClaimSpec]:
    """The claims in ``path``, checked; ``extractors`` and ``notes`` are the names a file may use."""
    path = Path(path)
    data, lines = read_yaml_with_lines(path, "claims file", "check the path given as the claims file")
    fail = failure_at(path, lines)
    if not isinstance(data, dict) or not isinstance(data.get("claims"), list) or not data["claims"]:
        fail("a claims file is a mapping with a non-empty list 'claims'", ())
    refuse_unknown_keys(data, FILE_KEYS, (), fail)
    default = one_of(data, "multiplicity", MULTIPLICITY, HOLM, (), fail)
    controls = _controls(data, fail, lines, extractors)
    claims, seen = [], set()
    for control in controls:
        if control.id in seen:
            fail(f"id {control.id!r} is used twice", control.where + ("id",))
        seen.add(control.id)
    for i, entry in enumerate(data["claims"]):
        where: KeyPath = ("claims", i)
        _check_entry(entry, "claim", "id, about, source, quote and subclaims", CLAIM_KEYS, ("id", "about", "subclaims"),
                     where, fail)
        if not isinstance(entry["subclaims"], list) or not entry["subclaims"]:
            fail("'subclaims' must be a non-empty list", where + ("subclaims",))
        subclaims = [_checked_subclaim(item, where + ("subclaims", j), fail, lines, extractors)
                     for j, item in enumerate(entry["subclaims"])]
        if not any(sub.role == CORE for sub in subclaims):
            fail("a claim needs a core sub-claim: its verdict rests on its core sub-claims", where + ("subclaims",))
        for key, at in [(str(entry["id"]), where), *((s.id, s.where) for s in subclaims)]:
            if key in seen:
                fail(f"id {key!r} is used twice", at + ("id",))
            seen.add(key)
        claim_notes = method_names(entry["notes"], where + ("notes",), fail) if "notes" in entry else ()
        for name in claim_notes:
            if name not in notes:
                fail(f"unknown note {name!r}", where + ("notes",), hint=f"known: {', '.join(notes) or 'none'}")
        claims.append(ClaimSpec(
            id=str(entry["id"]), about=checked_text(entry["about"], where + ("about",), fail),
            source=checked_text(entry.get("source"), where + ("source",), fail, required=False),
            quote=checked_text(entry.get("quote"), where + ("quote",), fail, required=False),
            subclaims=tuple(subclaims), note=checked_text(entry.get("note"), where + ("note",), fail, required=False),
            notes=claim_notes, multiplicity=one_of(entry, "multiplicity", MULTIPLICITY, default, where, fail),
            controls=controls, where=where, lines=lines,
        ))
    return claims


def error_at(entry: SubClaim | ClaimSpec, source: str | Path, message: str, hint: str | None = None,
             key: KeyPath = ()) -> UserError:
    """A UserError at the line of ``key`` of the claim or sub-claim ``entry`` in the claims file ``source``."""
    return UserError(message, path=source, line=line_of(entry.lines, entry.where + key), hint=hint)
