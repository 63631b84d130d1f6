"""mlhidden's batched base learners against scikit-learn's, fitted one label at a time.

Sections of ``python -m benchmarks.run``:

- ``liblinear``: CC, CCASL and CCASL+AML under ``solver: liblinear`` (the sensitivity study's
  settings b and f), fitted with the batched TRON of :mod:`mlhidden.methods.solvers.batched_tron`;
- ``logistic_cv``: the same methods with C tuned per label by ``LogisticRegressionCV`` on
  standardised inputs (setting h), fitted with :mod:`mlhidden.methods.solvers.batched_logistic_cv`
  (not in ``--quick`` runs: scikit-learn's one-by-one fits take minutes on any real dataset).

Each is timed against one scikit-learn estimator per label or chain link (a subclass, which
mlhidden does not batch: the route the methods took before), alternating within each
repetition. Reported: the ratio of medians and the share of identical test predictions.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

import numpy as np
from sklearn.linear_model import LogisticRegression, LogisticRegressionCV

from benchmarks.hidden_layers import QUICK_HIDDEN_DATASETS, table_head, timed
from mlhidden.methods.base_learners import make_base_learner
from mlhidden.methods.preprocessing import StandardScaling
from mlhidden.methods.registry import make_method

BATCHED_METHODS = ("CC", "CCASL", "CCASL+AML")


class OneByOneLiblinear(LogisticRegression):
    """scikit-learn's liblinear, one model per label: mlhidden batches only a plain ``LogisticRegression``."""


class OneByOneLogisticCV(LogisticRegressionCV):
    """scikit-learn's ``LogisticRegressionCV``, one model per label: mlhidden batches only the plain class."""


@dataclass(frozen=True)
class BatchedBase:
    spec: dict
    one_by_one: type
    datasets: tuple
    quick: tuple  # the datasets of ``--quick``
    standardise: bool
    title: str


BATCHED_BASES = {
    "liblinear": BatchedBase(
        {"name": "logistic", "params": {"solver": "liblinear"}},
        OneByOneLiblinear,
        ("Enron", "Bibtex", "Corel5k"),
        QUICK_HIDDEN_DATASETS,
        False,
        "liblinear: batched TRON vs scikit-learn's liblinear one label at a time (settings b and f)",
    ),
    "logistic_cv": BatchedBase(
        {"name": "logistic_cv", "params": {"max_iter": 1000}},
        OneByOneLogisticCV,
        ("Scene", "Medical", "Enron"),
        (),
        True,
        "LogisticRegressionCV: batched folds and C path vs scikit-learn one label at a time "
        "(setting h, standardised inputs)",
    ),
}


def bench_batched_base(section, X_train, X_test, Y_train, seed, repeats, log) -> dict:
    """Median seconds of each method batched and one by one, and their agreement on the test part."""
    base = BATCHED_BASES[section]
    if base.standardise:
        scaling = StandardScaling().fit(X_train)
        X_train, X_test = scaling.transform(X_train), scaling.transform(X_test)
    one_by_one = base.one_by_one(**make_base_learner(base.spec).get_params())
    result = {}
    for method in BATCHED_METHODS:
        seconds: dict = {"batched": [], "one by one": []}
        for repeat in range(repeats):
            batched = make_method(method, base=base.spec, random_state=seed)
            spent, ours = timed(batched, X_train, Y_train, X_test)
            seconds["batched"].append(spent)
            spent, theirs = timed(batched.set_params(estimator=one_by_one), X_train, Y_train, X_test)
            seconds["one by one"].append(spent)
            log(
                f"  {method} {section} rep {repeat + 1}: batched {seconds['batched'][-1]:.2f}s, one by one {spent:.2f}s"
            )
        result[method] = {
            **{route: statistics.median(values) for route, values in seconds.items()},
            "agreement": float(np.mean(ours == theirs)),
        }
    return result


def render_batched_base(section, results: dict) -> tuple[list, list]:
    """The section's "batched vs one by one" table (no target: it shows what the study's settings cost)."""
    lines = table_head(
        f"## {BATCHED_BASES[section].title} (train + test)",
        ["dataset", "method", "batched s", "one by one s", "speed-up", "identical test entries"],
    )
    for name, result in results.items():
        for method, row in result.items():
            lines.append(
                f"| {name} | {method} | {row['batched']:.2f} | {row['one by one']:.2f} | "
                f"{row['one by one'] / row['batched']:.1f}x | {row['agreement']:.4%} |"
            )
    return lines + [""], []
