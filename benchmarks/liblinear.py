"""mlhidden's batched liblinear against scikit-learn's liblinear fitted one label at a time.

A section of ``python -m benchmarks.run`` (``--sections liblinear``): CC, CCASL and CCASL+AML
under ``solver: liblinear`` (the sensitivity study's settings b and f), each fitted with the
batched TRON of :mod:`mlhidden.methods.batched_tron` and with one scikit-learn
``LogisticRegression(solver="liblinear")`` per label or chain link, the route the methods took
before it; alternating within each repetition. Reported: the ratio of medians and the share of
identical test predictions.
"""

from __future__ import annotations

import statistics

import numpy as np
from sklearn.linear_model import LogisticRegression

from benchmarks.hidden_layers import table_head, timed
from mlhidden.methods.registry import make_method

LIBLINEAR_METHODS = ("CC", "CCASL", "CCASL+AML")
LIBLINEAR_DATASETS = ("Enron", "Bibtex", "Corel5k")
LIBLINEAR = {"name": "logistic", "params": {"solver": "liblinear"}}


class OneByOneLiblinear(LogisticRegression):
    """scikit-learn's liblinear, one model per label: mlhidden batches only a plain ``LogisticRegression``."""


def bench_liblinear(X_train, X_test, Y_train, seed, repeats, log) -> dict:
    """Median seconds of each method batched and one by one, and their agreement on the test part."""
    result = {}
    for method in LIBLINEAR_METHODS:
        seconds: dict = {"batched": [], "one by one": []}
        for repeat in range(repeats):
            batched = make_method(method, base=LIBLINEAR, random_state=seed)
            spent, ours = timed(batched, X_train, Y_train, X_test)
            seconds["batched"].append(spent)
            spent, theirs = timed(batched.set_params(estimator=OneByOneLiblinear(solver="liblinear")), X_train, Y_train, X_test)
            seconds["one by one"].append(spent)
            log(f"  {method} liblinear rep {repeat + 1}: batched {seconds['batched'][-1]:.2f}s, one by one {spent:.2f}s")
        result[method] = {**{route: statistics.median(values) for route, values in seconds.items()}, "agreement": float(np.mean(ours == theirs))}
    return result


def render_liblinear(results: dict) -> tuple[list, list]:
    """The "liblinear: batched vs one by one" table (no target: it shows what settings b and f cost)."""
    lines = table_head(
        "## liblinear: batched TRON vs scikit-learn one label at a time (train + test)",
        ["dataset", "method", "batched s", "one by one s", "speed-up", "identical test entries"],
    )
    for name, result in results.items():
        for method, row in result.items():
            lines.append(
                f"| {name} | {method} | {row['batched']:.2f} | {row['one by one']:.2f} | {row['one by one'] / row['batched']:.1f}x | {row['agreement']:.4%} |"
            )
    return lines + [""], []
