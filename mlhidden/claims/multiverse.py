"""Every claim under every declared specification: the multiverse of a claims file.

A specification is one choice on each dimension the analyst could have made otherwise (Steegen et
al. 2016; Simonsohn et al. 2020):

- the **world**: a folder of stored runs, one per setting and split seed (the paper's multiverse puts
  them at ``<out>/<setting>/seed<k>/``); its seed is the one its runs were made with;
- the **reading**: the primary reading or one of the alternatives the file declares for the claim
  (:attr:`~mlhidden.claims.spec.ClaimSpec.readings`);
- the **multiplicity** method that controls a refutation across the claim's core sub-claims (Holm, the
  file's default, and Bonferroni: :data:`MULTIPLICITY_METHODS`).

A claim's specifications are the product of the three, so their number is the product of the
dimensions' sizes. Each is decided by the same :class:`~mlhidden.claims.check.Checker` as a single
check; :func:`verdict_shares` and :func:`curve_frame` summarise them (the specification curve:
:mod:`mlhidden.report.specification_curve` draws it).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from mlhidden.claims.check import Checker, Extractor, Note
from mlhidden.claims.runs import StoredRuns
from mlhidden.claims.spec import ClaimSpec, read_claims
from mlhidden.claims.verdicts import ClaimResult
from mlhidden.errors import UserError
from mlhidden.io import text_writer, write_files
from mlhidden.stats.uncertainty import BONFERRONI, HOLM, NOT_EVALUATED, VERDICTS, Comparison, deciding

MULTIPLICITY_METHODS = (HOLM, BONFERRONI)
"""The multiverse's multiplicity dimension: the family-wise controls of a refutation. No correction is not one of
them: it does not control the error of rejecting a union of hypotheses, so it is no reasonable specification."""
MULTIVERSE_FILE = "multiverse.csv"
CURVE_COLUMNS = [
    "claim", "world", "setting", "seed", "reading", "multiplicity", "verdict", "subclaim", "margin", "low", "high",
    "ratio",
]
"""One row per (claim, specification) of :func:`curve_frame`."""


@dataclass(frozen=True)
class Specification:
    """One choice per dimension: the world's folder (as given), its seed, the reading and the multiplicity method."""

    world: str
    seed: int | None
    reading: str
    multiplicity: str


@dataclass(frozen=True)
class SpecificationResult:
    """A claim decided under one :class:`Specification`."""

    specification: Specification
    result: ClaimResult


def world_setting(world: str) -> str:
    """The setting a world stands for: its folder's path without a last ``seed<k>`` part (``a/seed2`` is ``a``)."""
    path = Path(world)
    return str(path.parent) if re.fullmatch(r"seed\d+", path.name) and path.parent != Path(".") else str(path)


def world_seed(runs: StoredRuns) -> int | None:
    """The split seed every run of a world was made with (None when they differ or there is none)."""
    seeds = {runs.record(name).seed for name in runs.paths if runs[name] is not None}
    return seeds.pop() if len(seeds) == 1 else None


def _each_once(worlds: Sequence[str | os.PathLike[str]]) -> list[str | os.PathLike[str]]:
    """The worlds in order, each folder once: the primary world may be given first and again in a glob."""
    seen: set[Path] = set()
    kept = []
    for world in worlds:
        if Path(world).resolve() not in seen:
            seen.add(Path(world).resolve())
            kept.append(world)
    return kept


def decide_multiverse(
    claims: Sequence[ClaimSpec], worlds: Sequence[str | os.PathLike[str]], source: str | Path,
    extractors: Mapping[str, Extractor] | None = None, notes: Mapping[str, Note] | None = None,
    multiplicities: Sequence[str] = MULTIPLICITY_METHODS, strict: bool = False,
) -> dict[str, list[SpecificationResult]]:
    """Claim id -> the claim decided under each specification, worlds outermost, in the order given.

    ``source`` is the claims file (named in errors); a world missing a run a claim needs leaves
    that claim "not evaluated" there (``strict=False``), as one setting may lack an experiment.
    """
    if not worlds:
        raise UserError("a multiverse needs at least one world", hint="give one folder of runs per setting and seed")
    decided: dict[str, list[SpecificationResult]] = {claim.id: [] for claim in claims}
    for world in _each_once(worlds):
        runs = StoredRuns([world])
        checker = Checker(runs, source, extractors, notes, strict=strict)
        seed = world_seed(runs)
        for claim in claims:
            for reading in claim.readings:
                for multiplicity in multiplicities:
                    result = checker.claim(claim, reading=reading, multiplicity=multiplicity)
                    decided[claim.id].append(SpecificationResult(
                        Specification(str(world), seed, reading, multiplicity), result))
    return decided


def check_multiverse(
    claims_file: str | Path, worlds: Sequence[str | os.PathLike[str]],
    extractors: Mapping[str, Extractor] | None = None, notes: Mapping[str, Note] | None = None,
) -> dict[str, list[SpecificationResult]]:
    """Every claim of ``claims_file`` over the worlds given (see :func:`decide_multiverse`)."""
    claims = read_claims(claims_file, extractors=list(extractors or {}), notes=list(notes or {}))
    return decide_multiverse(claims, worlds, claims_file, extractors, notes)


def verdict_shares(verdicts: Sequence[str]) -> dict[str, float]:
    """The share of the evaluated specifications giving each verdict (a world without the runs a claim needs
    does not count; those given by none are left out)."""
    evaluated = [v for v in verdicts if v != NOT_EVALUATED]
    order = [*VERDICTS, *sorted(set(evaluated) - set(VERDICTS))]
    return {v: evaluated.count(v) / len(evaluated) for v in order if evaluated.count(v)}


def verdict_shares_line(verdicts: Sequence[str]) -> str:
    """The shares in one line: "holds 40% (12 of 30), inconclusive 60% (18 of 30); 6 not evaluated"."""
    evaluated = sum(v != NOT_EVALUATED for v in verdicts)
    shares = ", ".join(f"{verdict} {share:.0%} ({round(share * evaluated)} of {evaluated})"
                       for verdict, share in verdict_shares(verdicts).items())
    missing = len(verdicts) - evaluated
    return "; ".join(filter(None, [shares, f"{missing} not evaluated" if missing else ""]))


def _margin(comparison: Comparison) -> tuple[float, float, float]:
    """The comparison's effect and interval as the distance from its claimed boundary, positive on the claimed side.

    Sub-claims of one claim differ in scale and direction; this puts every specification's deciding
    comparison on one axis: above 0 is the side the claim states, for a range the nearer end counts.
    """
    low_end, high_end = comparison.claimed if comparison.claimed is not None else (0.0, math.inf)
    if math.isinf(high_end):
        return comparison.effect - low_end, comparison.low - low_end, comparison.high - low_end
    if math.isinf(low_end):
        return high_end - comparison.effect, high_end - comparison.high, high_end - comparison.low
    def inside(x: float) -> float:
        return min(x - low_end, high_end - x)

    middle = min(max((low_end + high_end) / 2, comparison.low), comparison.high)
    return inside(comparison.effect), min(inside(comparison.low), inside(comparison.high)), inside(middle)


def curve_frame(decided: Mapping[str, Sequence[SpecificationResult]]) -> pd.DataFrame:
    """One row per claim and specification (:data:`CURVE_COLUMNS`): its verdict and its deciding comparison's margin.

    ``margin``, ``low`` and ``high`` are the deciding core sub-claim's effect and interval as the
    distance from the boundary it claims (:func:`_margin`; on a log scale for a ratio); NaN where no
    sub-claim was evaluated.
    """
    rows = []
    for claim_id, results in decided.items():
        for item in results:
            spec, result = item.specification, item.result
            compared = [s for s in result.subclaims if s.comparison is not None and s.spec.role == "core"]
            margin = low = high = math.nan
            subclaim, ratio = "", False
            if compared and result.verdict != NOT_EVALUATED:
                decider = deciding([s.comparison for s in compared if s.comparison is not None])
                chosen = next(s for s in compared if s.comparison is decider)
                margin, low, high = _margin(decider)
                subclaim, ratio = chosen.spec.id, decider.ratio
            rows.append([claim_id, spec.world, world_setting(spec.world), spec.seed, spec.reading, spec.multiplicity,
                         result.verdict, subclaim,
                         margin, low, high, ratio])
    return pd.DataFrame(rows, columns=CURVE_COLUMNS)


def multiverse_lines(decided: Mapping[str, Sequence[SpecificationResult]]) -> list[str]:
    """Per claim one line: its verdict under the primary specification (the first world, the primary reading,
    Holm) and the shares over every specification."""
    lines = []
    for claim_id, results in decided.items():
        primary = results[0].result.verdict if results else NOT_EVALUATED
        shares = verdict_shares_line([r.result.verdict for r in results])
        lines.append(f"{claim_id}  primary: {primary.upper()}; {len(results)} specifications: {shares}")
    return lines


def write_curve_frame(frame: pd.DataFrame, out_dir: str | Path, name: str = MULTIVERSE_FILE) -> Path:
    """``name`` under ``out_dir``: :func:`curve_frame`'s rows; its path."""
    path = Path(out_dir) / name
    write_files([(path, text_writer(frame.to_csv(index=False, float_format="%.6g")))])
    return path
