"""REPORT.md's or the page's jobs alone for the tests, after the one that decides the claims they read
(each run folder's, once); both together are :func:`~mlhidden.paper.reproduction.report_and_page_jobs`."""

from __future__ import annotations

from mlhidden.paper.claims import DecidedClaims
from mlhidden.paper.html_page import index_html_job
from mlhidden.paper.parallel_jobs import Job, run_jobs
from mlhidden.paper.report_md import report_job
from mlhidden.paper.setting_folders import claim_folders


def decided(out_dir) -> DecidedClaims:
    """The claims of ``out_dir``'s runs and of each finished setting's, decided."""
    (claims,) = run_jobs([DecidedClaims(claim_folders(out_dir)).job()])
    return claims


def report_jobs(out_dir) -> list[Job]:
    """The claims' job, then REPORT.md's."""
    claims = DecidedClaims(claim_folders(out_dir))
    return [claims.job(), report_job(out_dir, claims)]


def page_jobs(out_dir) -> list[Job]:
    """The claims' job, then index.html's (without REPORT.md's findings: its audit and deviations tables
    are the report's text)."""
    claims = DecidedClaims(claim_folders(out_dir))
    return [claims.job(), index_html_job(out_dir, claims)]
