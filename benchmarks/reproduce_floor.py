"""The floor that library code puts under ``make reproduce``: BR_RF's forests and MLP's products with X.

Section ``floor`` of ``python -m benchmarks.run``, on split 0 of every dataset of the paper's config:

- BR_RF fits one scikit-learn ``RandomForestClassifier`` (100 trees) on all labels and keeps it
  in compact form (:mod:`mlhidden.methods.compact_forest`), so its seconds are scikit-learn's tree
  growing: nothing in mlhidden can shorten them without growing other forests, which changes
  BR_RF's numbers. It is timed against the same forest (same seed) grown by scikit-learn in one
  go and kept whole, alternating.
- MLP trains its networks (:func:`~mlhidden.methods.mlp.candidate_sizes`: one, or two on the
  selection rows and a refit) for 1000 full-batch epochs, each with two products of X (the
  forward pass and the input layer's gradient) that no implementation of the same training can
  skip. Timed here: those products alone, in MLP's layout (single precision; a dense X once in
  column order, a sparse one in CSR with a CSR transpose), the refit at the smallest candidate.

scikit-learn's forests plus MLP's products, times the config's splits, over the machine's cores,
bound ``make reproduce``'s wall time from below: the rest of both methods and the ten others only
add to it.
"""

from __future__ import annotations

import os
import statistics
import time

import numpy as np
import yaml
from sklearn.utils import check_random_state

from benchmarks.hidden_layers import table_head, timed
from mlhidden.methods.base_learners import as_estimator, seed_estimator
from mlhidden.methods.mlp import MLP, candidate_sizes, product_layout, validation_rows
from mlhidden.methods.registry import make_method
from mlhidden.methods.sparse_products import matmul

REPRODUCE_TARGET_MINUTES = 10.0
TIMED_EPOCHS = 50  # per network; the products of an epoch cost the same every epoch


def paper_config(path) -> tuple[list, int]:
    """The datasets and the number of splits of the paper's config."""
    config = yaml.safe_load(path.read_text())
    return list(config["datasets"]), int(config["splits"])


def mlp_networks(n_rows: int, n_features: int, n_labels: int) -> list[tuple[int, int]]:
    """(training rows, hidden units) of each network MLP trains with its defaults, the refit at the smallest
    candidate."""
    mlp = MLP()
    sizes = candidate_sizes(mlp.n_hidden, mlp.max_hidden, n_features, n_labels)
    if len(sizes) == 1 or n_rows == 1:
        return [(n_rows, sizes[0])]
    selection_rows = n_rows - validation_rows(mlp.validation_fraction, n_rows)
    return [(selection_rows, size) for size in sizes] + [(n_rows, min(sizes))]


def mlp_product_seconds(X, networks, repeats: int) -> float:
    """Seconds of the two products with X in MLP's epochs of each of ``networks`` (median of ``repeats``)."""
    rng = np.random.RandomState(0)
    n_epochs = MLP().n_epochs
    runs = []
    for _ in range(repeats):
        spent = 0.0
        for n_rows, n_hidden in networks:
            inputs, transposed = product_layout(X[:n_rows])
            weights = rng.uniform(-0.1, 0.1, (X.shape[1], n_hidden)).astype(np.float32)
            delta = rng.uniform(-0.1, 0.1, (n_rows, n_hidden)).astype(np.float32)
            start = time.perf_counter()
            for _ in range(TIMED_EPOCHS):
                matmul(inputs, weights)
                matmul(transposed, delta)
            spent += (time.perf_counter() - start) * n_epochs / TIMED_EPOCHS
        runs.append(spent)
    return statistics.median(runs)


def bench_floor(X_train, X_test, Y_train, seed, repeats, log) -> dict:
    """Median seconds of BR_RF and of scikit-learn's forest with BR_RF's seed, their agreement, and MLP's products."""
    seconds: dict = {"ours": [], "peer": []}
    for repeat in range(repeats):
        spent, ours = timed(make_method("BR_RF", random_state=seed), X_train, Y_train, X_test)
        seconds["ours"].append(spent)
        forest = seed_estimator(as_estimator("random_forest"), check_random_state(seed))
        spent, theirs = timed(forest, X_train, Y_train, X_test)
        seconds["peer"].append(spent)
        log(f"  BR_RF rep {repeat + 1}: ours {seconds['ours'][-1]:.2f}s, RandomForestClassifier {spent:.2f}s")
    networks = mlp_networks(X_train.shape[0], X_train.shape[1], Y_train.shape[1])
    products = mlp_product_seconds(X_train, networks, repeats)
    log(f"  MLP's products with X: {products:.2f}s")
    return {
        **{side: statistics.median(values) for side, values in seconds.items()},
        "shape": (X_train.shape[0], X_train.shape[1], Y_train.shape[1]),
        "identical": float(np.mean(ours == theirs)),
        "networks": networks,
        "products": products,
    }


def render_floor(results: dict, paper_datasets: list, splits: int, unavailable: list) -> tuple[list, list]:
    """The floor table, the floor it adds up to under ``make reproduce``, and the verdict."""
    lines = table_head(
        "## The floor under `make reproduce`: scikit-learn's forests (BR_RF) and MLP's products with X "
        "(BR_RF: train + test)",
        [
            "dataset",
            "train rows x features x labels",
            "BR_RF s",
            "RandomForestClassifier s",
            "BR_RF / scikit-learn",
            "identical test entries",
            "MLP networks (rows, units)",
            "MLP's products s",
        ],
    )
    for name, r in results.items():
        networks = ", ".join(f"({rows}, {units})" for rows, units in r["networks"])
        lines.append(
            f"| {name} | {' x '.join(map(str, r['shape']))} | {r['ours']:.2f} | {r['peer']:.2f} | "
            f"{r['ours'] / r['peer']:.2f} | "
            f"{r['identical']:.4%} | {networks} | {r['products']:.2f} |"
        )
    measured = [name for name in paper_datasets if name in results]
    cores = os.cpu_count() or 1
    forests, products = (
        sum(results[name][key] for name in measured) * splits / cores / 60 for key in ("peer", "products")
    )
    lines += [
        "",
        f"On the {len(measured)} dataset(s) of the paper's config measured here, for {splits} splits "
        f"on {cores} core(s): "
        f"scikit-learn's forests {forests:.1f} min of wall time, MLP's products with X {products:.1f} min, "
        f"together {forests + products:.1f} min before anything else runs."
        + (f" Not available here: {', '.join(unavailable)}." if unavailable else ""),
        "",
    ]
    if any(name not in results and name not in unavailable for name in paper_datasets):
        return lines, []
    floor = forests + products
    verdict = (
        "cannot be met without changing these methods"
        if floor > REPRODUCE_TARGET_MINUTES
        else "not ruled out by this floor"
    )
    return lines, [
        f"- `make reproduce` <= {REPRODUCE_TARGET_MINUTES:g} min on {cores} cores: scikit-learn's forests of BR_RF "
        "and MLP's "
        f"products with X alone need {floor:.1f} min -> {verdict}"
    ]
