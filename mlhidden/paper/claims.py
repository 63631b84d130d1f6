"""The paper's claims C1-C11: ``configs/claims.yaml`` checked on the reproduction's runs.

The claims file holds every claim's words, place, sub-claims, directions, sizes and readings; the
general checker (:mod:`mlhidden.claims.check`) decides them, with the paper's evidence extractors
and notes (:mod:`mlhidden.paper.claim_evidence`). Nothing here states a size or a direction.
A reproduction decides each run folder's claims once (:class:`DecidedClaims`) for REPORT.md and the page.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from mlhidden.claims import Checker, ClaimResult, ClaimSpec, StoredRuns, read_claims
from mlhidden.paper.calibration import calibration_checker
from mlhidden.paper.claim_evidence import EXTRACTORS, NOTES
from mlhidden.paper.parallel_jobs import Job
from mlhidden.paper.setting_folders import folder_runs
from mlhidden.shipped import shipped_folder

CLAIMS_FILE = "claims.yaml"


def claims_path() -> Path:
    """The shipped claims file."""
    return shipped_folder("configs") / CLAIMS_FILE


def paper_claims() -> list[ClaimSpec]:
    """The paper's claims, read from :func:`claims_path`."""
    return read_claims(claims_path(), extractors=list(EXTRACTORS), notes=list(NOTES))


def checker(runs: StoredRuns) -> Checker:
    """A checker of the paper's claims on ``runs``, each verdict beside its verdict on the paper's own numbers."""
    return Checker(runs, claims_path(), EXTRACTORS, NOTES, strict=False,
                   calibration=calibration_checker(runs, claims_path()))


def decide_claims(out_dir: str | os.PathLike[str]) -> list[ClaimResult]:
    """Every claim of the claims file, in order, decided on the runs under ``out_dir``."""
    decide = checker(StoredRuns(folder_runs(out_dir))).claim
    return [decide(spec) for spec in paper_claims()]


class DecidedClaims(Mapping[Path, list[ClaimResult]]):
    """Run folder -> its claims (:func:`decide_claims`), decided once for everything a reproduction writes.

    :meth:`job` decides them, one call a folder, beside the report's other calls. REPORT.md's and the
    page's jobs are made with this mapping and read it only in their finishes, which
    :func:`~mlhidden.paper.parallel_jobs.run_jobs` runs after this job's when it comes first.
    """

    def __init__(self, folders: Iterable[str | os.PathLike[str]]):
        self.folders = [Path(folder) for folder in folders]
        self._decided: dict[Path, list[ClaimResult]] = {}

    def job(self) -> Job:
        return Job([(decide_claims, folder) for folder in self.folders], self._keep)

    def _keep(self, results: list[list[ClaimResult]]) -> DecidedClaims:
        self._decided = dict(zip(self.folders, results))
        return self

    def __getitem__(self, folder: str | os.PathLike[str]) -> list[ClaimResult]:
        return self._decided[Path(folder)]

    def __iter__(self) -> Iterator[Path]:
        return iter(self._decided)

    def __len__(self) -> int:
        return len(self._decided)
