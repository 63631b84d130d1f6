"""The claims C1-C8 as pure functions of hand-made evidence: no store, no refit, no figure.

The store-backed claim tests in test_reproduction.py check that the evidence is gathered right;
these check each verdict and each reason for "not evaluated" on evidence built here.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import mlhidden
from mlhidden.paper.claim_inputs import Evidence, RankSummary
from mlhidden.paper.claims import (
    CLAIMS,
    FAILS,
    HOLDS,
    INCONCLUSIVE,
    NOT_EVALUATED,
    claim_exact_match_ranks,
    claim_hamming_ranks,
    claim_hidden_nodes,
    claim_label_count,
    claim_logical,
    claim_medical_chain,
    claim_synthetic,
    claim_time,
    decide_claims,
)
from mlhidden.paper.evidence import rank_summary
from mlhidden.paper.reference import reference_results
from mlhidden.report.tables import metric_table

REFERENCE = reference_results()
PACKAGE = Path(mlhidden.__file__).parent


def sweep_splits(points: dict, n_splits: int = 10) -> pd.DataFrame:
    """Sweep units from ``{line: {x: value}}``: every split has the value, but for a small split-dependent jitter."""
    rows = [
        {
            "panel": "p",
            "line": line,
            "parameter": "K",
            "x": x,
            "split": split,
            "value": value - 0.001 * (split % 2) * (value < 1),
        }
        for line, values in points.items()
        for x, value in values.items()
        for split in range(n_splits)
    ]
    return pd.DataFrame(rows)


def test_importing_the_claims_loads_no_plotting_tables_or_runner():
    code = (
        "import sys, mlhidden.paper.claims; "
        "print(sorted(m for m in ('matplotlib', 'tabulate', 'mlhidden.experiment.runner', 'sqlite3') "
        "if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"


def test_no_evidence_evaluates_nothing_and_says_which_run_is_missing():
    claims = decide_claims(Evidence(), REFERENCE)
    assert [c.key for c in claims] == [f"C{i}" for i in range(1, len(CLAIMS) + 1)]
    assert all(c.verdict == NOT_EVALUATED for c in claims)
    assert [c.evidence for c in claims[:3]] == [
        "no results for run 'logical'", "no results for run 'synthetic'", "no results for run 'paper'"
    ]


def logical_evidence(changes=None) -> Evidence:
    """Table 3 at the paper's values on each of 10 splits, give or take 0.01; ``changes`` sets a model's metric on
    every split."""
    paper = REFERENCE[REFERENCE["table"] == "logical"].pivot_table(index="method", columns="metric", values="value")
    rows = [{"method": model, "split": split, **{m: min(v + 0.01 * (split % 2), 1.0) for m, v in values.items()}}
            for model, values in paper.iterrows() for split in range(10)]
    splits = pd.DataFrame(rows)
    for (model, metric), value in (changes or {}).items():
        splits.loc[splits["method"] == model, metric] = value
    return Evidence(logical_splits=splits.dropna())


def test_logical_claim_holds_at_the_papers_values_and_names_each_deviation():
    assert claim_logical(logical_evidence(), REFERENCE).verdict == HOLDS
    claim = claim_logical(logical_evidence({("LP", "exact_match"): 0.5}), REFERENCE)
    assert (
        claim.verdict == FAILS
        and claim.evidence.startswith("1 of 12 values")
        and "LP exact match 0.50" in claim.evidence
    )
    assert claim.deciding.startswith("LP exact match − paper's 1.00: -0.500") and "within ±0.05" in claim.deciding
    missing = claim_logical(logical_evidence({("LP", "exact_match"): np.nan}), REFERENCE)
    assert missing.verdict == NOT_EVALUATED and missing.evidence == "no results for LP"


def synthetic_evidence(complex_means, simple_means, n_datasets: int = 12) -> Evidence:
    """Per-dataset means around the given ones (each dataset shifts every method alike)."""
    rows = [
        {
            "kind": kind,
            "dataset": f"{kind} {d}",
            "method": method,
            "exact_match": mean + 0.01 * d,
            "hamming_score": mean,
        }
        for kind, means in (("complex", complex_means), ("simple", simple_means))
        for d in range(n_datasets)
        for method, mean in zip(("BR", "CC", "CCASL"), means)
    ]
    return Evidence(synthetic_datasets=pd.DataFrame(rows))


@pytest.mark.parametrize(
    "complex_means, verdict", [((0.5, 0.6, 0.7), HOLDS), ((0.5, 0.7, 0.6), FAILS), ((0.5, 0.6, 0.6), INCONCLUSIVE)]
)
def test_synthetic_claim_orders_the_methods(complex_means, verdict):
    claim = claim_synthetic(synthetic_evidence(complex_means, (0.9, 0.8, 0.7)), REFERENCE)
    assert claim.verdict == verdict and claim.evidence.startswith("complex (12 datasets): BR 0.555")


def test_synthetic_claim_needs_both_kinds():
    evidence = synthetic_evidence((0.5, 0.6, 0.7), (0.9, 0.8, 0.8))
    only_complex = Evidence(synthetic_datasets=evidence.synthetic_datasets.query("kind == 'complex'"))
    assert claim_synthetic(only_complex, REFERENCE).verdict == NOT_EVALUATED


def ranks(order, n_datasets: int = 3, friedman_p: float = 0.0) -> RankSummary:
    return RankSummary(pd.Series(np.arange(1.0, len(order) + 1), index=list(order)), n_datasets, friedman_p)


def test_rank_claims_need_a_gap_of_the_critical_difference():
    order = ("CCASL+AML", "CCASL+BR", "BR", "ELM")
    # 4 methods: Nemenyi's CD is 2.57 sqrt(20 / 6N); adjacent ranks are 1 apart, so it takes N ≥ 23 datasets.
    assert claim_exact_match_ranks(Evidence(paper_ranks={"exact_match": ranks(order, 30)}), REFERENCE).verdict == HOLDS
    few = claim_exact_match_ranks(Evidence(paper_ranks={"exact_match": ranks(order, 3)}), REFERENCE)
    assert few.verdict == INCONCLUSIVE and few.evidence.startswith(
        "average ranks over 3 datasets: CCASL+AML 1.00, CCASL+BR 2.00"
    )
    reversed_ = Evidence(paper_ranks={"hamming_score": ranks(("BR", "ELM", "BR_RF"), 30)})
    assert claim_hamming_ranks(reversed_, REFERENCE).verdict == FAILS
    no_friedman = Evidence(paper_ranks={"exact_match": ranks(order, 30, friedman_p=0.2)})
    assert claim_exact_match_ranks(no_friedman, REFERENCE).verdict == INCONCLUSIVE
    empty = Evidence(paper_ranks={"exact_match": RankSummary(pd.Series(dtype=float), 0)})
    assert claim_exact_match_ranks(empty, REFERENCE).evidence == "no dataset of the paper run has every method's result"


def hamming_ranks(br_rf_wins: int, n_datasets: int = 20) -> Evidence:
    """BR_RF against BR on ``n_datasets`` datasets, first on ``br_rf_wins`` of them: their average ranks and
    Friedman's p."""
    table = metric_table(pd.DataFrame([
        {"dataset": f"d{d}", "method": method, "split": 0, "status": "ok", "error": "",
         "hamming_score": 0.9 + (0.01 if (method == "BR_RF") == (d < br_rf_wins) else 0.0)}
        for d in range(n_datasets) for method in ("BR_RF", "BR")
    ]), "hamming_score", [f"d{d}" for d in range(n_datasets)], ["BR_RF", "BR"])
    return Evidence(paper_ranks={"hamming_score": rank_summary(table)})


def test_a_ranking_verdict_moves_with_one_datasets_numbers():
    """One dataset's BR_RF value moved below BR's turns holds into inconclusive; losing most datasets, into does
    not hold."""
    # 2 methods on 20 datasets: the critical difference is 0.44; winning 15 gives a gap of 0.50, 14 of 0.40.
    assert claim_hamming_ranks(hamming_ranks(15), REFERENCE).verdict == HOLDS
    assert claim_hamming_ranks(hamming_ranks(14), REFERENCE).verdict == INCONCLUSIVE
    assert claim_hamming_ranks(hamming_ranks(5), REFERENCE).verdict == FAILS


@pytest.mark.parametrize("aml_at_one, verdict", [(1.0, HOLDS), (0.9, FAILS)])
def test_hidden_nodes_claim(aml_at_one, verdict):
    splits = sweep_splits({"CCASL+AML": {1: aml_at_one, 2: 1.0}, "ELM": {1: 0.5, 2: 1.0}, "MLP": {1: 0.5, 2: 0.75}})
    claim = claim_hidden_nodes(Evidence(hidden_nodes_splits=splits), REFERENCE)
    assert claim.verdict == verdict
    assert "MLP never reaches 1.0 (best 0.75)" in claim.evidence
    assert (
        claim_hidden_nodes(Evidence(hidden_nodes_splits=sweep_splits({"ELM": {1: 1.0}})), REFERENCE).verdict
        == NOT_EVALUATED
    )


@pytest.mark.parametrize("forest_at_one, verdict", [(0.9, HOLDS), (0.6, FAILS), (0.75, INCONCLUSIVE)])
@pytest.mark.parametrize("logistic", ["logistic", "logistic_cv"])
def test_label_count_claim(forest_at_one, verdict, logistic):
    splits = sweep_splits(
        {"BR": {1: 0.7, 6: 0.3}, "CCASL+AML": {1: 0.75, 6: 0.4}, "BR_RF": {1: forest_at_one, 6: 0.35}}
    )
    bases = {"BR": logistic, "CCASL+AML": logistic, "BR_RF": "random_forest"}
    claim = claim_label_count(Evidence(label_count_splits=splits, label_count_bases=bases), REFERENCE)
    assert claim.verdict == verdict and "best logistic-regression method CCASL+AML 0.400" in claim.evidence
    no_six = Evidence(label_count_splits=splits[splits["x"] == 1], label_count_bases=bases)
    assert claim_label_count(no_six, REFERENCE).evidence == "the run lacks L = 1 or L = 6"


def time_evidence(ccasl_seconds, mlp_seconds, sizes=(6000, 500)) -> Evidence:
    datasets = ["Big", "Small"]
    times = {
        "BR": 10.0,
        "CC": 10.0,
        "CCASL": ccasl_seconds,
        "CCASL+BR": ccasl_seconds,
        "CCASL+AML": ccasl_seconds,
        "MLP": mlp_seconds,
    }
    units = pd.DataFrame(
        [
            {
                "dataset": d,
                "method": m,
                "split": split,
                "total_seconds": value * (1 + 0.01 * (split % 3)) if m != "BR" else value,
            }
            for d in datasets
            for m, value in times.items()
            for split in range(10)
        ]
    )
    return Evidence(paper_time_splits=units, paper_sizes=pd.Series(sizes, index=datasets))


def test_time_claim_compares_ratios_on_large_datasets():
    holds = claim_time(time_evidence(20.0, 400.0), REFERENCE)
    assert holds.verdict == HOLDS and "on 1 large datasets: 2.0x (Big 2.0x" in holds.evidence
    assert "'about 2x' read as 1.5-3.0x" in holds.deciding or "at least 10x" in holds.deciding
    assert claim_time(time_evidence(50.0, 400.0), REFERENCE).verdict == FAILS
    assert claim_time(time_evidence(20.0, 30.0), REFERENCE).verdict == FAILS
    small = claim_time(time_evidence(20.0, 400.0, sizes=(100, 500)), REFERENCE)
    assert small.verdict == NOT_EVALUATED and small.evidence.startswith("no large dataset")


def chain_evidence(ccasl_last_accuracies, n_positions: int = 4) -> Evidence:
    """Medical's chains with the paper's numbers: CC from 0.67 to 0.75, CCASL from 0.93 to
    ``ccasl_last_accuracies[split]``."""
    rows = []
    for split, ccasl_last in enumerate(ccasl_last_accuracies):
        for line, start, end in (("CC", 0.67 + 0.001 * (split % 2), 0.75), ("CCASL", 0.93, ccasl_last)):
            rows += [
                {"line": line, "split": split, "x": x + 1, "value": start + (end - start) * x / (n_positions - 1)}
                for x in range(n_positions)
            ]
    return Evidence(medical_chain_splits=pd.DataFrame(rows))


def test_a_comparison_verdict_moves_with_one_stored_number():
    """C8 on ten splits: one split's last CCASL accuracy, changed, moves the verdict holds -> inconclusive -> does
    not hold."""
    last = [0.99 + 0.002 * (split % 3) for split in range(10)]
    assert claim_medical_chain(chain_evidence(last), REFERENCE).verdict == HOLDS
    last[0] = 0.5  # one split's rise below zero: the signed-rank test is no longer significant
    claim = claim_medical_chain(chain_evidence(last), REFERENCE)
    assert claim.verdict == INCONCLUSIVE and claim.deciding.startswith("CCASL: rise along the chain")
    flat = [0.93 + 0.001 * (split % 3) for split in range(10)]
    flat[0] = 0.99  # CCASL hardly rises: the interval excludes the claimed +0.06
    failing = claim_medical_chain(chain_evidence(flat), REFERENCE)
    assert failing.verdict == FAILS and "claimed +0.050 to +0.070" in failing.deciding


def test_medical_chain_claim_needs_ccasl():
    only_cc = Evidence(medical_chain_splits=chain_evidence([0.99] * 10).medical_chain_splits.query("line == 'CC'"))
    assert claim_medical_chain(only_cc, REFERENCE).evidence == "no CCASL refits of Medical"


def test_no_verdict_word_is_typed_outside_the_rule():
    """Verdict words come only from mlhidden/report/uncertainty.py; grep finds them quoted nowhere else in the
    package."""
    found = subprocess.run(
        ["grep", "-rnE", "--include=*.py", "[\"'](holds|does not hold|inconclusive)[\"']", str(PACKAGE)],
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    assert found and all(line.startswith(str(PACKAGE / "report" / "uncertainty.py")) for line in found), found
