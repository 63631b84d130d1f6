"""The CCASL family against CC, and MLP against scikit-learn's MLPClassifier, on split 0.

Two sections of ``python -m benchmarks.run`` (``--sections ccasl,mlp``):

- CCASL, CCASL+BR and CCASL+AML each fitted alone (no shared fits), alternating with CC within
  each repetition; the ratio of medians to CC, and each fit's peak RSS; CC's and CCASL's CPU
  seconds too, which the L = 1000 target is judged on (on a loaded machine the wall ratio
  flatters CCASL: its dense products lose less to the load than CC's sparse ones). Beside them CCASL with its
  chain fitted as one batch (as before chains were fitted in blocks of links, see
  :func:`~mlhidden.methods.solvers.logistic_models.chain_blocks`) and the share of its test entries
  that the blocked fit predicts the same. CCASL's test predictions are compared with those
  of CCASL on a tightly converged base learner (tol 1e-8, no iteration cap), and every link of
  its chain is scored by its objective gap to that tight fit, for the solver of today (plain
  coordinates) and the one used (centred coordinates). Beside the ratios, the cost of one
  iteration's products per link, CCASL's chain over CC's, and what it makes the ratio at equal
  iterations per link: the part of the ratio that no solver can remove. And the L-BFGS iterations
  of all the links, CCASL's chain over CC's: the ratio CCASL would have if its links, which also
  read the dense synthetic columns, cost no more per iteration than CC's.
- ``MLP(n_hidden=100)`` against ``MLPClassifier`` at the same settings (1000 full-batch epochs,
  learning rate 0.1, momentum 0.9, sigmoid units, no penalty, no early stop) on the input scaled
  as MLP scales it, alternating; the ratio of median CPU seconds and both exact matches. MLP is timed twice:
  with its sparse products compiled (:mod:`mlhidden.methods.sparse_products`, the fast extra) and with
  scipy's, which must predict the same.
"""

from __future__ import annotations

import statistics
import time
import warnings
from contextlib import contextmanager, nullcontext
from unittest import mock

import numpy as np
import scipy.sparse as sp
from sklearn.neural_network import MLPClassifier

import mlhidden.methods.solvers.logistic_models as logistic_models
from benchmarks.peak_rss import PeakRSS
from mlhidden.methods import epoch_passes, sparse_products
from mlhidden.methods.hidden_units import apply_scaling, column_scaling
from mlhidden.methods.registry import make_method
from mlhidden.methods.solvers.batched_logistic import fit_batched_logistic
from mlhidden.methods.solvers.design import Design

CCASL_FAMILY = ("CCASL", "CCASL+BR", "CCASL+AML")
# Many-labels and Delicious: L = 1000, see benchmarks.generated.
CCASL_DATASETS = ("Bibtex", "Corel5k", "Many-labels-synthetic", "Delicious-synthetic")
MLP_DATASETS = ("Bibtex", "Enron", "Scene", "Corel5k", "OHSUMED")
MLP_HIDDEN = 100
QUICK_HIDDEN_DATASETS = ("Medical",)
# Issue #15: most seconds relative to CC, least share of CCASL's test entries equal to the tight fit's.
CCASL_TARGETS = {"CCASL": 2.5, "CCASL+BR": 3.0, "CCASL+AML": 3.0}
# CCASL at L ~ 1000 on the delicious-shaped set, reported against CC. Its target (<= 4x) is retired (issue #42):
# CC is bound by overhead, so the ratio says little; the parts section's floors (benchmarks.part_floor) replace it.
LARGE_SETS = ("Delicious-synthetic", "Delicious-synthetic-quarter")
ONE_BATCH = "CCASL one batch"
TIGHT_AGREEMENT = 0.999
TIGHT_BASE = {"name": "logistic", "params": {"tol": 1e-8, "max_iter": 10**6}}
MLP_TARGET = 3.5  # issue #55: against MLPClassifier given the same float32 input (Enron and Bibtex)
MLP_FLOOR_TARGET = 1.3  # issue #55: seconds over the floor (Corel5k, Bibtex, OHSUMED)
PRODUCT_REPEATS = 20


def link_product_cost(X_train, Y_train, units) -> float:
    """Seconds of one iteration's products (forward and backward) per link: CCASL's chain over CC's.

    Each design is built as the method builds it (CC: [X, Y] sparse; CCASL: [X, Z, Y] centred,
    Z in a dense block). An iteration of every link touches its whole design, so at equal
    iterations per link CCASL costs this times (K + L) / L what CC costs.
    """
    rng = np.random.RandomState(0)
    Y = Y_train.astype(np.float64)
    per_link = []
    for design, links in (
        (Design(X_train, Y), Y.shape[1]),
        (Design(X_train, np.hstack([units, Y]), center=True), units.shape[1] + Y.shape[1]),
    ):
        V, R = rng.normal(size=(design.n_inputs + 1, links)), rng.normal(size=(X_train.shape[0], links))
        start = time.perf_counter()
        for _ in range(PRODUCT_REPEATS):
            design.forward(V)
            design.backward(R)
        per_link.append((time.perf_counter() - start) / links)
    return per_link[1] / per_link[0]


def link_iterations(links) -> int:
    """The L-BFGS iterations of a chain's fitted links, summed (a constant link has none)."""
    return int(sum(np.sum(getattr(link, "n_iter_", 0)) for link in links))


def timed(estimator, X_train, Y_train, X_test, rss=None, cpu=None):
    """Train + test seconds and the test predictions; the peak RSS goes to ``rss``, the CPU seconds to ``cpu``
    (lists) if given."""
    with warnings.catch_warnings(), PeakRSS() as peak:
        warnings.simplefilter("ignore")
        start, start_cpu = time.perf_counter(), time.process_time()
        predicted = np.asarray(estimator.fit(X_train, Y_train).predict(X_test))
        spent_cpu = time.process_time() - start_cpu
    if rss is not None:
        rss.append(peak.peak)
    if cpu is not None:
        cpu.append(spent_cpu)
    return time.perf_counter() - start, predicted


@contextmanager
def one_batch_chains():
    """Chains fitted as one batch of all their links, as before
    :func:`~mlhidden.methods.solvers.logistic_models.chain_blocks`."""
    blocks = logistic_models.BLOCK_LINKS
    logistic_models.BLOCK_LINKS = np.iinfo(np.int64).max
    try:
        yield
    finally:
        logistic_models.BLOCK_LINKS = blocks


def link_objectives(X, T, targets, coef, intercept, C=1.0) -> np.ndarray:
    """Each chain link's objective: mean log-loss of its target on [X, T] plus ||w||^2 / (2 C n)."""
    design = sp.hstack([X, sp.csr_matrix(T)], format="csr") if sp.issparse(X) else np.hstack([X, T])
    scores = np.asarray(design @ coef) + intercept
    loss = (np.logaddexp(0.0, scores) - targets * scores).mean(axis=0)
    return loss + (coef**2).sum(axis=0) / (2.0 * C * X.shape[0])


def chain_weights(chain, links, n_inputs: int):
    """The weights of the chain's ``links`` as columns over [X, T] (zero where a link does not look), and intercepts."""
    coef, intercept = np.zeros((n_inputs, len(links))), np.zeros(len(links))
    for column, link in enumerate(links):
        model = chain.estimators_[link]
        coef[: model.coef_.shape[1], column] = model.coef_.ravel()
        intercept[column] = model.intercept_[0]
    return coef, intercept


def gaps_to_tight(ccasl, tight, X_train, Y_train) -> dict:
    """Per link of CCASL's chain (targets with both classes): objective gap to the tight fit, today's solver vs ours."""
    T = np.hstack([ccasl.units_.train_units_, Y_train]).astype(np.float64)
    varying = np.flatnonzero(T.min(axis=0) != T.max(axis=0))
    n_inputs = X_train.shape[1] + T.shape[1]
    today = fit_batched_logistic(X_train, T[:, varying], extra=T, extra_mask=np.arange(T.shape[1])[:, None] < varying)
    objective = {"today": link_objectives(X_train, T, T[:, varying], today.coef, today.intercept)}
    for name, model in (("ours", ccasl), ("tight", tight)):
        objective[name] = link_objectives(X_train, T, T[:, varying], *chain_weights(model.chain_, varying, n_inputs))
    today_gap, our_gap = objective["today"] - objective["tight"], objective["ours"] - objective["tight"]
    our_iterations = np.array([ccasl.chain_.estimators_[link].n_iter_[0] for link in varying])
    synthetic = varying < ccasl.n_synthetic_
    return {
        "today_median": float(np.median(today_gap)),
        "today_max": float(today_gap.max()),
        "ours_median": float(np.median(our_gap)),
        "ours_max": float(our_gap.max()),
        "today_sum": float(today_gap.sum()),
        "ours_sum": float(our_gap.sum()),
        "ours_closer": float(np.mean(our_gap <= today_gap)),
        "today_iterations": float(today.n_iter.mean()),
        "today_converged": float(today.converged.mean()),
        "ours_iterations_synthetic": float(our_iterations[synthetic].mean()),
        "ours_iterations_real": float(our_iterations[~synthetic].mean()),
    }


def bench_ccasl(X_train, X_test, Y_train, seed, repeats, log, gaps=True) -> dict:
    """Median seconds of CC and the CCASL family fitted alone, alternating; CCASL vs its tight fit."""
    seconds = {name: [] for name in ("CC", ONE_BATCH, *CCASL_FAMILY)}
    rss: dict = {name: [] for name in seconds}
    cpu: dict = {name: [] for name in seconds}
    predictions, models = {}, {}
    for repeat in range(repeats):
        for name in seconds:
            models[name] = make_method("CCASL" if name == ONE_BATCH else name, random_state=seed)
            with one_batch_chains() if name == ONE_BATCH else nullcontext():
                spent, predictions[name] = timed(models[name], X_train, Y_train, X_test, rss[name], cpu[name])
            seconds[name].append(spent)
        log(
            f"  CCASL family rep {repeat + 1}: "
            + ", ".join(f"{name} {seconds[name][-1]:.2f}s ({cpu[name][-1]:.2f} CPU s)" for name in seconds)
        )
    units = models["CCASL"].units_.train_units_
    result = {
        "seconds": {name: statistics.median(values) for name, values in seconds.items()},
        "cpu_seconds": {name: statistics.median(values) for name, values in cpu.items()},
        "peak_rss": {name: max(values) for name, values in rss.items()},
        "same_as_one_batch": float(np.mean(predictions["CCASL"] == predictions[ONE_BATCH])),
        "product_cost": link_product_cost(X_train, Y_train, units),
        "links": (units.shape[1] + Y_train.shape[1]) / Y_train.shape[1],
        "link_iterations": {
            "CC": link_iterations(models["CC"].estimators_),
            "CCASL": link_iterations(models["CCASL"].chain_.estimators_),
        },
    }
    log(f"  one iteration's products per link, CCASL / CC: {result['product_cost']:.2f}")
    if gaps:
        ccasl = make_method("CCASL", random_state=seed)
        tight = make_method("CCASL", base=TIGHT_BASE, random_state=seed)
        timed(ccasl, X_train, Y_train, X_test)
        result["tight_seconds"], tight_predicted = timed(tight, X_train, Y_train, X_test)
        result["agreement"] = float(np.mean(predictions["CCASL"] == tight_predicted))
        result["gaps"] = gaps_to_tight(ccasl, tight, X_train, Y_train)
        log(f"  CCASL vs tight fit: {result['agreement']:.4%} identical entries, gaps {result['gaps']}")
    return result


def mlp_peer(n_rows: int, n_epochs: int) -> MLPClassifier:
    """MLPClassifier at MLP's settings: full batch, momentum 0.9 without Nesterov, no penalty, every epoch run."""
    return MLPClassifier(
        (100,),
        activation="logistic",
        solver="sgd",
        learning_rate_init=0.1,
        momentum=0.9,
        nesterovs_momentum=False,
        batch_size=n_rows,
        max_iter=n_epochs,
        alpha=0.0,
        tol=0.0,
        n_iter_no_change=n_epochs + 1,
        shuffle=False,
        random_state=0,
    )


@contextmanager
def scipy_products():
    """A context in which mlhidden's sparse products are scipy's and an MLP epoch's passes numpy's, as without
    the fast extra (the same numbers, slower)."""
    with mock.patch.object(sparse_products, "_kernels", dict), mock.patch.object(epoch_passes, "_loops", dict):
        yield


def bench_mlp(X_train, X_test, Y_train, Y_test, seed, repeats, n_epochs, log) -> dict:
    """Median CPU seconds (on a shared machine wall seconds measure the load) of MLP (100 hidden units; compiled
    products, then scipy's) and MLPClassifier on the same scaled input, alternating."""
    offset, scale = column_scaling(X_train, "auto")
    X_scaled, X_test_scaled = apply_scaling(X_train, offset, scale), apply_scaling(X_test, offset, scale)
    X_single, X_test_single = (X.astype(np.float32) for X in (X_scaled, X_test_scaled))
    ours, ours_scipy, peer, peer_single = [], [], [], []

    def mlp():
        return make_method("MLP", {"n_hidden": MLP_HIDDEN, "n_epochs": n_epochs}, random_state=seed)

    for repeat in range(repeats):
        _, our_predicted = timed(mlp(), X_train, Y_train, X_test, cpu=ours)
        with scipy_products():
            _, scipy_predicted = timed(mlp(), X_train, Y_train, X_test, cpu=ours_scipy)
        assert np.array_equal(our_predicted, scipy_predicted), "compiled and scipy's products predict alike"
        _, peer_predicted = timed(mlp_peer(X_train.shape[0], n_epochs), X_scaled, Y_train, X_test_scaled, cpu=peer)
        timed(mlp_peer(X_train.shape[0], n_epochs), X_single, Y_train, X_test_single, cpu=peer_single)
        log(
            f"  MLP rep {repeat + 1}: ours {ours[-1]:.2f} CPU s (scipy's products {ours_scipy[-1]:.2f}), "
            f"MLPClassifier {peer[-1]:.2f} (float32 input {peer_single[-1]:.2f})"
        )
    return {
        "epochs": n_epochs,
        "compiled": sparse_products.compiled(),
        "ours": statistics.median(ours),
        "ours_scipy": statistics.median(ours_scipy),
        "peer": statistics.median(peer),
        "peer_single": statistics.median(peer_single),
        "ours_exact_match": float((our_predicted == Y_test).all(axis=1).mean()),
        "peer_exact_match": float((peer_predicted == Y_test).all(axis=1).mean()),
        "identical": float(np.mean(our_predicted == peer_predicted)),
    }


def table_head(title: str, columns: list) -> list:
    """A markdown section title and table header, the first column left-aligned, the others right."""
    return [title, "", "| " + " | ".join(columns) + " |", "|---|" + "---:|" * (len(columns) - 1)]


def render_ccasl(results: dict) -> tuple[list, list]:
    """The "CCASL family vs CC" table, the closeness table, and the target verdicts."""
    lines = table_head(
        "## CCASL family vs CC (train + test, all labels, each method alone)",
        [
            "dataset",
            "CC s",
            "CCASL one batch s",
            "ratio",
            "CCASL s",
            "ratio",
            "CCASL+BR s",
            "ratio",
            "CCASL+AML s",
            "ratio",
            "CCASL test entries as one batch",
            "peak RSS MiB: CC / one batch / CCASL / +BR / +AML",
            "one iteration's products per link, CCASL / CC",
            "CCASL / CC at equal iterations per link",
            "CPU s: CC / one batch / CCASL",
            "CPU ratio: one batch / CCASL",
            "L-BFGS iterations of all links: CC / CCASL (ratio)",
        ],
    )
    verdicts = []
    for name, result in results.items():
        seconds = result["seconds"]
        ratios = {method: seconds[method] / seconds["CC"] for method in (ONE_BATCH, *CCASL_FAMILY)}
        rss = " / ".join(f"{value / 2**20:.0f}" for value in result["peak_rss"].values())
        cpu = result["cpu_seconds"]
        cpu_ratios = {method: cpu[method] / cpu["CC"] for method in (ONE_BATCH, "CCASL")}
        iterations = result["link_iterations"]
        iteration_ratio = iterations["CCASL"] / max(iterations["CC"], 1)
        lines.append(
            f"| {name} | {seconds['CC']:.2f} | "
            + " | ".join(f"{seconds[m]:.2f} | {ratios[m]:.1f}x" for m in ratios)
            + f" | {result['same_as_one_batch']:.4%} | {rss} | {result['product_cost']:.1f}x"
            f" | {result['product_cost'] * result['links']:.1f}x"
            + f" | {cpu['CC']:.2f} / {cpu[ONE_BATCH]:.2f} / {cpu['CCASL']:.2f}"
            f" | {cpu_ratios[ONE_BATCH]:.1f}x / {cpu_ratios['CCASL']:.1f}x"
            f" | {iterations['CC']} / {iterations['CCASL']} ({iteration_ratio:.2f}x) |"
        )
        for method, limit in CCASL_TARGETS.items():
            verdicts.append(
                f"- {method} on {name}: {ratios[method]:.1f}x CC (target <= {limit:g}x) -> "
                f"{'met' if ratios[method] <= limit else 'NOT met'}"
            )
        if name in LARGE_SETS:  # in CPU seconds: under load the wall ratio flatters CCASL's dense products
            verdicts.append(
                f"- CCASL on {name} (L = 1000): {cpu_ratios['CCASL']:.1f}x CC in CPU seconds "
                f"({ratios['CCASL']:.1f}x in wall seconds), "
                f"{cpu_ratios[ONE_BATCH]:.1f}x with its chain in one batch (no target: the parts section's floors "
                "replace the retired 4x), "
                f"peak RSS {result['peak_rss']['CCASL'] / 2**20:.0f} MiB (CC {result['peak_rss']['CC'] / 2**20:.0f}), "
                f"{result['same_as_one_batch']:.4%} of test entries as one batch; "
                f"its links take {iteration_ratio:.2f}x CC's L-BFGS iterations, the ratio it would have at CC's "
                f"CPU seconds per link-iteration"
            )
        if "agreement" in result:
            met = result["agreement"] >= TIGHT_AGREEMENT and result["gaps"]["ours_sum"] <= result["gaps"]["today_sum"]
            verdicts.append(
                f"- CCASL on {name}: {result['agreement']:.3%} of test entries as the tight fit's "
                f"(target >= {TIGHT_AGREEMENT:.1%}), "
                f"summed objective gap {result['gaps']['ours_sum']:.2e} vs today's {result['gaps']['today_sum']:.2e} "
                f"-> {'met' if met else 'NOT met'}"
            )
    if not any("gaps" in result for result in results.values()):
        return lines + [""], verdicts
    lines += [
        "",
        "Today = the plain-coordinate L-BFGS of BR/CC (what CCASL used before); ours = centred coordinates.",
        "",
    ]
    lines += table_head(
        "### CCASL's chain links: objective gap to a tight fit (tol 1e-8, no iteration cap)",
        [
            "dataset",
            "identical test entries",
            "today median gap",
            "today max gap",
            "ours median gap",
            "ours max gap",
            "links where ours is closer",
            "today mean iterations (converged)",
            "ours mean iterations (synthetic / real links)",
            "tight fit s",
        ],
    )
    for name, result in results.items():
        if "gaps" in result:
            g = result["gaps"]
            lines.append(
                f"| {name} | {result['agreement']:.4%} | {g['today_median']:.1e} | {g['today_max']:.1e} | "
                f"{g['ours_median']:.1e} | {g['ours_max']:.1e} | {g['ours_closer']:.0%} | "
                f"{g['today_iterations']:.0f} ({g['today_converged']:.0%}) | "
                f"{g['ours_iterations_synthetic']:.1f} / {g['ours_iterations_real']:.1f} | "
                f"{result['tight_seconds']:.1f} |"
            )
    return lines + [""], verdicts


def render_mlp(results: dict) -> tuple[list, list]:
    """The "MLP vs MLPClassifier" table and the target verdicts."""
    lines = table_head(
        "## MLP vs MLPClassifier (100 hidden units, same settings and scaled input, train + test, CPU seconds)",
        [
            "dataset",
            "epochs",
            "ours s",
            "ours, scipy's products s",
            "MLPClassifier s",
            "speed-up",
            "MLPClassifier, float32 input s",
            "speed-up, float32",
            "speed-up, scipy's products",
            "floor s",
            "ours / floor",
            "ours exact match",
            "MLPClassifier exact match",
            "identical entries",
        ],
    )
    verdicts = []
    for name, r in results.items():
        speedup, single = r["peer"] / r["ours"], r["peer_single"] / r["ours"]
        over_floor = r["ours"] / r["floor"] if r.get("floor") else float("nan")
        compiled = "" if r["compiled"] else " (fast extra not installed: scipy's products)"
        lines.append(
            f"| {name} | {r['epochs']} | {r['ours']:.2f}{compiled} | {r['ours_scipy']:.2f} | {r['peer']:.2f} | "
            f"{speedup:.2f}x | {r['peer_single']:.2f} | {single:.2f}x | {r['peer'] / r['ours_scipy']:.2f}x | "
            f"{r.get('floor', float('nan')):.2f} | {over_floor:.2f}x | "
            f"{r['ours_exact_match']:.4f} | {r['peer_exact_match']:.4f} | {r['identical']:.4%} |"
        )
        verdicts.append(
            f"- MLP on {name}: {single:.2f}x MLPClassifier on float32 input (target >= {MLP_TARGET:g}x on Enron and "
            f"Bibtex) -> {'met' if single >= MLP_TARGET else 'NOT met'}; {speedup:.2f}x on float64 input; "
            f"{over_floor:.2f}x its floor (target <= {MLP_FLOOR_TARGET:g}x on Corel5k, Bibtex, OHSUMED) -> "
            f"{'met' if over_floor <= MLP_FLOOR_TARGET else 'NOT met'}"
        )
    return lines + [""], verdicts
