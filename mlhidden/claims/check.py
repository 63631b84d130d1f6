"""Checking a claims file against stored runs: a verdict per sub-claim, then per claim.

A sub-claim's values come from its run's stored units (one row per dataset, method and split), or
from a named extractor for evidence a store row does not hold (the caller passes the extractors it
knows). They become one number per unit of replication, the statistic (a method's value, A − f·B,
or log A / B), which :mod:`mlhidden.stats.replication` compares with the claimed range. Anything
missing from the runs makes its sub-claim "not evaluated", with the reason; a name the runs cannot
have (an unknown method, dataset or metric) is the file's mistake, one error at the line of its key.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np
import pandas as pd

from mlhidden.claims.runs import StoredRuns
from mlhidden.claims.spec import ClaimSpec, SubClaim, error_at, read_claims
from mlhidden.errors import UserError, did_you_mean
from mlhidden.runs.metrics import METRICS
from mlhidden.stats.replication import DATASETS, SPLITS, against_control, by_unit
from mlhidden.stats.uncertainty import NOT_EVALUATED, Comparison, combine, deciding
from mlhidden.yaml_lines import KeyPath

Extractor = Callable[[StoredRuns, SubClaim], "pd.DataFrame | str"]
"""Evidence a store row does not hold: a frame of dataset, method, split, value (and group), or why there is none.

It gets the sub-claim with its ``run`` resolved; ``params`` it cannot use are a UserError without a path,
which the checker puts at the sub-claim's ``params`` line (the file's mistake, whatever the runs hold)."""
Note = Callable[[StoredRuns, ClaimSpec], str]
"""A line of context for a claim, computed from the runs ("" when they lack what it needs); a claim it
cannot speak to is a UserError without a path, put at the claim's ``notes`` line."""
UNIT_COLUMNS = ["dataset", "method", "split"]
T = TypeVar("T")


@dataclass(frozen=True)
class SubClaimResult:
    """A sub-claim's verdict and the comparison that gave it (None, with ``why``, when not evaluated)."""

    spec: SubClaim
    verdict: str
    comparison: Comparison | None = None
    why: str = ""

    @property
    def deciding(self) -> str:
        """The deciding statistic in one line, or why there is none."""
        return self.comparison.describe() if self.comparison is not None else self.why

    @property
    def numbers(self) -> str:
        """Our numbers behind the verdict: the effect, its interval and n ("" when not evaluated)."""
        if self.comparison is None:
            return ""
        return f"{self.comparison.estimate()}, n = {self.comparison.n} {self.comparison.unit}"


@dataclass(frozen=True)
class ClaimResult:
    """A claim's verdict, combined from its sub-claims', and its notes."""

    spec: ClaimSpec
    verdict: str
    subclaims: tuple[SubClaimResult, ...]
    notes: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        return self.spec.id

    @property
    def statement(self) -> str:
        return self.spec.about

    @property
    def comparisons(self) -> tuple[Comparison, ...]:
        return tuple(s.comparison for s in self.subclaims if s.comparison is not None)

    @property
    def deciding(self) -> str:
        """The deciding sub-claim's id and statistic ("" when none was evaluated)."""
        if not self.comparisons:
            return ""
        decider = deciding(self.comparisons)
        subclaim = next(s for s in self.subclaims if s.comparison is decider)
        return f"{subclaim.spec.id}: {subclaim.deciding}"

    @property
    def evidence(self) -> str:
        """The sub-claims' verdicts in one line, then the notes."""
        verdicts = "; ".join(f"{s.spec.id} {s.verdict}" for s in self.subclaims)
        return " ".join([verdicts + ".", *self.notes]) if self.notes else verdicts


def _selected(frame: pd.DataFrame, sub: SubClaim, runs: StoredRuns, run: str) -> pd.DataFrame | str:
    """The rows of the datasets ``sub`` is about, or why there are none."""
    chosen = sub.datasets
    if chosen.names:
        frame = frame[frame["dataset"].isin(chosen.names)]
    if chosen.group is not None:
        frame = frame[frame["group"] == chosen.group] if "group" in frame else frame.iloc[:0]
    if chosen.min_samples is not None:
        sizes = runs.shapes(run)["n_samples"]
        frame = frame[frame["dataset"].map(sizes) >= chosen.min_samples]
    if frame.empty:
        return f"run '{run}' has no result on the datasets chosen ({chosen.describe()})"
    return frame


def _side(table: pd.DataFrame, methods: Sequence[str]) -> pd.Series:
    return table[list(methods)].mean(axis=1, skipna=False)


def statistic(table: pd.DataFrame, sub: SubClaim) -> pd.Series:
    """The sub-claim's statistic from a table of units x methods (NaN where a method lacks the unit)."""
    first = _side(table, sub.sides[0])
    if sub.statistic == "value":
        return first
    second = _side(table, sub.sides[1])
    if sub.statistic == "difference":
        return first - sub.factor * second
    with np.errstate(divide="ignore", invalid="ignore"):
        return pd.Series(np.log(first / second), index=table.index)


def _label(sub: SubClaim, metric: str) -> str:
    if sub.statistic == "ranks":
        side = "above" if sub.target.high == np.inf else "below"
        return f"{sub.sides[0][0]} ranks {side} each of {len(sub.sides[1])} methods, average rank gap in {metric}"
    names = [" + ".join(side) if len(side) == 1 else f"mean({', '.join(side)})" for side in sub.sides]
    if sub.statistic == "value":
        text = names[0]
    elif sub.statistic == "difference":
        text = f"{names[0]} − {'' if sub.factor == 1 else f'{sub.factor:g} × '}{names[1]}"
    else:
        text = f"{names[0]} / {names[1]}"
    return f"{text}, {metric}"


class Checker:
    """Decides sub-claims and claims from ``runs``; ``source`` (the claims file) is named in errors.

    ``strict``: a method, dataset or metric the run does not have is the file's mistake (a UserError at
    its key's line); otherwise the sub-claim is "not evaluated" with the reason, as for a run
    made from a config that differs from the one the file was written for.
    """

    def __init__(self, runs: StoredRuns, source: str | Path, extractors: Mapping[str, Extractor] | None = None,
                 notes: Mapping[str, Note] | None = None, strict: bool = True):
        self.runs, self.source, self.strict = runs, source, strict
        self.extractors, self.notes = dict(extractors or {}), dict(notes or {})

    def _frame(self, sub: SubClaim, run: str) -> pd.DataFrame | str:
        try:
            return self._units(sub, run)
        except UserError as error:
            if self.strict:
                raise
            return error.message

    def _blamed(self, entry: SubClaim | ClaimSpec, key: KeyPath, what: str, compute: Callable[[], T]) -> T:
        """``compute()``; a UserError it raises without a path is the file's, put at ``key`` of ``entry``."""
        try:
            return compute()
        except UserError as error:
            if error.path is not None:
                raise
            raise error_at(entry, self.source, f"{what}: {error.message}", error.hint, key) from None

    def _units(self, sub: SubClaim, run: str) -> pd.DataFrame | str:
        if sub.extractor is not None:
            extract = functools.partial(self.extractors[sub.extractor], self.runs, dataclasses.replace(sub, run=run))
            return self._blamed(sub, ("params",) if sub.params else ("extractor",), f"extractor {sub.extractor!r}",
                                extract)
        units = self.runs.ok_units(run)
        metrics = [c for c in units.columns if c in METRICS or c.endswith("_seconds")]
        if sub.metric not in metrics:
            raise error_at(sub, self.source, f"run '{run}' has no metric {sub.metric!r}", key=("metric",),
                           hint=f"{did_you_mean(sub.metric, metrics)}its metrics: {', '.join(metrics)}")
        stored = self.runs[run]
        assert stored is not None
        methods = stored.methods
        for name in dict.fromkeys(m for side in (*sub.sides, sub.ranked) for m in side):
            if name not in methods:
                raise error_at(sub, self.source, f"run '{run}' has no method {name!r}",
                               hint=f"{did_you_mean(name, methods)}its methods: {', '.join(sorted(methods))}",
                               key=("methods",) if sub.statistic == "ranks" else (sub.statistic,))
        for name in sub.datasets.names:
            if name not in stored.datasets:
                raise error_at(sub, self.source, f"run '{run}' has no dataset {name!r}",
                               hint=f"{did_you_mean(name, stored.datasets)}its datasets: {', '.join(stored.datasets)}",
                               key=("datasets", "names"))
        groups = sorted(set(units["group"].dropna()))
        if sub.datasets.group is not None and sub.datasets.group not in groups:
            raise error_at(sub, self.source, f"run '{run}' has no group {sub.datasets.group!r}",
                           hint=f"{did_you_mean(sub.datasets.group, groups)}its groups: {', '.join(groups) or 'none'}",
                           key=("datasets", "group"))
        return units.rename(columns={sub.metric: "value"})

    def subclaim(self, sub: SubClaim) -> SubClaimResult:
        run = sub.run or self.runs.only()
        if run is None:
            raise error_at(sub, self.source, "sub-claim names no run, and several runs were given",
                           hint=f"add run: one of {', '.join(self.runs.paths)}")
        try:
            run = self.runs.key(run)
        except UserError as error:
            raise error_at(sub, self.source, error.message, hint=error.hint) from None
        sub = dataclasses.replace(sub, run=run)  # the extractors read the run by the name it is known by
        if self.runs[run] is None:
            return SubClaimResult(sub, NOT_EVALUATED, why=f"no results for run '{run}'")
        frame = self._frame(sub, run)
        if isinstance(frame, str):
            return SubClaimResult(sub, NOT_EVALUATED, why=frame)
        frame = _selected(frame, sub, self.runs, run)
        if isinstance(frame, str):
            return SubClaimResult(sub, NOT_EVALUATED, why=frame)
        label = _label(sub, sub.metric)
        wanted = [m for side in (*sub.sides, sub.ranked) for m in side]
        lacking = sorted(set(wanted) - set(frame["method"]))
        if lacking:
            return SubClaimResult(sub, NOT_EVALUATED, why=f"run '{run}' has no result for {', '.join(lacking)}")
        if sub.statistic == "ranks":
            scores = frame.pivot_table(index="dataset", columns="method", values="value", sort=False)[list(sub.ranked)]
            higher = sub.metric in METRICS and METRICS[sub.metric].higher_is_better  # else a time (..._seconds)
            claimed_above = sub.target.high == np.inf
            comparison = against_control(label, scores if higher else -scores, sub.sides[0][0], sub.sides[1],
                                         better=claimed_above, reading=sub.target.reading)
            return SubClaimResult(sub, comparison.verdict, comparison)
        table = frame.pivot_table(index=["dataset", "split"], columns="method", values="value", sort=False)
        if sub.unit == DATASETS:
            table = table.groupby(level=0, sort=False).mean()
            table.index = pd.MultiIndex.from_arrays([table.index, [0] * len(table)])
        values = statistic(table, sub).replace([np.inf, -np.inf], np.nan).dropna()
        if values.empty:
            return SubClaimResult(sub, NOT_EVALUATED, why=f"no unit of run '{run}' has every method's value")
        datasets = values.index.get_level_values(0).unique()
        if sub.unit == SPLITS and len(datasets) != 1:
            raise error_at(sub, self.source, f"unit 'splits' needs one dataset; the selection has {len(datasets)}",
                           hint="choose one dataset, or use unit: datasets x splits", key=("unit",))
        comparison = by_unit(label, values, sub.unit, sub.target, self.runs.test_train_ratio(run))
        return SubClaimResult(sub, comparison.verdict, comparison)

    def claim(self, spec: ClaimSpec) -> ClaimResult:
        results = tuple(self.subclaim(sub) for sub in spec.subclaims)
        evaluated = [r.verdict for r in results if r.verdict != NOT_EVALUATED]
        verdict = combine(r.verdict for r in results) if evaluated else NOT_EVALUATED
        notes = tuple(text for text in (
            self._blamed(spec, ("notes",), f"note {name!r}", functools.partial(self.notes[name], self.runs, spec))
            for name in spec.notes
        ) if text)
        return ClaimResult(spec, verdict, results, notes)


def check_claims(claims_file: str | Path, run_dirs: Sequence[str | os.PathLike[str]],
                 extractors: Mapping[str, Extractor] | None = None,
                 notes: Mapping[str, Note] | None = None) -> list[ClaimResult]:
    """Every claim of ``claims_file`` decided on the runs in ``run_dirs`` (run directories, or folders of them).

    One :class:`ClaimResult` per claim, in the file's order. ``extractors`` and ``notes`` are the
    named evidence and context lines the file may use (``mlhidden claims`` passes the paper's).
    """
    claims = read_claims(claims_file, extractors=list(extractors or {}), notes=list(notes or {}))
    runs = StoredRuns(run_dirs)
    if not runs.paths:
        raise UserError("no stored run here", path=run_dirs[0] if run_dirs else None,
                        hint="give a run directory made by mlhidden run, or a folder of them")
    checker = Checker(runs, claims_file, extractors, notes)
    return [checker.claim(spec) for spec in claims]
