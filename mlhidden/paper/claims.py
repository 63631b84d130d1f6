"""The paper's claims C1-C8, each decided from the :class:`~mlhidden.paper.claim_inputs.Evidence` it needs.

Every ``claim_*`` is a pure function ``(evidence, reference) -> Claim``: no file is read, nothing
is fitted or drawn, so a claim can be tested on evidence made by hand
(:func:`mlhidden.paper.evidence.gather_evidence` makes it from the stores). A claim whose evidence is
missing is "not evaluated" and says why. Otherwise it is a set of paired comparisons
(:mod:`mlhidden.report.uncertainty`: over the same splits, over datasets, or by average rank), and
its verdict, holds / does not hold / inconclusive, comes from :func:`~mlhidden.report.uncertainty.combine`
alone, with the comparison that decided it printed.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mlhidden.methods.base_learners import LOGISTIC_LEARNERS
from mlhidden.paper.claim_inputs import Evidence
from mlhidden.paper.claim_terms import (
    ABOUT_TWICE,
    CCASL_METHODS,
    DEVIATION,
    LARGE_DATASET_SAMPLES,
    ORDER_OF_MAGNITUDE,
    PERFECT,
    PRINTED,
    Claim,
    decided,
    missing_run,
    not_evaluated,
)
from mlhidden.report.tables import METRICS
from mlhidden.report.uncertainty import FAILS as FAILS
from mlhidden.report.uncertainty import HOLDS as HOLDS
from mlhidden.report.uncertainty import INCONCLUSIVE as INCONCLUSIVE
from mlhidden.report.uncertainty import NOT_EVALUATED as NOT_EVALUATED
from mlhidden.report.uncertainty import paired, rank_comparison, within


def claim_logical(evidence: Evidence, reference: pd.DataFrame) -> Claim:
    """C1: each of Table 3's twelve values (six models, two metrics) is within DEVIATION of the paper's.

    Per value, our splits minus the paper's value must lie within ± DEVIATION (two one-sided tests).
    """
    paper = reference[reference["table"] == "logical"]
    values = paper.pivot_table(index="method", columns="metric", values="value", sort=False)
    statement = "Table 3 on Logical (Hamming score / exact match): " + ", ".join(
        f"{model} {row['hamming_score']:.2f} / {row['exact_match']:.2f}" for model, row in values.iterrows()
    )
    splits = evidence.logical_splits
    if splits is None:
        return not_evaluated("C1", statement, missing_run("logical"))
    comparisons, deviations, missing = [], [], []
    for row in paper.itertuples():
        ours = splits.loc[splits["method"] == row.method, row.metric].to_numpy(dtype=float)
        if not len(ours):
            missing.append(row.method)
            continue
        name = f"{row.method} {METRICS[row.metric].title.lower()}"
        comparisons.append(within(
            f"{name} − paper's {row.value:.2f}", ours - row.value, (-DEVIATION, DEVIATION), "splits",
            reading=f"'reproduces' read as within ±{DEVIATION} of the paper's value",
        ))
        if abs(ours.mean() - row.value) > DEVIATION:
            deviations.append(f"{name} {ours.mean():.2f} (paper {row.value:.2f})")
    text = f"{len(deviations)} of {len(paper)} values differ by more than {DEVIATION}" + (
        ": " + "; ".join(deviations) if deviations else ""
    )
    claim = decided("C1", statement, comparisons, text)
    if missing and claim.verdict != FAILS:
        return not_evaluated("C1", statement, f"no results for {', '.join(sorted(set(missing)))}")
    return claim


KINDS_ORDER = {"complex": ("CCASL", "CC", "BR"), "simple": ("BR", "CC", "CCASL")}
"""C2's claimed order of BR, CC and CCASL by exact match on each kind of synthetic data, best first."""


def claim_synthetic(evidence: Evidence, reference: pd.DataFrame) -> Claim:
    """C2: Table 4's ordering of BR, CC and CCASL by exact match, reversed between complex and simple data.

    Each neighbouring pair of the claimed order is a paired comparison over the kind's datasets;
    "≥" is read as "better", since no margin of equality is given.
    """
    statement = "Table 4, exact match: complex data CCASL > CC > BR; simple data BR ≥ CC ≥ CCASL"
    datasets = evidence.synthetic_datasets
    if datasets is None:
        return not_evaluated("C2", statement, missing_run("synthetic"))
    if not {(kind, m) for kind in KINDS_ORDER for m in KINDS_ORDER[kind]} <= set(
        zip(datasets["kind"], datasets["method"])
    ):
        return not_evaluated("C2", statement, "the run lacks a kind (complex, simple) or a method (BR, CC, CCASL)")
    comparisons, texts = [], []
    for kind, order in KINDS_ORDER.items():
        exact = datasets[datasets["kind"] == kind].pivot_table(
            index="dataset", columns="method", values="exact_match", sort=False
        )
        for better, worse in zip(order, order[1:]):
            comparisons.append(paired(f"{kind}: {better} − {worse}", exact[better] - exact[worse], "datasets"))
        texts.append(
            f"{kind} ({len(exact)} datasets): " + ", ".join(f"{m} {exact[m].mean():.3f}" for m in ("BR", "CC", "CCASL"))
        )
    return decided("C2", statement, comparisons, "; ".join(texts))


def _rank_claim(evidence: Evidence, key: str, statement: str, metric: str, pairs) -> Claim:
    """A claim about the paper run's average ranks on ``metric``: ``pairs(ranks)`` lists its (better, worse) pairs."""
    if evidence.paper_ranks is None:
        return not_evaluated(key, statement, missing_run("paper"))
    summary = evidence.paper_ranks[metric]
    if not summary.n_datasets:
        return not_evaluated(key, statement, "no dataset of the paper run has every method's result")
    ranks = summary.ranks
    wanted = pairs(list(ranks.index))
    missing = sorted({m for pair in wanted for m in pair} - set(ranks.index))
    if missing or len(ranks) < 2:
        return not_evaluated(key, statement, f"the paper run lacks {', '.join(missing) or 'a second method'}")
    comparisons = [
        rank_comparison(better, worse, ranks, summary.n_datasets, summary.friedman_p)
        for better, worse in dict.fromkeys(wanted)
    ]
    text = f"average ranks over {summary.n_datasets} datasets: " + ", ".join(f"{m} {r:.2f}" for m, r in ranks.items())
    return decided(key, statement, comparisons, text + f"; Friedman p {summary.friedman_p:.2g}")


def claim_exact_match_ranks(evidence: Evidence, reference: pd.DataFrame) -> Claim:
    """C3: by average exact-match rank, CCASL+AML is first, CCASL+BR second and ELM last."""
    def pairs(methods):
        first = [("CCASL+AML", m) for m in methods if m != "CCASL+AML"]
        second = [("CCASL+BR", m) for m in methods if m not in ("CCASL+AML", "CCASL+BR")]
        return [*first, *second, *((m, "ELM") for m in methods if m != "ELM")]

    return _rank_claim(
        evidence,
        "C3",
        "Exact-match average rank (Table 'results'): CCASL+AML best, CCASL+BR second, ELM worst",
        "exact_match",
        pairs,
    )


def claim_hamming_ranks(evidence: Evidence, reference: pd.DataFrame) -> Claim:
    """C4: by average Hamming-score rank, BR with random forests is first."""
    return _rank_claim(
        evidence, "C4", "Hamming-score average rank (Table 'results'): BR_RF best", "hamming_score",
        lambda methods: [("BR_RF", m) for m in methods if m != "BR_RF"],
    )


def _at(splits: pd.DataFrame, line: str, x) -> pd.Series:
    """One sweep point's values by split."""
    chosen = splits[(splits["line"] == line) & (splits["x"] == x)]
    return chosen.set_index("split")["value"].astype(float)


def _first_perfect(points: pd.DataFrame):
    perfect = points[points["mean"] >= 1.0 - 1e-9]
    return None if perfect.empty else perfect["x"].min()


def claim_hidden_nodes(evidence: Evidence, reference: pd.DataFrame) -> Claim:
    """C5: on Logical, CCASL+AML is perfect with one hidden node, while ELM and MLP need more.

    At K = 1: CCASL+AML's exact match against PERFECT, and CCASL+AML against ELM and against MLP
    paired over the splits.
    """
    statement = (
        "Fig. 'contrast' (Logical): CCASL+AML reaches exact match 1.0 with K = 1 hidden node; ELM and MLP need more"
    )
    splits = evidence.hidden_nodes_splits
    if splits is None:
        return not_evaluated("C5", statement, missing_run("hidden_nodes"))
    at_one = {line: _at(splits, line, 1) for line in ("CCASL+AML", "ELM", "MLP")}
    if any(values.empty for values in at_one.values()):
        return not_evaluated("C5", statement, "the run lacks CCASL+AML, ELM or MLP at K = 1")
    aml = at_one["CCASL+AML"]
    comparisons = [paired(
        "CCASL+AML at K = 1", aml, "splits", null=PERFECT, claimed=(1.0 - PRINTED, 1.0),
        reading=f"'reaches 1.0' read as a mean above {PERFECT} whose interval reaches {1 - PRINTED}",
    )]
    comparisons += [paired(f"CCASL+AML − {line} at K = 1", aml - at_one[line], "splits") for line in ("ELM", "MLP")]
    means = {
        line: points.groupby("x")["value"].mean().reset_index().rename(columns={"value": "mean"})
        for line, points in splits.groupby("line")
    }
    reached = "; ".join(
        f"{line} first reaches 1.0 at K = {first}" if (first := _first_perfect(means[line])) is not None
        else f"{line} never reaches 1.0 (best {means[line]['mean'].max():.2f})"
        for line in ("CCASL+AML", "ELM", "MLP")
    )
    return decided(
        "C5",
        statement,
        comparisons,
        "at K = 1: " + ", ".join(f"{m} {v.mean():.2f}" for m, v in at_one.items()) + f"; {reached}",
    )


def claim_label_count(evidence: Evidence, reference: pd.DataFrame) -> Claim:
    """C6: on Scene's first L labels, CCASL+AML leads logistic regression at L = 6, random forests lead at L = 1.

    At L = 6, CCASL+AML against every other logistic-regression method; at L = 1, every
    random-forest method against the best logistic-regression one; each paired over the splits.
    """
    statement = (
        "Fig. 'labup' (Scene, first L labels): at L = 6 CCASL+AML is the best logistic-regression method; "
        "at L = 1 random forest beats logistic regression"
    )
    splits, bases = evidence.label_count_splits, evidence.label_count_bases
    if splits is None:
        return not_evaluated("C6", statement, missing_run("label_count"))
    if not {1, 6} <= set(splits["x"]):
        return not_evaluated("C6", statement, "the run lacks L = 1 or L = 6")
    lines = list(dict.fromkeys(splits["line"]))
    logistic = [m for m in lines if bases.get(m) in LOGISTIC_LEARNERS]
    forest = [m for m in lines if bases.get(m) == "random_forest"]
    if "CCASL+AML" not in logistic or not forest:
        return not_evaluated("C6", statement, "the run lacks CCASL+AML or a random-forest method")
    six = {m: _at(splits, m, 6) for m in logistic}
    one = {m: _at(splits, m, 1) for m in [*logistic, *forest]}
    best_one = max(logistic, key=lambda m: one[m].mean())
    comparisons = [
        paired(f"L = 6: CCASL+AML − {m}", six["CCASL+AML"] - six[m], "splits") for m in logistic if m != "CCASL+AML"
    ]
    comparisons += [paired(f"L = 1: {m} − {best_one}", one[m] - one[best_one], "splits") for m in forest]
    best_six = max(logistic, key=lambda m: six[m].mean())
    text = (
        f"L = 6: best logistic-regression method {best_six} {six[best_six].mean():.3f} "
        f"(CCASL+AML {six['CCASL+AML'].mean():.3f}); "
        f"L = 1: random forest {', '.join(f'{m} {one[m].mean():.3f}' for m in forest)} vs best logistic regression "
        f"{best_one} {one[best_one].mean():.3f}"
    )
    return decided("C6", statement, comparisons, text)


def _log_ratios(units: pd.DataFrame, numerator, denominator) -> pd.Series:
    """Per (dataset, split), log of the mean time of ``numerator`` methods over that of ``denominator`` methods."""
    times = units.pivot_table(index=["dataset", "split"], columns="method", values="total_seconds", sort=False)
    return np.log(times[list(numerator)].mean(axis=1) / times[list(denominator)].mean(axis=1))


def claim_time(evidence: Evidence, reference: pd.DataFrame) -> Claim:
    """C7: the CCASL methods take about twice BR's and CC's time on large data; MLP ten times theirs.

    Both are time ratios per split (the same split's units), on a log scale, pooled over the
    datasets concerned: the large ones for the first, every ranked one for the second.
    """
    statement = (
        "Time (Table 'scalability'): CCASL methods about 2x BR/CC on the large datasets "
        f"(N ≥ {LARGE_DATASET_SAMPLES}); "
        "MLP an order of magnitude slower than the CCASL methods"
    )
    units, sizes = evidence.paper_time_splits, evidence.paper_sizes
    if units is None or sizes is None:
        return not_evaluated("C7", statement, missing_run("paper"))
    needed = {"BR", "CC", "MLP", *CCASL_METHODS}
    if units.empty or not needed <= set(units["method"]):
        return not_evaluated(
            "C7", statement, f"the paper run lacks a complete dataset or one of {', '.join(sorted(needed))}"
        )
    mlp = _log_ratios(units, ["MLP"], CCASL_METHODS)
    n_datasets = mlp.index.get_level_values("dataset").nunique()
    mlp_text = f"MLP / CCASL methods: geometric mean {math.exp(mlp.mean()):.1f}x over {n_datasets} datasets"
    large = [d for d in dict.fromkeys(units["dataset"]) if sizes[d] >= LARGE_DATASET_SAMPLES]
    if not large:
        return not_evaluated(
            "C7", statement, f"no large dataset (N ≥ {LARGE_DATASET_SAMPLES}) has results; {mlp_text}"
        )
    ccasl = _log_ratios(units[units["dataset"].isin(large)], CCASL_METHODS, ["BR", "CC"])
    low, high = ABOUT_TWICE
    comparisons = [
        within(
            "CCASL methods / BR,CC on the large datasets",
            ccasl,
            (math.log(low), math.log(high)),
            f"splits of {len(large)} datasets",
            reading=f"'about 2x' read as {low}-{high}x",
            ratio=True,
        ),
        paired(
            "MLP / CCASL methods",
            mlp,
            f"splits of {n_datasets} datasets",
            null=math.log(ORDER_OF_MAGNITUDE),
            reading=f"'an order of magnitude' read as at least {ORDER_OF_MAGNITUDE:g}x",
            ratio=True,
        ),
    ]
    per_dataset = ", ".join(
        f"{d} {math.exp(r):.1f}x" for d, r in ccasl.groupby(level="dataset", sort=False).mean().items()
    )
    text = (
        f"CCASL methods / BR,CC on {len(large)} large datasets: {math.exp(ccasl.mean()):.1f}x ({per_dataset}); "
        f"{mlp_text}"
    )
    return decided("C7", statement, comparisons, text)


def _printed_difference(a: float, b: float) -> tuple:
    """The range of a - b for two values the paper prints rounded to two decimals."""
    return a - b - 2 * PRINTED, a - b + 2 * PRINTED


def _chain_ends(values: pd.Series) -> tuple:
    """Mean accuracy over the first and the last quarter of the chain positions (``values`` indexed by position)."""
    ordered = values.sort_index().to_numpy(dtype=float)
    quarter = max(len(ordered) // 4, 1)
    return ordered[:quarter].mean(), ordered[-quarter:].mean()


def claim_medical_chain(evidence: Evidence, reference: pd.DataFrame) -> Claim:
    """C8: on Medical, per-label accuracy rises along the CCASL chain (and CC's) by the paper's amounts, CCASL's
    well above CC's.

    Per split, a chain's rise is its mean accuracy over the last quarter of the positions minus the
    first quarter's; the paper's rises (end minus start) are the claimed sizes. The contrast is
    CCASL's mean accuracy over the chain minus CC's, paired over the splits, against the paper's.
    """
    paper = reference[reference["table"] == "medical_chain"].set_index("method")["value"]
    statement = (
        f"Medical: per-label accuracy rises along the CCASL chain (paper: from {paper['CCASL start']:.2f} to "
        f"{paper['CCASL end']:.2f}; along CC's from {paper['CC start']:.2f} to {paper['CC end']:.2f})"
    )
    splits = evidence.medical_chain_splits
    if splits is None:
        return not_evaluated("C8", statement, "no per-label refits of Medical in the paper run")
    if "CCASL" not in set(splits["line"]):
        return not_evaluated("C8", statement, "no CCASL refits of Medical")
    lines = [line for line in ("CC", "CCASL") if line in set(splits["line"])]
    ends = {
        line: pd.DataFrame(
            [
                _chain_ends(group.set_index("x")["value"])
                for _, group in splits[splits["line"] == line].groupby("split")
            ],
            index=sorted(set(splits.loc[splits["line"] == line, "split"])),
            columns=["start", "end"],
        )
        for line in lines
    }
    comparisons = [
        paired(
            f"{line}: rise along the chain", ends[line]["end"] - ends[line]["start"], "splits",
            claimed=_printed_difference(paper[f"{line} end"], paper[f"{line} start"]),
            reading="the paper's 'from a to b' read as a rise of b − a ± its rounding, last quarter minus first",
        )
        for line in lines
    ]
    if "CC" in lines:
        level = {line: splits[splits["line"] == line].groupby("split")["value"].mean() for line in lines}
        midpoints = {line: (paper[f"{line} start"] + paper[f"{line} end"]) / 2 for line in lines}
        comparisons.append(paired(
            "CCASL − CC, mean over the chain", level["CCASL"] - level["CC"], "splits",
            claimed=_printed_difference(midpoints["CCASL"], midpoints["CC"]),
            reading="the paper's contrast read as the difference of its two chains' midpoints ± their rounding",
        ))
    text = "; ".join(
        f"{line}: {ends[line]['start'].mean():.3f} over the first quarter of the chain, "
        f"{ends[line]['end'].mean():.3f} over the last"
        for line in lines
    )
    return decided("C8", statement, comparisons, text)


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
