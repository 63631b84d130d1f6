"""The paper's claims C1-C8, each decided from the :class:`Evidence` it needs.

Every ``claim_*`` is a pure function ``(evidence, reference) -> Claim``: no file is read, nothing
is fitted or drawn, so a claim can be tested on evidence made by hand
(:func:`mlhidden.report.evidence.gather_evidence` makes it from the stores). A claim whose evidence is
missing is "not evaluated" and says why; otherwise it "holds" or "does not hold", with our
numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from mlhidden.methods.base_learners import LOGISTIC_LEARNERS
from mlhidden.report.tables import METRICS

HOLDS, FAILS, NOT_EVALUATED = "holds", "does not hold", "not evaluated"

CCASL_METHODS = ("CCASL", "CCASL+BR", "CCASL+AML")
LARGE_DATASET_SAMPLES = 5000
ABOUT_TWICE = (1.5, 3.0)
ORDER_OF_MAGNITUDE = 10.0
PERFECT = 1.0 - 1e-9
DEVIATION = 0.05
"""Our value and the paper's differ notably when they are further apart than this."""
# The metrics whose average ranks the paper claims something about.
RANKED_METRICS = ("exact_match", "hamming_score")


@dataclass(frozen=True)
class RankSummary:
    """A run's average ranks on one metric, best first, over the datasets where every method has a result."""

    ranks: pd.Series
    n_datasets: int


@dataclass(frozen=True)
class Evidence:
    """What the claims are decided on; None where the run behind a field has no store.

    Attributes
    ----------
    logical : pandas.DataFrame or None
        Table 3 (:func:`~mlhidden.report.evidence.logical_table`).
    synthetic : pandas.DataFrame or None
        Table 4 (:func:`~mlhidden.report.evidence.synthetic_table`).
    paper_ranks : dict or None
        Metric -> :class:`RankSummary` of the paper run, for :data:`RANKED_METRICS`.
    paper_times : pandas.DataFrame or None
        The paper run's mean train + test seconds, ranked datasets x methods.
    paper_sizes : pandas.Series or None
        The paper run's n_samples by dataset.
    hidden_nodes, label_count : pandas.DataFrame or None
        The sweeps' exact match (:func:`~mlhidden.report.evidence.sweep_frame`).
    label_count_bases : dict
        The label-count run's method groups -> base learner name (None without one).
    medical_chain : pandas.DataFrame or None
        Medical's accuracy per chain position (:func:`~mlhidden.report.evidence.chain_accuracy`).
    """

    logical: pd.DataFrame | None = None
    synthetic: pd.DataFrame | None = None
    paper_ranks: dict | None = None
    paper_times: pd.DataFrame | None = None
    paper_sizes: pd.Series | None = None
    hidden_nodes: pd.DataFrame | None = None
    label_count: pd.DataFrame | None = None
    label_count_bases: dict = field(default_factory=dict)
    medical_chain: pd.DataFrame | None = None


@dataclass(frozen=True)
class Claim:
    """One claim of the paper and what our stored results say about it."""

    key: str
    statement: str
    verdict: str
    evidence: str


def _not_evaluated(key, statement, why) -> Claim:
    return Claim(key, statement, NOT_EVALUATED, why)


def _verdict(holds: bool) -> str:
    return HOLDS if holds else FAILS


def missing_run(name: str) -> str:
    """Why something that needs run ``name`` is not evaluated."""
    return f"no results for run '{name}'"


def claim_logical(evidence: Evidence, reference: pd.DataFrame) -> Claim:
    """C1: each of Table 3's twelve values (six models, two metrics) is within DEVIATION of the paper's."""
    paper = reference[reference["table"] == "logical"]
    values = paper.pivot_table(index="method", columns="metric", values="value", sort=False)
    statement = "Table 3 on Logical (Hamming score / exact match): " + ", ".join(
        f"{model} {row['hamming_score']:.2f} / {row['exact_match']:.2f}" for model, row in values.iterrows()
    )
    table = evidence.logical
    if table is None:
        return _not_evaluated("C1", statement, missing_run("logical"))
    deviations, missing = [], []
    for row in paper.itertuples():
        ours = table.at[row.method, row.metric]
        if math.isnan(ours):
            missing.append(row.method)
        elif abs(ours - row.value) > DEVIATION:
            deviations.append(f"{row.method} {METRICS[row.metric].title.lower()} {ours:.2f} (paper {row.value:.2f})")
    if deviations:
        return Claim("C1", statement, FAILS, f"{len(deviations)} of {len(paper)} values differ by more than {DEVIATION}: " + "; ".join(deviations))
    if missing:
        return _not_evaluated("C1", statement, f"no results for {', '.join(sorted(set(missing)))}")
    return Claim("C1", statement, HOLDS, f"all {len(paper)} values within {DEVIATION} of the paper's")


def claim_synthetic(evidence: Evidence, reference: pd.DataFrame) -> Claim:
    """C2: Table 4's ordering of BR, CC and CCASL by exact match, reversed between complex and simple data."""
    statement = "Table 4, exact match: complex data CCASL > CC > BR; simple data BR ≥ CC ≥ CCASL"
    table = evidence.synthetic
    if table is None:
        return _not_evaluated("C2", statement, missing_run("synthetic"))
    methods = ["BR", "CC", "CCASL"]
    if not {(kind, method) for kind in ("complex", "simple") for method in methods} <= set(table.index):
        return _not_evaluated("C2", statement, "the run lacks a kind (complex, simple) or a method (BR, CC, CCASL)")
    c, s = (table.loc[kind, "exact_match"] for kind in ("complex", "simple"))
    holds = c["CCASL"] > c["CC"] > c["BR"] and s["BR"] >= s["CC"] >= s["CCASL"]
    evidence_text = "; ".join(
        f"{kind} ({int(table.at[(kind, 'BR'), 'n_datasets'])} datasets): " + ", ".join(f"{m} {means[m]:.3f}" for m in methods)
        for kind, means in (("complex", c), ("simple", s))
    )
    return Claim("C2", statement, _verdict(holds), evidence_text)


def _rank_claim(evidence: Evidence, key: str, statement: str, metric: str, holds) -> Claim:
    """A claim about the paper run's average ranks on ``metric``; ``holds(ranks)`` decides it."""
    if evidence.paper_ranks is None:
        return _not_evaluated(key, statement, missing_run("paper"))
    summary = evidence.paper_ranks[metric]
    if not summary.n_datasets:
        return _not_evaluated(key, statement, "no dataset of the paper run has every method's result")
    ranks = ", ".join(f"{method} {rank:.2f}" for method, rank in summary.ranks.items())
    return Claim(key, statement, _verdict(holds(summary.ranks)), f"average ranks over {summary.n_datasets} datasets: {ranks}")


def claim_exact_match_ranks(evidence: Evidence, reference: pd.DataFrame) -> Claim:
    """C3: by average exact-match rank, CCASL+AML is first, CCASL+BR second and ELM last."""
    return _rank_claim(
        evidence, "C3", "Exact-match average rank (Table 'results'): CCASL+AML best, CCASL+BR second, ELM worst",
        "exact_match", lambda ranks: list(ranks.index[:2]) == ["CCASL+AML", "CCASL+BR"] and ranks.index[-1] == "ELM",
    )


def claim_hamming_ranks(evidence: Evidence, reference: pd.DataFrame) -> Claim:
    """C4: by average Hamming-score rank, BR with random forests is first."""
    return _rank_claim(
        evidence, "C4", "Hamming-score average rank (Table 'results'): BR_RF best",
        "hamming_score", lambda ranks: ranks.index[0] == "BR_RF",
    )


def _first_perfect(points: pd.DataFrame):
    perfect = points[points["mean"] >= PERFECT]
    return None if perfect.empty else perfect["x"].min()


def claim_hidden_nodes(evidence: Evidence, reference: pd.DataFrame) -> Claim:
    """C5: on Logical, CCASL+AML is perfect with one hidden node, while ELM and MLP need more."""
    statement = "Fig. 'contrast' (Logical): CCASL+AML reaches exact match 1.0 with K = 1 hidden node; ELM and MLP need more"
    frame = evidence.hidden_nodes
    if frame is None:
        return _not_evaluated("C5", statement, missing_run("hidden_nodes"))
    lines = {line: points for line, points in frame.groupby("line")}
    if not {"CCASL+AML", "ELM", "MLP"} <= set(lines) or 1 not in set(lines["CCASL+AML"]["x"]):
        return _not_evaluated("C5", statement, "the run lacks CCASL+AML at K = 1, ELM or MLP")
    aml = lines["CCASL+AML"].set_index("x")["mean"][1]
    firsts = {line: _first_perfect(lines[line]) for line in ("CCASL+AML", "ELM", "MLP")}
    holds = aml >= PERFECT and all(firsts[line] is None or firsts[line] > 1 for line in ("ELM", "MLP"))
    reached = "; ".join(
        f"{line} first reaches 1.0 at K = {first}" if first is not None else f"{line} never reaches 1.0 (best {lines[line]['mean'].max():.2f})"
        for line, first in firsts.items()
    )
    return Claim("C5", statement, _verdict(holds), f"CCASL+AML at K = 1: {aml:.2f}; {reached}")


def claim_label_count(evidence: Evidence, reference: pd.DataFrame) -> Claim:
    """C6: on Scene's first L labels, CCASL+AML leads logistic regression at L = 6, random forests lead at L = 1."""
    statement = (
        "Fig. 'labup' (Scene, first L labels): at L = 6 CCASL+AML is the best logistic-regression method; "
        "at L = 1 random forest beats logistic regression"
    )
    frame, bases = evidence.label_count, evidence.label_count_bases
    if frame is None:
        return _not_evaluated("C6", statement, missing_run("label_count"))
    if not {1, 6} <= set(frame["x"]):
        return _not_evaluated("C6", statement, "the run lacks L = 1 or L = 6")
    at = {L: frame[frame["x"] == L].set_index("line")["mean"] for L in (1, 6)}
    logistic = {L: means[[m for m in means.index if bases[m] in LOGISTIC_LEARNERS]] for L, means in at.items()}
    forest = at[1][[m for m in at[1].index if bases[m] == "random_forest"]]
    if "CCASL+AML" not in logistic[6] or forest.empty:
        return _not_evaluated("C6", statement, "the run lacks CCASL+AML or a random-forest method")
    best6 = logistic[6].idxmax()
    holds = best6 == "CCASL+AML" and forest.min() > logistic[1].max()
    evidence_text = (
        f"L = 6: best logistic-regression method {best6} {logistic[6].max():.3f} (CCASL+AML {logistic[6]['CCASL+AML']:.3f}); "
        f"L = 1: random forest {', '.join(f'{m} {v:.3f}' for m, v in forest.items())} vs best logistic regression "
        f"{logistic[1].idxmax()} {logistic[1].max():.3f}"
    )
    return Claim("C6", statement, _verdict(holds), evidence_text)


def claim_time(evidence: Evidence, reference: pd.DataFrame) -> Claim:
    """C7: the CCASL methods take about twice BR's and CC's time on large data; MLP ten times theirs."""
    statement = (
        f"Time (Table 'scalability'): CCASL methods about 2x BR/CC on the large datasets (N ≥ {LARGE_DATASET_SAMPLES}); "
        "MLP an order of magnitude slower than the CCASL methods"
    )
    means, sizes = evidence.paper_times, evidence.paper_sizes
    if means is None or sizes is None:
        return _not_evaluated("C7", statement, missing_run("paper"))
    needed = {"BR", "CC", "MLP", *CCASL_METHODS}
    if means.empty or not needed <= set(means.columns):
        return _not_evaluated("C7", statement, f"the paper run lacks a complete dataset or one of {', '.join(sorted(needed))}")
    large = [d for d in means.index if sizes[d] >= LARGE_DATASET_SAMPLES]
    ccasl = means[list(CCASL_METHODS)].mean(axis=1)
    mlp_ratio = float(np.exp(np.log(means["MLP"] / ccasl).mean()))
    mlp_text = f"MLP / CCASL methods: geometric mean {mlp_ratio:.1f}x over {len(means)} datasets"
    if not large:
        return _not_evaluated("C7", statement, f"no large dataset (N ≥ {LARGE_DATASET_SAMPLES}) has results; {mlp_text}")
    ratios = ccasl[large] / means.loc[large, ["BR", "CC"]].mean(axis=1)
    ratio = float(ratios.mean())
    holds = ABOUT_TWICE[0] <= ratio <= ABOUT_TWICE[1] and mlp_ratio >= ORDER_OF_MAGNITUDE
    per_dataset = ", ".join(f"{d} {r:.1f}x" for d, r in ratios.items())
    return Claim(
        "C7", statement, _verdict(holds),
        f"CCASL methods / BR,CC on {len(large)} large datasets: {ratio:.1f}x ({per_dataset}; 'about 2x' read as "
        f"{ABOUT_TWICE[0]}-{ABOUT_TWICE[1]}x); {mlp_text}",
    )


def _chain_ends(points: pd.DataFrame) -> tuple:
    """Mean accuracy over the first and the last quarter of the chain positions."""
    quarter = max(len(points) // 4, 1)
    means = points.sort_values("x")["mean"].to_numpy()
    return means[:quarter].mean(), means[-quarter:].mean()


def claim_medical_chain(evidence: Evidence, reference: pd.DataFrame) -> Claim:
    """C8: on Medical, a label's accuracy is higher at the end of the CCASL chain than at its start."""
    paper = reference[reference["table"] == "medical_chain"].set_index("method")["value"]
    statement = (
        f"Medical: per-label accuracy rises along the CCASL chain (paper: from {paper['CCASL start']:.2f} to "
        f"{paper['CCASL end']:.2f}; along CC's from {paper['CC start']:.2f} to {paper['CC end']:.2f})"
    )
    frame = evidence.medical_chain
    if frame is None:
        return _not_evaluated("C8", statement, "no per-label refits of Medical in the paper run")
    ends = {line: _chain_ends(points) for line, points in frame.groupby("line", sort=False)}
    if "CCASL" not in ends:
        return _not_evaluated("C8", statement, "no CCASL refits of Medical")
    first, last = ends["CCASL"]
    evidence_text = "; ".join(f"{line}: {a:.3f} over the first quarter of the chain, {b:.3f} over the last" for line, (a, b) in ends.items())
    return Claim("C8", statement, _verdict(last > first), evidence_text)


CLAIMS = (
    claim_logical,
    claim_synthetic,
    claim_exact_match_ranks,
    claim_hamming_ranks,
    claim_hidden_nodes,
    claim_label_count,
    claim_time,
    claim_medical_chain,
)
"""The claims table's rows, C1-C8: each ``(evidence, reference) -> Claim``."""


def decide_claims(evidence: Evidence, reference: pd.DataFrame) -> list:
    """Every claim of :data:`CLAIMS`, in order."""
    return [claim(evidence, reference) for claim in CLAIMS]
