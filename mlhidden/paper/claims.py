"""The paper's claims C1-C8: ``configs/claims.yaml`` checked on the reproduction's runs.

The claims file holds every claim's words, place, sub-claims, directions, sizes and readings; the
general checker (:mod:`mlhidden.claims.check`) decides them, with the paper's evidence extractors
and notes (:mod:`mlhidden.paper.claim_evidence`). Nothing here states a size or a direction.
"""

from __future__ import annotations

import os
from pathlib import Path

from mlhidden.claims import Checker, ClaimResult, ClaimSpec, StoredRuns, read_claims
from mlhidden.paper.calibration import calibration_checker
from mlhidden.paper.claim_evidence import EXTRACTORS, NOTES
from mlhidden.shipped import shipped_folder

CLAIMS_FILE = "claims.yaml"


def claims_path() -> Path:
    """The shipped claims file."""
    return shipped_folder("configs") / CLAIMS_FILE


def paper_claims() -> list[ClaimSpec]:
    """The paper's claims, read from :func:`claims_path`."""
    return read_claims(claims_path(), extractors=list(EXTRACTORS), notes=list(NOTES))


def checker(out_dir: str | os.PathLike[str]) -> Checker:
    """A checker of the paper's claims on the runs under ``out_dir``, each verdict beside its verdict on the
    paper's own numbers."""
    runs = StoredRuns([out_dir])
    return Checker(runs, claims_path(), EXTRACTORS, NOTES, strict=False,
                   calibration=calibration_checker(runs, claims_path()))


def decide_claims(out_dir: str | os.PathLike[str]) -> list[ClaimResult]:
    """Every claim of the claims file, in order, decided on the runs under ``out_dir``."""
    return [checker(out_dir).claim(spec) for spec in paper_claims()]
