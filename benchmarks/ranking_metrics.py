"""Time the ranking metrics a report computes from stored scores against scikit-learn's.

Run with ``python -m benchmarks.ranking_metrics``. scikit-learn ranks one row at a time in
Python; :mod:`mlhidden.runs.label_ranking` compares each relevant label with its row in one
array operation. ROC AUC is timed against ``roc_auc_score`` of the pooled entries (micro) and
called once per label (macro). This is the benchmark that justifies hand-writing them: a report
computes every metric of every stored unit (1,200 units on the full paper run), so the per-row
cost decides whether ``mlhidden report RUN --metric NAME`` takes seconds or minutes.

The arrays have the shape of a test part (40 % of the rows) of Bibtex, Corel5k and OHSUMED, with
their label cardinality spread over the labels by a Zipf-like frequency profile, and float32
probabilities that rank relevant labels higher on average, as a fitted method's do. Ours and
scikit-learn's alternate within each repetition in one process, one BLAS thread each; figures
are medians, and only the speed-ups, measured in the same run, mean much on a shared machine.
The section is printed and written into ``--out`` under its own heading (replacing an earlier
run's section, keeping the rest of the file).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import coverage_error, label_ranking_average_precision_score, label_ranking_loss, roc_auc_score
from threadpoolctl import threadpool_limits

from benchmarks.run import PROJECT_ROOT, machine_info
from mlhidden.runs import label_ranking
from mlhidden.runs.metrics import macro_auc, micro_auc


def macro_auc_label_by_label(Y_true, scores) -> float:
    """scikit-learn's ROC AUC averaged over the labels with both classes, one call per label."""
    both = [j for j in range(Y_true.shape[1]) if Y_true[:, j].min() != Y_true[:, j].max()]
    return float(np.mean([roc_auc_score(Y_true[:, j], scores[:, j]) for j in both]))


def micro_auc_pooled(Y_true, scores) -> float:
    """scikit-learn's ROC AUC of every label decision pooled."""
    return float(roc_auc_score(Y_true.ravel(), scores.ravel()))


HEADING = "## Ranking metrics of stored test scores: ours vs scikit-learn"
# (name, test rows, labels, label cardinality): 40 % of each dataset's rows.
SHAPES = (("Bibtex", 2958, 159, 2.40), ("Corel5k", 2000, 374, 3.52), ("OHSUMED", 5572, 23, 1.66))
METRICS = (
    ("ranking_loss", label_ranking.ranking_loss, label_ranking_loss),
    ("coverage_error", label_ranking.coverage_error, coverage_error),
    ("average_precision", label_ranking.average_precision, label_ranking_average_precision_score),
    ("one_error", label_ranking.one_error, None),
    ("micro_auc", micro_auc, micro_auc_pooled),
    ("macro_auc", macro_auc, macro_auc_label_by_label),
)


def shaped_arrays(n_rows: int, n_labels: int, cardinality: float, seed: int = 0) -> tuple:
    """A 0/1 truth with Zipf-like label frequencies summing to ``cardinality`` a row, and float32 scores."""
    rng = np.random.default_rng(seed)
    frequency = 1.0 / np.arange(1, n_labels + 1)
    frequency = np.minimum(frequency * cardinality / frequency.sum(), 0.9)
    truth = (rng.random((n_rows, n_labels)) < frequency).astype(np.int8)
    logits = 2.0 * truth + rng.normal(size=truth.shape) + np.log(frequency / (1 - frequency))
    return truth, (1.0 / (1.0 + np.exp(-logits))).astype(np.float32)


def timed(metric, truth, scores) -> tuple:
    start = time.perf_counter()
    value = metric(truth, scores)
    return time.perf_counter() - start, value


def bench_shape(n_rows, n_labels, cardinality, repeats) -> dict:
    """``{metric: (our seconds, sklearn seconds or None, |ours - sklearn|)}``, medians over ``repeats``."""
    truth, scores = shaped_arrays(n_rows, n_labels, cardinality)
    measured = {}
    for name, ours, theirs in METRICS:
        our_seconds, their_seconds, difference = [], [], 0.0
        for _ in range(repeats):
            seconds, our_value = timed(ours, truth, scores)
            our_seconds.append(seconds)
            if theirs is not None:
                seconds, their_value = timed(theirs, truth, scores)
                their_seconds.append(seconds)
                difference = max(difference, abs(our_value - their_value))
        measured[name] = (
            statistics.median(our_seconds),
            statistics.median(their_seconds) if their_seconds else None,
            difference,
        )
    return measured


def render(results: dict, machine: list, repeats: int, wall_seconds: float) -> str:
    lines = [HEADING, "", *machine, f"- wall time of this benchmark: {wall_seconds:.0f} s", ""]
    lines += [
        f"Medians of {repeats} alternating repetitions; ms/row is per test row. one_error has no",
        "scikit-learn counterpart (ours alone); micro_auc's is `roc_auc_score` of the",
        "pooled entries, macro_auc's `roc_auc_score` called label by label.",
        "abs diff is the largest difference between the two values.",
        "",
        "| shape (rows x labels, cardinality) | metric | ours ms/row | sklearn ms/row | speed-up | ours s | sklearn s "
        "| abs diff |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for (name, n_rows, n_labels, cardinality), measured in results.items():
        for metric, (ours, theirs, difference) in measured.items():
            shape = f"{name} ({n_rows} x {n_labels}, {cardinality})"
            if theirs is None:
                lines.append(f"| {shape} | {metric} | {1e3 * ours / n_rows:.4f} | | | {ours:.3f} | | |")
            else:
                row = (
                    f"{1e3 * ours / n_rows:.4f} | {1e3 * theirs / n_rows:.4f} | {theirs / ours:.0f}x | "
                    f"{ours:.3f} | {theirs:.3f} | {difference:.1e}"
                )
                lines.append(f"| {shape} | {metric} | {row} |")
    return "\n".join(lines) + "\n"


def with_section(document: str, section: str) -> str:
    """``document`` with its ``HEADING`` section (up to the next level-2 heading) replaced by ``section``, or
    appended."""
    start = document.find(HEADING)
    if start < 0:
        return document.rstrip("\n") + "\n\n" + section
    end = document.find("\n## ", start + len(HEADING))
    return document[:start] + section + ("" if end < 0 else "\n" + document[end + 1 :])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="repetitions per measurement (median reported)")
    parser.add_argument(
        "--out",
        type=Path,
        default=PROJECT_ROOT / "benchmarks" / "results.md",
        help="the file the section is written into",
    )
    args = parser.parse_args(argv)
    machine, started = machine_info("benchmarks.ranking_metrics"), time.perf_counter()
    with threadpool_limits(1):
        results = {shape: bench_shape(*shape[1:], args.repeats) for shape in SHAPES}
    section = render(results, machine, args.repeats, time.perf_counter() - started)
    args.out.write_text(with_section(args.out.read_text() if args.out.exists() else "", section))
    print(section)


if __name__ == "__main__":
    main()
