"""Checked claims as a text table, a CSV file (one row per sub-claim) and a JSON file (claims holding their
sub-claims), the same numbers in each."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from mlhidden.claims.verdicts import CALIBRATION_BASIS, ClaimResult, SubClaimResult
from mlhidden.escaping import terminal_escape
from mlhidden.io import strict_json, text_writer, write_files
from mlhidden.stats.uncertainty import NOT_EVALUATED, NOT_TESTABLE, VERDICTS

CSV_FILE, JSON_FILE = "claims.csv", "claims.json"
CONTROL = "control"
"""The role column of a positive control's row."""


def _subclaim_row(claim: ClaimResult | None, result: SubClaimResult, refutation_p: float = math.nan) -> dict[str, Any]:
    """One sub-claim (or, without ``claim``, a positive control) as a flat row: what it says, its role, its verdict,
    the deciding statistic's numbers, its refutation p adjusted within its claim, and the controls covering it."""
    c, sub = result.comparison, result.spec
    claimed = c.claimed if c is not None and c.claimed is not None else (math.nan, math.nan)
    return {
        "claim": "" if claim is None else claim.key, "subclaim": sub.id, "says": sub.says,
        "role": CONTROL if claim is None else sub.role, "verdict": result.verdict,
        "unit": sub.unit, "effect": math.nan if c is None else c.effect, "low": math.nan if c is None else c.low,
        "high": math.nan if c is None else c.high, "ratio": bool(c is not None and c.ratio),
        "n": 0 if c is None else c.n, "test": "" if c is None else c.test,
        "p_claimed": math.nan if c is None else c.p_claimed, "p_opposite": math.nan if c is None else c.p_opposite,
        "p_equivalent": math.nan if c is None else c.p_equivalent, "claimed_low": claimed[0],
        "claimed_high": claimed[1], "reading": sub.target.reading, "deciding": result.deciding,
        "refutation_p": refutation_p, "multiplicity": "" if claim is None else claim.multiplicity,
        "controls": "; ".join(result.controls), "reading_name": "" if claim is None else claim.reading,
        **_calibration_columns(result),
    }


def _calibration_columns(result: SubClaimResult | ClaimResult) -> dict[str, Any]:
    """The verdict on the paper's own numbers, its deciding statistic and the flag ("" and False when none)."""
    calibration = result.calibration
    return {
        "calibration": "" if calibration is None else calibration.verdict,
        "calibration_deciding": "" if calibration is None else calibration.deciding,
        "cannot_confirm": result.cannot_confirm,
    }


def _rows(claim: ClaimResult) -> list[dict[str, Any]]:
    """The claim's sub-claims as rows, each with its adjusted refutation p."""
    return [_subclaim_row(claim, result, p) for result, p in zip(claim.subclaims, claim.refutation)]


def _controls(results: Sequence[ClaimResult]) -> list[SubClaimResult]:
    """The file's positive controls, decided (every claim holds them all)."""
    return list(results[0].controls) if results else []


def counts(results: Sequence[ClaimResult]) -> str:
    """How many claims and sub-claims got each verdict, in one line."""
    def tally(verdicts: list[str]) -> str:
        return ", ".join(f"{verdicts.count(v)} {v}" for v in (*VERDICTS, NOT_TESTABLE, NOT_EVALUATED)
                         if verdicts.count(v))

    def many(count: int, noun: str) -> str:
        return f"{count} {noun}{'' if count == 1 else 's'}"

    subclaims = [s.verdict for claim in results for s in claim.subclaims]
    return (f"{many(len(results), 'claim')}: {tally([c.verdict for c in results])}; "
            f"{many(len(subclaims), 'sub-claim')}: {tally(subclaims)}")


def text_table(results: Sequence[ClaimResult]) -> str:
    """A claim's line (id, verdict, about), then one indented line per sub-claim with its deciding statistic.

    Every line is for a terminal (:func:`~mlhidden.escaping.terminal_escape`): ids, statements and
    names come from the claims file and the runs, and none may start a line or drive the terminal.
    """
    lines = []
    for control in _controls(results):
        lines.append(f"control {control.spec.id}  {control.verdict}: {control.spec.says}")
        lines.append(f"      {control.deciding}")
    for claim in results:
        flag = f"  [{claim.calibrated}]" if claim.cannot_confirm else ""
        lines.append(f"{claim.key}  {claim.verdict.upper()}  {claim.statement}{flag}")
        if claim.refutation_line():
            lines.append(f"  {claim.refutation_line()}")
        for result in claim.subclaims:
            lines.append(f"  {result.spec.id}  {result.spec.role}  {result.verdict}: {result.spec.says}")
            lines.append(f"      {result.deciding}")
            if result.calibrated:
                lines.append(f"      {result.calibrated}: {result.calibration.deciding if result.calibration else ''}")
        lines += [f"  note: {note}" for note in claim.notes]
    if any(result.calibrated for claim in results for result in claim.subclaims):
        lines.append(f"on the paper's own numbers: {CALIBRATION_BASIS}")
    return "\n".join([*map(terminal_escape, lines), counts(results)]) + "\n"


def write_outputs(results: Sequence[ClaimResult], out_dir: str | Path) -> list[Path]:
    """claims.csv and claims.json under ``out_dir``, both or neither (:func:`~mlhidden.io.write_files`);
    returns their paths."""
    rows = [*(_subclaim_row(None, control) for control in _controls(results)),
            *(row for claim in results for row in _rows(claim))]
    document = [
        {
            "claim": claim.key, "about": claim.statement, "source": claim.spec.source, "quote": claim.spec.quote,
            "verdict": claim.verdict, "deciding": claim.deciding, "multiplicity": claim.multiplicity,
            "refutation_p": claim.refutation_p, "notes": list(claim.notes),
            "reading_name": claim.reading, **_calibration_columns(claim),
            "controls": [
                {key: value for key, value in _subclaim_row(None, control).items() if key != "claim"}
                for control in claim.controls
                if any(control.spec.id in result.controls for result in claim.subclaims)
            ],
            "subclaims": [{key: value for key, value in row.items() if key != "claim"} for row in _rows(claim)],
        }
        for claim in results
    ]
    return write_files([
        (Path(out_dir) / CSV_FILE, text_writer(pd.DataFrame(rows).to_csv(index=False, float_format="%.6g"))),
        (Path(out_dir) / JSON_FILE, text_writer(strict_json(document, indent=2, ensure_ascii=False) + "\n")),
    ])
