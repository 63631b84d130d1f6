"""The paper's claims as data: configs/claims.yaml quotes the paper, names every sub-claim's unit and reading,
and the package's Python states no claimed size; the store-backed verdicts are in test_reproduction.py."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import yaml

import mlhidden
from mlhidden.claims.runs import TIME_CONVENTION
from mlhidden.claims.spec import read_claims
from mlhidden.claims.verdicts import ClaimResult, SubClaimResult
from mlhidden.paper.claim_evidence import EXTRACTORS, NOTES
from mlhidden.paper.claims import claims_path, paper_claims
from mlhidden.paper.html_page import _claims_section
from mlhidden.stats.replication import UNITS
from mlhidden.stats.uncertainty import Comparison

PACKAGE = Path(mlhidden.__file__).parent
PAPER_TEX = Path("/work/shared/paper/labels-as-hidden-nodes.tex")


def squeezed(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.skipif(not PAPER_TEX.is_file(), reason="the paper's .tex is not on this machine")
def test_every_claim_quotes_the_paper_verbatim_and_names_its_place():
    lines = PAPER_TEX.read_text(encoding="utf-8").splitlines()
    tex = squeezed("\n".join(lines))
    for claim in paper_claims():
        assert claim.quote and claim.source, claim.id
        for fragment in re.split(r"\[line \d+[^\]]*\]|\[\.\.\.\]", claim.quote):
            if fragment.strip():
                assert squeezed(fragment) in tex, (claim.id, fragment)
        for line in map(int, re.findall(r"lines? (\d+)", claim.source)):
            assert lines[line - 1].strip(), (claim.id, line)


def test_every_subclaim_names_its_unit_and_how_its_words_are_read():
    claims = paper_claims()
    assert [c.id for c in claims] == [f"C{i}" for i in range(1, 12)]
    for claim in claims:
        for sub in claim.subclaims:
            assert sub.unit in UNITS and sub.says
            if sub.target.stated:
                assert sub.target.reading, sub.id
            elif sub.statistic != "ranks":
                assert sub.target.smallest_effect is not None, sub.id


def test_the_shipped_file_declares_alternative_readings_each_with_its_words():
    claims = {claim.id: claim for claim in paper_claims()}
    assert claims["C3"].readings == claims["C4"].readings == ("primary", "per_dataset", "top_share")
    assert claims["C2"].readings == ("primary", "lenient", "paper_usage")
    for claim in claims.values():
        for alternative in (a for sub in claim.subclaims for a in sub.alternatives):
            assert alternative.words and alternative.subclaim.target.reading, (claim.id, alternative.name)
    assert claims["C3"].subclaims[0].under("per_dataset").rank_test == "per dataset"
    best = claims["C4"].subclaims[0]
    top = best.under("top_share")
    assert top.rank_test == "top share" and top.target.low == 0.5 and "line 746" in best.alternatives[1].words


def test_the_claims_file_is_shipped_and_reads_with_the_paper_extractors_only():
    assert claims_path().is_file()
    with pytest.raises(mlhidden.errors.UserError, match="unknown extractor 'label_accuracy'"):  # K1's, read first
        read_claims(claims_path(), extractors=[], notes=list(NOTES))
    assert read_claims(claims_path(), extractors=list(EXTRACTORS), notes=list(NOTES))


def test_no_claimed_size_or_reading_is_typed_in_the_package():
    """The sizes and readings live in configs/claims.yaml: the words that carried them in Python are gone."""
    files = [*(PACKAGE / "claims").glob("*.py"), *(PACKAGE / "paper").glob("claim*.py")]
    files.append(PACKAGE / "report" / "replication.py")
    found = subprocess.run(
        ["grep", "-nE", r"ABOUT_TWICE|ORDER_OF_MAGNITUDE|LARGE_DATASET|\bPERFECT\b|\bPRINTED\b|KINDS_ORDER|5000|"
         r"\b0\.95\b|\b0\.75\b|\(1\.5, 3|0\.67|0\.93|\b0\.07\b", *map(str, files)],
        capture_output=True, text=True,
    ).stdout.splitlines()
    assert found == []


def test_no_verdict_word_is_typed_outside_the_rule():
    """Verdict words come only from mlhidden/stats/uncertainty.py; grep finds them quoted nowhere else in the
    package."""
    found = subprocess.run(
        ["grep", "-rnE", "--include=*.py", "[\"'](holds|does not hold|inconclusive|no practical difference)[\"']",
         str(PACKAGE)],
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    assert found and all(line.startswith(str(PACKAGE / "stats" / "uncertainty.py")) for line in found), found


def test_the_pages_our_numbers_column_holds_a_sub_claims_numbers_and_its_unit_stands_with_the_statistic():
    spec = paper_claims()[0]
    sub = spec.subclaims[0]
    comparison = Comparison("BR, exact_match", 0.175, -0.159, 0.509, 10, "splits of Music", "corrected resampled t",
                            0.3, 1.0)
    result = ClaimResult(spec, "inconclusive", (SubClaimResult(sub, "inconclusive", comparison),))
    cells = re.findall(r"<td class='text note'>(.*?)</td>", _claims_section([result]).body)
    assert cells[-1] == "+0.175 [-0.159, +0.509], n = 10 splits of Music"
    assert cells[-2].startswith(f"unit: {sub.unit}; BR, exact_match: +0.175 [-0.159, +0.509]")


def test_the_pages_claims_section_states_the_time_convention_of_time_sub_claims():
    spec = paper_claims()[0]
    result = ClaimResult(spec, "inconclusive", (SubClaimResult(spec.subclaims[0], "not evaluated", why="none"),))
    body = _claims_section([result]).body
    assert "own work plus the fits it reused from another method" in TIME_CONVENTION
    assert TIME_CONVENTION.split("'")[0] in body and "the time tables show each method&#x27;s own work." in body


def test_the_papers_file_declares_its_positive_controls_and_still_reads():
    controls = paper_claims()[0].controls
    assert [(c.id, c.run) for c in controls][:1] == [("K1", "logical")]
    assert controls[0].extractor == "label_accuracy" and controls[0].params == {"labels": ["OR", "AND"]}
    medical = [c for c in controls if c.run == "paper"]
    assert medical and all(c.datasets.names == ("Medical",) and c.sides[1] == ("AllZero",) for c in medical)
    assert {c.sides[0][0] for c in medical} == set(paper_claims()[2].subclaims[0].ranked) - {"AllZero"}
    assert all(sub.role in ("core", "supporting") for claim in paper_claims() for sub in claim.subclaims)


def test_the_shipped_file_states_every_role_and_holds_the_headline_and_the_medical_sentence():
    """Issue 51's bar: at least 10 claims with line 742's headline and line 754's first sentence, a role written
    for every sub-claim, and at least 6 readings with declared alternatives."""
    raw = yaml.safe_load(claims_path().read_text(encoding="utf-8"))
    assert all("role" in sub for claim in raw["claims"] for sub in claim["subclaims"])
    claims = paper_claims()
    assert len(claims) >= 10
    sources = " ".join(claim.source for claim in claims)
    assert "line 742" in sources and "line 754" in sources
    quotes = " ".join(claim.quote for claim in claims)
    assert "All out-perform baseline" in quotes and "The performance improvement of several of the methods" in quotes
    assert sum(1 for claim in claims for sub in claim.subclaims if sub.alternatives) >= 6
