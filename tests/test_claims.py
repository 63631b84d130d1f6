"""The claims C1-C8 as pure functions of hand-made evidence: no store, no refit, no figure.

The store-backed claim tests in test_reproduction.py check that the evidence is gathered right;
these check each verdict and each reason for "not evaluated" on evidence built here.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from mlhidden.report.claims import (
    CLAIMS,
    FAILS,
    HOLDS,
    NOT_EVALUATED,
    Evidence,
    RankSummary,
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
from mlhidden.report.paper import reference_results

REFERENCE = reference_results()


def sweep(points: dict) -> pd.DataFrame:
    """A sweep frame from ``{line: {x: mean}}``."""
    rows = [{"panel": "p", "line": line, "parameter": "K", "x": x, "mean": mean, "std": 0.0, "n": 2}
            for line, means in points.items() for x, mean in means.items()]
    return pd.DataFrame(rows)


def test_importing_the_claims_loads_no_plotting_tables_or_runner():
    code = (
        "import sys, mlhidden.report.claims; "
        "print(sorted(m for m in ('matplotlib', 'tabulate', 'mlhidden.experiment.runner', 'sqlite3') if m in sys.modules))"
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
    paper = REFERENCE[REFERENCE["table"] == "logical"].pivot_table(index="method", columns="metric", values="value")
    table = paper.assign(n_splits=10)
    for (model, metric), value in (changes or {}).items():
        table.loc[model, metric] = value
    return Evidence(logical=table)


def test_logical_claim_holds_at_the_papers_values_and_names_each_deviation():
    assert claim_logical(logical_evidence(), REFERENCE).verdict == HOLDS
    claim = claim_logical(logical_evidence({("LP", "exact_match"): 0.5}), REFERENCE)
    assert claim.verdict == FAILS and claim.evidence.startswith("1 of 12 values") and "LP exact match 0.50" in claim.evidence
    missing = claim_logical(logical_evidence({("LP", "exact_match"): np.nan}), REFERENCE)
    assert missing.verdict == NOT_EVALUATED and missing.evidence == "no results for LP"


def synthetic_evidence(complex_means, simple_means) -> Evidence:
    index = pd.MultiIndex.from_tuples([(kind, m) for kind in ("complex", "simple") for m in ("BR", "CC", "CCASL")], names=["kind", "method"])
    exact = [*complex_means, *simple_means]
    return Evidence(synthetic=pd.DataFrame({"exact_match": exact, "hamming_score": exact, "n_datasets": 150}, index=index))


@pytest.mark.parametrize("complex_means, verdict", [((0.5, 0.6, 0.7), HOLDS), ((0.5, 0.7, 0.6), FAILS)])
def test_synthetic_claim_orders_the_methods(complex_means, verdict):
    claim = claim_synthetic(synthetic_evidence(complex_means, (0.9, 0.8, 0.8)), REFERENCE)
    assert claim.verdict == verdict and claim.evidence.startswith("complex (150 datasets): BR 0.500")


def test_synthetic_claim_needs_both_kinds():
    evidence = synthetic_evidence((0.5, 0.6, 0.7), (0.9, 0.8, 0.8))
    only_complex = Evidence(synthetic=evidence.synthetic.loc[["complex"]])
    assert claim_synthetic(only_complex, REFERENCE).verdict == NOT_EVALUATED


def ranks(*order) -> RankSummary:
    return RankSummary(pd.Series(np.arange(1.0, len(order) + 1), index=list(order)), 3)


def test_rank_claims_read_the_order_of_the_average_ranks():
    good = Evidence(paper_ranks={"exact_match": ranks("CCASL+AML", "CCASL+BR", "BR", "ELM"), "hamming_score": ranks("BR_RF", "BR")})
    bad = Evidence(paper_ranks={"exact_match": ranks("CCASL+BR", "CCASL+AML", "ELM", "BR"), "hamming_score": ranks("BR", "BR_RF")})
    assert [claim_exact_match_ranks(good, REFERENCE).verdict, claim_hamming_ranks(good, REFERENCE).verdict] == [HOLDS, HOLDS]
    assert [claim_exact_match_ranks(bad, REFERENCE).verdict, claim_hamming_ranks(bad, REFERENCE).verdict] == [FAILS, FAILS]
    assert claim_exact_match_ranks(good, REFERENCE).evidence == "average ranks over 3 datasets: CCASL+AML 1.00, CCASL+BR 2.00, BR 3.00, ELM 4.00"
    empty = Evidence(paper_ranks={"exact_match": RankSummary(pd.Series(dtype=float), 0)})
    assert claim_exact_match_ranks(empty, REFERENCE).evidence == "no dataset of the paper run has every method's result"


@pytest.mark.parametrize("aml_at_one, verdict", [(1.0, HOLDS), (0.95, FAILS)])
def test_hidden_nodes_claim(aml_at_one, verdict):
    frame = sweep({"CCASL+AML": {1: aml_at_one, 2: 1.0}, "ELM": {1: 0.5, 2: 1.0}, "MLP": {1: 0.5, 2: 0.75}})
    claim = claim_hidden_nodes(Evidence(hidden_nodes=frame), REFERENCE)
    assert claim.verdict == verdict
    assert "ELM first reaches 1.0 at K = 2" in claim.evidence and "MLP never reaches 1.0 (best 0.75)" in claim.evidence
    assert claim_hidden_nodes(Evidence(hidden_nodes=sweep({"ELM": {1: 1.0}})), REFERENCE).verdict == NOT_EVALUATED


@pytest.mark.parametrize("forest_at_one, verdict", [(0.9, HOLDS), (0.6, FAILS)])
@pytest.mark.parametrize("logistic", ["logistic", "logistic_cv"])
def test_label_count_claim(forest_at_one, verdict, logistic):
    frame = sweep({"BR": {1: 0.7, 6: 0.3}, "CCASL+AML": {1: 0.75, 6: 0.4}, "BR_RF": {1: forest_at_one, 6: 0.35}})
    bases = {"BR": logistic, "CCASL+AML": logistic, "BR_RF": "random_forest"}
    claim = claim_label_count(Evidence(label_count=frame, label_count_bases=bases), REFERENCE)
    assert claim.verdict == verdict and "best logistic-regression method CCASL+AML 0.400" in claim.evidence
    no_six = Evidence(label_count=frame[frame["x"] == 1], label_count_bases=bases)
    assert claim_label_count(no_six, REFERENCE).evidence == "the run lacks L = 1 or L = 6"


def time_evidence(ccasl_seconds, mlp_seconds, sizes=(6000, 500)) -> Evidence:
    datasets = ["Big", "Small"]
    times = {"BR": 10.0, "CC": 10.0, "CCASL": ccasl_seconds, "CCASL+BR": ccasl_seconds, "CCASL+AML": ccasl_seconds, "MLP": mlp_seconds}
    means = pd.DataFrame({method: [value, value] for method, value in times.items()}, index=datasets)
    return Evidence(paper_times=means, paper_sizes=pd.Series(sizes, index=datasets))


def test_time_claim_compares_ratios_on_large_datasets():
    holds = claim_time(time_evidence(20.0, 400.0), REFERENCE)
    assert holds.verdict == HOLDS and "on 1 large datasets: 2.0x (Big 2.0x" in holds.evidence
    assert claim_time(time_evidence(50.0, 400.0), REFERENCE).verdict == FAILS
    assert claim_time(time_evidence(20.0, 30.0), REFERENCE).verdict == FAILS
    small = claim_time(time_evidence(20.0, 400.0, sizes=(100, 500)), REFERENCE)
    assert small.verdict == NOT_EVALUATED and small.evidence.startswith("no large dataset")


@pytest.mark.parametrize("slope, verdict", [(0.01, HOLDS), (-0.01, FAILS)])
def test_medical_chain_claim(slope, verdict):
    frame = sweep({"CCASL": {x: 0.9 + slope * x for x in range(1, 9)}})
    claim = claim_medical_chain(Evidence(medical_chain=frame), REFERENCE)
    assert claim.verdict == verdict
    assert claim.evidence == f"CCASL: {0.9 + slope * 1.5:.3f} over the first quarter of the chain, {0.9 + slope * 7.5:.3f} over the last"
    only_cc = Evidence(medical_chain=sweep({"CC": {1: 0.9}}))
    assert claim_medical_chain(only_cc, REFERENCE).evidence == "no CCASL refits of Medical"
