"""Claim C2 under variants of the synthetic-data generator: the choices the paper leaves open, each tried.

The variants run (``configs/synthetic_variants.yaml``) groups its datasets as '<variant> · <kind>';
each variant's Table 4 is decided by the same sub-claims of ``configs/claims.yaml`` as the main
one (:func:`_claim_under_variant`), and every variant tried is shown.
"""

from __future__ import annotations

import dataclasses

import pandas as pd

from mlhidden.claims import ClaimResult, StoredRuns
from mlhidden.escaping import markdown_escape
from mlhidden.paper.claims import checker, paper_claims
from mlhidden.paper.evidence import synthetic_table
from mlhidden.paper.sections import html_frame
from mlhidden.paper.sensitivity_section import closing_verdict, complex_gain
from mlhidden.paper.wording import missing_run
from mlhidden.report import esc, number, pipe_table
from mlhidden.stats import HOLDS

VARIANTS_RUN = "synthetic_variants"
VARIANT_SEPARATOR = " · "
"""A dataset group of the variants run is '<variant> · <kind>' (configs/synthetic_variants.yaml)."""


def _variant_tables(table: pd.DataFrame) -> dict:
    """Variant -> its Table 4 (kind, method) from the variants run's table of '<variant> · <kind>' groups."""
    variants: dict[str, dict] = {}
    for (group, method), values in table.iterrows():
        variant, kind = group.rsplit(VARIANT_SEPARATOR, 1)
        variants.setdefault(variant, {})[(kind, method)] = values
    return {variant: pd.DataFrame(rows).T.rename_axis(["kind", "method"]) for variant, rows in variants.items()}


SYNTHETIC_CLAIM = "C2"
"""The claim of the claims file that Table 4 decides."""


def _claim_under_variant(runs: StoredRuns, variant: str) -> ClaimResult:
    """C2's sub-claims checked on the variants run's datasets of ``variant`` (groups '<variant> · <kind>')."""
    spec = next(claim for claim in paper_claims() if claim.id == SYNTHETIC_CLAIM)
    subclaims = tuple(
        dataclasses.replace(sub, run=VARIANTS_RUN, datasets=dataclasses.replace(
            sub.datasets, group=f"{variant}{VARIANT_SEPARATOR}{sub.datasets.group}"))
        for sub in spec.subclaims
    )
    return checker(runs).claim(dataclasses.replace(spec, subclaims=subclaims, notes=()))


HEADERS = [
    "variant", "datasets", "complex: BR, CC, CCASL exact match", "BR Hamming", "if independent", "CCASL − BR",
    "simple: BR, CC, CCASL exact match", "BR Hamming", "if independent", "C2",
]


def _variant_rows(runs: StoredRuns, table: pd.DataFrame, page: bool) -> list[list[str]]:
    """One row of :data:`HEADERS` per variant: as Markdown, or as the page's HTML, whose scores the
    decimals selector rewrites (the p-values keep their digits; the variant, the page's label, stays text)."""
    def shown(value: float) -> str:
        return number(value, 3) if page else f"{value:.3f}"

    record = runs.record(VARIANTS_RUN)
    n_labels = {spec.group: int(spec.params["n_labels"]) for spec in record.datasets}
    rows = []
    for variant, sub in _variant_tables(table).items():
        claim = _claim_under_variant(runs, variant)
        cells = []
        for kind in ("complex", "simple"):
            if (kind, "BR") not in sub.index:
                cells += ["-"] * 3
                continue
            exact = ", ".join(
                shown(sub.at[(kind, m), "exact_match"]) for m in ("BR", "CC", "CCASL") if (kind, m) in sub.index
            )
            hamming = sub.at[(kind, "BR"), "hamming_score"]
            independent = hamming ** n_labels[f"{variant}{VARIANT_SEPARATOR}{kind}"]
            cells += [exact, shown(hamming), shown(independent)]
        cells.insert(3, complex_gain(runs[VARIANTS_RUN], record, f"{variant}{VARIANT_SEPARATOR}complex", page=page))
        verdict = esc(claim.verdict) if page else claim.verdict
        if claim.verdict == HOLDS:
            verdict = f"<strong>{verdict}</strong>" if page else f"**{verdict}**"
        rows.append(
            [
                variant if page else markdown_escape(variant),
                str(int(sub["n_datasets"].min())),
                *cells,
                verdict,
            ]
        )
    return rows


def synthetic_variants_table(runs: StoredRuns) -> str | None:
    """The page's version of the variants' table, whose scores the decimals selector rewrites; None when not run."""
    table = synthetic_table(runs, VARIANTS_RUN)
    if table is None:
        return None
    rows = _variant_rows(runs, table, page=True)
    return html_frame({row[0]: row[1:] for row in rows}, HEADERS[1:], HEADERS[0], text=(len(HEADERS) - 2,))


def synthetic_variants_markdown(runs: StoredRuns, reference: pd.DataFrame) -> str:
    """C2 decided by the same claim function under each synthetic-data variant, every variant tried shown.

    Beside exact match, the column "if independent" is Hamming score to the power L: what exact
    match would be if the label errors were independent, so the gap shows how concentrated the
    errors are on a few rows.
    """
    title = "### C2 under the generator choices the paper leaves open\n\n"
    table = synthetic_table(runs, VARIANTS_RUN)
    if table is None:
        return title + f"Not run: {missing_run(VARIANTS_RUN)}.\n"
    rows = _variant_rows(runs, table, page=False)
    verdicts = {row[0]: row[-1].strip("*") for row in rows}
    paper = reference[(reference["table"] == "synthetic") & (reference["dataset"] == "complex")].set_index(
        ["metric", "method"]
    )["value"]
    paper_exact = ", ".join(f"{paper[('exact_match', m)]:.3f}" for m in ("BR", "CC", "CCASL"))
    return (
        title
        + "Each variant changes one choice of ours (`configs/synthetic_variants.yaml`, fewer datasets than Table 4); "
        "C2 is decided by the same sub-claims (configs/claims.yaml) as above. 'if independent' is BR's Hamming score "
        "to the power L, the exact "
        "match that independent label errors would give; 'CCASL − BR' is the mean gain in exact match on the complex "
        "data with the Wilcoxon signed-rank p over the datasets (Holm-corrected against BR and CC). Every variant "
        "tried is shown; none was chosen by its "
        f"agreement with the paper (paper: complex BR, CC, CCASL {paper_exact} "
        f"at BR Hamming {paper[('hamming_score', 'BR')]:.3f}).\n\n"
        + pipe_table(rows, HEADERS)
        + f"\n\nOver the variants: {closing_verdict(verdicts)}.\n"
    )
