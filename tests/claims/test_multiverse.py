"""The multiverse of a claims file (mlhidden.claims.multiverse), as docs/claims.md teaches it: a user's own run over
five seeds, a claims file with an alternative reading and a positive control, from an empty folder."""

from __future__ import annotations

import pandas as pd
import pytest
from click.testing import CliRunner

from mlhidden.claims.multiverse import (
    CURVE_COLUMNS,
    MULTIPLICITY_METHODS,
    MULTIVERSE_FILE,
    check_multiverse,
    curve_frame,
)
from mlhidden.cli import cli
from mlhidden.paper.claim_evidence import EXTRACTORS, NOTES

SEEDS = range(5)
CONFIG = "name: mine\ndatasets: [Logical]\nmethods: [BR, BR_phi]\nsplits: 8\nseed: 0\n"
MY_CLAIMS = """\
controls:
  - id: K1
    says: BR_phi learns more than half the labels (Hamming score above 0.5)
    run: mine
    metric: hamming_score
    value: BR_phi
    size: 0.5
    reading: "'more than half' read as Hamming score above 0.5"
    unit: splits
claims:
  - id: A
    about: a basis expansion lets BR solve Logical, and beat plain BR
    subclaims:
      - id: A.1
        role: core
        says: BR_phi solves Logical
        run: mine
        metric: exact_match
        value: BR_phi
        size: 0.95
        reading: "'solves' read as exact match above 0.95"
        unit: splits
        alternatives:
          - name: lenient
            words: "'solves' (no level is named)"
            reading: "'solves' read as exact match above 0.90"
            size: 0.90
      - id: A.2
        role: supporting
        says: BR_phi beats BR
        run: mine
        metric: exact_match
        difference: [BR_phi, BR]
        smallest_effect: 0.01
        unit: splits
"""


@pytest.fixture(scope="module")
def worlds(tmp_path_factory):
    """An empty folder where the user ran their config once per seed: ``seed<k>/mine``, as the docs show."""
    folder = tmp_path_factory.mktemp("multiverse")
    (folder / "mine.yaml").write_text(CONFIG)
    for seed in SEEDS:
        result = CliRunner().invoke(cli, [
            "run", "--config", str(folder / "mine.yaml"), "--seed", str(seed),
            "--out", str(folder / f"seed{seed}" / "mine"), "--n-jobs", "1", "--quiet",
        ])
        assert result.exit_code == 0, result.output
    (folder / "my_claims.yaml").write_text(MY_CLAIMS)
    return folder


def test_a_users_claims_over_five_seeds_work_from_an_empty_folder(worlds, monkeypatch):
    monkeypatch.chdir(worlds)
    result = CliRunner().invoke(
        cli, ["claims", "my_claims.yaml", *(f"seed{seed}" for seed in SEEDS), "--multiverse", "--out", "out"])
    assert result.exit_code == 0, result.output
    frame = pd.read_csv(worlds / "out" / MULTIVERSE_FILE)
    assert list(frame.columns) == CURVE_COLUMNS
    specifications = len(SEEDS) * 2 * len(MULTIPLICITY_METHODS)  # seeds x (primary, lenient) x multiplicity
    assert len(frame) == specifications and set(frame["claim"]) == {"A"}
    assert sorted(frame["seed"].unique()) == list(SEEDS)
    assert set(frame["reading"]) == {"primary", "lenient"}
    assert (worlds / "out" / "specification_curve_A.png").stat().st_size > 0
    assert "A  primary: " in result.output and f"{specifications} specifications" in result.output


def test_the_number_of_specifications_is_the_product_of_the_declared_dimensions(worlds):
    decided = check_multiverse(worlds / "my_claims.yaml", [worlds / f"seed{seed}" for seed in SEEDS[:3]],
                               EXTRACTORS, NOTES)
    results = decided["A"]
    assert len(results) == 3 * 2 * len(MULTIPLICITY_METHODS)
    chosen = {(r.specification.world, r.specification.reading, r.specification.multiplicity) for r in results}
    assert len(chosen) == len(results)
    rows = curve_frame(decided)
    assert rows["subclaim"].eq("A.1").all(), "a supporting sub-claim never decides, so never stands for the claim"
