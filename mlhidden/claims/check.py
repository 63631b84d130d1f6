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
from pathlib import Path
from typing import TypeVar

import numpy as np
import pandas as pd

from mlhidden.claims.runs import StoredRuns
from mlhidden.claims.spec import CORE, PRIMARY, ClaimSpec, SubClaim, error_at, read_claims
from mlhidden.claims.spec_values import DatasetSelection
from mlhidden.claims.verdicts import ClaimResult, SubClaimResult
from mlhidden.errors import UserError, did_you_mean
from mlhidden.runs.metrics import METRICS
from mlhidden.stats.replication import (
    AVERAGE_RANK,
    DATASETS,
    SPLITS,
    TOP_SHARE,
    against_control,
    against_control_per_dataset,
    by_unit,
    top_share,
)
from mlhidden.stats.uncertainty import (
    HOLDS,
    NOT_EVALUATED,
    NOT_TESTABLE,
    Comparison,
    adjusted,
    claim_verdict,
)
from mlhidden.yaml_lines import KeyPath

Extractor = Callable[[StoredRuns, SubClaim], "pd.DataFrame | str"]
"""Evidence a store row does not hold: a frame of dataset, method, split, value (and group), or why there is none.

It gets the sub-claim with its ``run`` resolved; ``params`` it cannot use are a UserError without a path,
which the checker puts at the sub-claim's ``params`` line (the file's mistake, whatever the runs hold)."""
Note = Callable[[StoredRuns, ClaimSpec], str]
"""A line of context for a claim, computed from the runs ("" when they lack what it needs); a claim it
cannot speak to is a UserError without a path, put at the claim's ``notes`` line."""
Calibrate = Callable[[StoredRuns, "str | Path"], "Checker"]
"""A checker of a claims file on the paper's own numbers behind the runs given (the paper's is
:func:`mlhidden.paper.calibration.calibration_checker`)."""
UNIT_COLUMNS = ["dataset", "method", "split"]
T = TypeVar("T")
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
        if sub.rank_test == TOP_SHARE:
            end = "first" if side == "above" else "last"
            return f"{sub.sides[0][0]} {end} against {len(sub.sides[1])} methods, share of datasets, {metric}"
        if sub.rank_test != AVERAGE_RANK:
            return f"{sub.sides[0][0]} scores {side} each of {len(sub.sides[1])} methods, dataset by dataset, {metric}"
        return f"{sub.sides[0][0]} ranks {side} each of {len(sub.sides[1])} methods, average rank gap in {metric}"
    names = [" + ".join(side) if len(side) == 1 else f"mean({', '.join(side)})" for side in sub.sides]
    if sub.statistic == "value":
        text = names[0]
    elif sub.statistic == "difference":
        text = f"{names[0]} − {'' if sub.factor == 1 else f'{sub.factor:g} × '}{names[1]}"
    else:
        text = f"{names[0]} / {names[1]}"
    return f"{text}, {metric}"


def _ranked(label: str, scores: pd.DataFrame, sub: SubClaim) -> Comparison:
    """A ranks sub-claim on datasets x methods (higher is better) by its test: average rank, per dataset, or the
    share of datasets the control tops (its size the share, whichever end its direction names)."""
    better = sub.target.high == np.inf
    if sub.rank_test == AVERAGE_RANK:
        return against_control(label, scores, sub.sides[0][0], sub.sides[1], better=better,
                               reading=sub.target.reading)
    if sub.rank_test == TOP_SHARE:
        return top_share(label, scores, sub.sides[0][0], sub.sides[1], share=sub.target.boundary, better=better,
                         reading=sub.target.reading)
    return against_control_per_dataset(label, scores, sub.sides[0][0], sub.sides[1], better=better,
                                       reading=sub.target.reading, smallest_effect=sub.target.smallest_effect)


class Checker:
    """Decides sub-claims and claims from ``runs``; ``source`` (the claims file) is named in errors.

    ``strict``: a method, dataset or metric the run does not have is the file's mistake (a UserError at
    its key's line); otherwise the sub-claim is "not evaluated" with the reason, as for a run
    made from a config that differs from the one the file was written for. ``calibration``: a checker
    of the same file on the paper's own printed numbers, whose verdicts go beside each result's; a
    checker given no notes writes none.
    """

    def __init__(self, runs: StoredRuns, source: str | Path, extractors: Mapping[str, Extractor] | None = None,
                 notes: Mapping[str, Note] | None = None, strict: bool = True, calibration: Checker | None = None):
        self.runs, self.source, self.strict, self.calibration = runs, source, strict, calibration
        self.extractors, self.notes = dict(extractors or {}), dict(notes or {})
        self._controls: dict[str, SubClaimResult] = {}
        self._chosen: dict[tuple[str, DatasetSelection], set[str]] = {}
        self._decisions: dict[tuple[int, tuple[str, ...]], tuple[SubClaim, SubClaimResult]] = {}

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

    def subclaim(self, sub: SubClaim, controls: Sequence[SubClaim] = ()) -> SubClaimResult:
        """The sub-claim decided, or "not testable" where one of the positive ``controls`` covering it fails: is
        decided and does not hold (a control the runs lack the evidence for is shown as not evaluated, and
        leaves the sub-claims it covers as they are)."""
        key = (id(sub), tuple(control.id for control in controls))  # asked again for each reading and multiplicity
        if key not in self._decisions:
            self._decisions[key] = (sub, self._tested(sub, controls))
        return self._decisions[key][1]

    def _tested(self, sub: SubClaim, controls: Sequence[SubClaim]) -> SubClaimResult:
        result = self._decided(sub)
        if self.runs[str(result.spec.run)] is None:
            return result
        covering = [control for control in self.controls(controls) if self._covers(control.spec, result.spec)]
        failed = next((control for control in covering if control.verdict not in (HOLDS, NOT_EVALUATED)), None)
        ids = tuple(control.spec.id for control in covering)
        if failed is not None and result.verdict != NOT_EVALUATED:
            why = (f"control {failed.spec.id} ({failed.spec.says}) {failed.verdict} on run '{failed.spec.run}': "
                   f"{failed.deciding}")
            return SubClaimResult(result.spec, NOT_TESTABLE, why=why, controls=ids)
        return dataclasses.replace(result, controls=ids)

    def _decided(self, sub: SubClaim) -> SubClaimResult:
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
            comparison = _ranked(label, scores if higher else -scores, sub)
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

    def controls(self, controls: Sequence[SubClaim]) -> list[SubClaimResult]:
        """Each positive control decided (once per checker): it passes only when it holds."""
        for control in controls:
            if control.id not in self._controls:
                self._controls[control.id] = self._decided(control)
        return [self._controls[control.id] for control in controls]

    def _datasets(self, sub: SubClaim) -> set[str]:
        """The names of the datasets of its run that ``sub`` (its run resolved) is about."""
        key = (str(sub.run), sub.datasets)
        if key not in self._chosen:
            chosen = _selected(self.runs.ok_units(key[0]), sub, self.runs, key[0])
            self._chosen[key] = set() if isinstance(chosen, str) else set(chosen["dataset"])
        return self._chosen[key]

    def _covers(self, control: SubClaim, sub: SubClaim) -> bool:
        """Whether ``control`` covers ``sub``: its run or one it ``covers``, and datasets in common (a control
        whose own run was not given covers nothing)."""
        given = self.runs[str(sub.run)] is not None and self.runs[str(control.run)] is not None
        if sub.run not in (control.run, *control.covers) or not given:
            return False
        return bool(self._datasets(control) & self._datasets(sub))

    def claim(self, spec: ClaimSpec, *, reading: str = PRIMARY, multiplicity: str | None = None) -> ClaimResult:
        """The claim decided under ``reading`` (one of ``spec.readings``: each sub-claim under its alternative
        of that name where it declares one, else under its primary reading), on its core sub-claims, its
        refutation adjusted by ``multiplicity`` (None: the file's)."""
        if reading not in spec.readings:
            raise error_at(spec, self.source, f"claim {spec.id} has no reading {reading!r}",
                           hint=f"{did_you_mean(reading, spec.readings)}its readings: {', '.join(spec.readings)}")
        method = multiplicity or spec.multiplicity
        results = tuple(self.subclaim(sub.under(reading), spec.controls) for sub in spec.subclaims)
        core = [r.spec.role == CORE for r in results]
        p_opposite = [r.comparison.p_opposite if is_core and r.comparison is not None else np.nan
                      for r, is_core in zip(results, core)]
        refutation = adjusted(p_opposite, method)
        verdict = claim_verdict([r.verdict for r, is_core in zip(results, core) if is_core],
                                [p for p, is_core in zip(refutation, core) if is_core])
        notes = tuple(text for text in (
            self._blamed(spec, ("notes",), f"note {name!r}", functools.partial(self.notes[name], self.runs, spec))
            for name in spec.notes if name in self.notes
        ) if text)
        return self._calibrated(ClaimResult(spec, verdict, results, notes, method, tuple(float(p) for p in refutation),
                                            tuple(self.controls(spec.controls)), reading), multiplicity=method)

    def _calibrated(self, result: ClaimResult, multiplicity: str) -> ClaimResult:
        """``result`` with the calibration checker's verdicts of the same claim, reading and multiplicity beside it."""
        if self.calibration is None:
            return result
        on_paper = self.calibration.claim(result.spec, reading=result.reading, multiplicity=multiplicity)
        subclaims = tuple(dataclasses.replace(mine, calibration=theirs)
                          for mine, theirs in zip(result.subclaims, on_paper.subclaims, strict=True))
        return dataclasses.replace(result, subclaims=subclaims, calibration=on_paper)


def check_claims(claims_file: str | Path, run_dirs: Sequence[str | os.PathLike[str]],
                 extractors: Mapping[str, Extractor] | None = None,
                 notes: Mapping[str, Note] | None = None, calibrate: Calibrate | None = None) -> list[ClaimResult]:
    """Every claim of ``claims_file`` decided on the runs in ``run_dirs`` (run directories, or folders of them).

    One :class:`ClaimResult` per claim, in the file's order. ``extractors`` and ``notes`` are the
    named evidence and context lines the file may use, ``calibrate`` makes the checker of the paper's
    own numbers (``mlhidden claims`` passes the paper's).
    """
    claims = read_claims(claims_file, extractors=list(extractors or {}), notes=list(notes or {}))
    runs = StoredRuns(run_dirs)
    if not runs.paths:
        raise UserError("no stored run here", path=run_dirs[0] if run_dirs else None,
                        hint="give a run directory made by mlhidden run, or a folder of them")
    checker = Checker(runs, claims_file, extractors, notes,
                      calibration=calibrate(runs, claims_file) if calibrate is not None else None)
    return [checker.claim(spec) for spec in claims]
