"""Checked claims as a text table, a CSV file (one row per sub-claim) and a JSON file (claims holding their
sub-claims), the same numbers in each."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from mlhidden.claims.check import ClaimResult, SubClaimResult
from mlhidden.io import strict_json, text_writer, write_files
from mlhidden.report.escaping import terminal_escape
from mlhidden.stats.uncertainty import VERDICTS

CSV_FILE, JSON_FILE = "claims.csv", "claims.json"


def _subclaim_row(claim: ClaimResult, result: SubClaimResult) -> dict[str, Any]:
    """One sub-claim as a flat row: what it says, its verdict and the deciding statistic's numbers."""
    c, sub = result.comparison, result.spec
    claimed = c.claimed if c is not None and c.claimed is not None else (math.nan, math.nan)
    return {
        "claim": claim.key, "subclaim": sub.id, "says": sub.says, "verdict": result.verdict,
        "unit": sub.unit, "effect": math.nan if c is None else c.effect, "low": math.nan if c is None else c.low,
        "high": math.nan if c is None else c.high, "ratio": bool(c is not None and c.ratio),
        "n": 0 if c is None else c.n, "test": "" if c is None else c.test,
        "p_claimed": math.nan if c is None else c.p_claimed, "p_opposite": math.nan if c is None else c.p_opposite,
        "p_equivalent": math.nan if c is None else c.p_equivalent, "claimed_low": claimed[0],
        "claimed_high": claimed[1], "reading": sub.target.reading, "deciding": result.deciding,
    }


def counts(results: Sequence[ClaimResult]) -> str:
    """How many claims and sub-claims got each verdict, in one line."""
    def tally(verdicts: list[str]) -> str:
        return ", ".join(f"{verdicts.count(v)} {v}" for v in (*VERDICTS, "not evaluated") if verdicts.count(v))

    def many(count: int, noun: str) -> str:
        return f"{count} {noun}{'' if count == 1 else 's'}"

    subclaims = [s.verdict for claim in results for s in claim.subclaims]
    return (f"{many(len(results), 'claim')}: {tally([c.verdict for c in results])}; "
            f"{many(len(subclaims), 'sub-claim')}: {tally(subclaims)}")


def text_table(results: Sequence[ClaimResult]) -> str:
    """A claim's line (id, verdict, about), then one indented line per sub-claim with its deciding statistic.

    Every line is for a terminal (:func:`~mlhidden.report.escaping.terminal_escape`): ids, statements and
    names come from the claims file and the runs, and none may start a line or drive the terminal.
    """
    lines = []
    for claim in results:
        lines.append(f"{claim.key}  {claim.verdict.upper()}  {claim.statement}")
        for result in claim.subclaims:
            lines.append(f"  {result.spec.id}  {result.verdict}: {result.spec.says}")
            lines.append(f"      {result.deciding}")
        lines += [f"  note: {note}" for note in claim.notes]
    return "\n".join([*map(terminal_escape, lines), counts(results)]) + "\n"


def write_outputs(results: Sequence[ClaimResult], out_dir: str | Path) -> list[Path]:
    """claims.csv and claims.json under ``out_dir``, both or neither (:func:`~mlhidden.io.write_files`);
    returns their paths."""
    rows = [_subclaim_row(claim, result) for claim in results for result in claim.subclaims]
    document = [
        {
            "claim": claim.key, "about": claim.statement, "source": claim.spec.source, "quote": claim.spec.quote,
            "verdict": claim.verdict, "deciding": claim.deciding, "notes": list(claim.notes),
            "subclaims": [
                {key: value for key, value in _subclaim_row(claim, result).items() if key != "claim"}
                for result in claim.subclaims
            ],
        }
        for claim in results
    ]
    return write_files([
        (Path(out_dir) / CSV_FILE, text_writer(pd.DataFrame(rows).to_csv(index=False, float_format="%.6g"))),
        (Path(out_dir) / JSON_FILE, text_writer(strict_json(document, indent=2, ensure_ascii=False) + "\n")),
    ])
