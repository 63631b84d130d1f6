"""Where a run's time goes, part by part, against the floor this core's own peak rates put under each part.

Section ``parts`` of ``python -m benchmarks.run``, on split 0 of each dataset, one BLAS thread, in one
process. Each part of the paper's run is timed (train + test, CPU seconds: on a shared machine wall
seconds measure the load) as a run computes it, under the primary setting's base learners (``PRIMARY``
in ``configs/sensitivity.yaml``: liblinear, forests of 10 trees), with the fits the methods share made once:

- MLP (its defaults: the hidden-size selection and the refit, 1000 epochs);
- the CCASL chain (CCASL's unit, which fits the chain CCASL+BR and CCASL+AML reuse);
- CCASL+BR's and CCASL+AML's own parts (their units after CCASL's, the chain reused);
- ELM; BR_RF; and PCC, BR, CC and the three baselines together (PCC reuses CC's chain).

The floor of a part is the seconds its products would take at this core's measured peak: the
FLOPs of every product the solvers' designs compute (counted as they run, in
:class:`~mlhidden.methods.solvers.design.Design`) and of MLP's epochs (from its network shapes),
each over the rate of its kind measured in the same run: SGEMM and DGEMM on square matrices, and
the sparse products (:func:`~mlhidden.methods.sparse_products.matmul`, X and its transpose, 100 columns)
on the dataset's own X, in single and double precision. The same epochs and solver passes, the
same forests: the floor counts only the products, so the rest of each part (the losses'
elementwise passes, L-BFGS's updates, thresholds, Python) is what lies between it and the
seconds measured. BR_RF's trees are not modelled.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import yaml

from benchmarks.hidden_layers import table_head, timed
from benchmarks.reproduce_floor import mlp_networks
from mlhidden.methods import sparse_products
from mlhidden.methods.mlp import MLP
from mlhidden.methods.registry import get_entry, make_method
from mlhidden.methods.shared_fits import SharedFits
from mlhidden.methods.solvers.design import Design

PARTS = {
    "MLP": ("MLP",),
    "CCASL chain": ("CCASL",),
    "CCASL+BR own": ("CCASL+BR",),
    "CCASL+AML own": ("CCASL+AML",),
    "ELM": ("ELM",),
    "BR_RF": ("BR_RF",),
    "PCC, BR, the rest": ("BR", "CC", "PCC", "AllZero", "Majority", "MostFrequentSet"),
}
"""Each part and the units it is made of, in the order a run computes them (shared fits made by the first)."""
SETTINGS = Path(__file__).resolve().parents[1] / "configs" / "sensitivity.yaml"
PRIMARY = "j_paper_era"  # the setting mlhidden/paper/primary_setting.py's rule makes primary
GEMM_SIZE = 1024
SPARSE_WIDTH = 100
RATE_REPEATS = 5


def primary_bases() -> dict:
    """The primary setting's base learner for each kind a method's default names (``logistic``, ``random_forest``)."""
    return yaml.safe_load(SETTINGS.read_text())["settings"][PRIMARY]["base"]


def primary_method(name: str, params: dict, seed: int):
    """``name`` with ``params``, built with the primary setting's base learner in place of its default."""
    entry = get_entry(name)
    base = primary_bases().get(entry.base) if entry.takes_base and isinstance(entry.base, str) else None
    return make_method(name, params, base=base, random_state=seed)


def best_seconds(product, *operands, repeats: int = RATE_REPEATS) -> float:
    """The fewest CPU seconds of ``repeats`` calls of ``product(*operands)``: the core's rate, not the load's."""
    spent = []
    for _ in range(repeats):
        start = time.process_time()
        product(*operands)
        spent.append(time.process_time() - start)
    return min(spent)


def gemm_rates() -> dict:
    """GFLOP/s of SGEMM and DGEMM on square matrices of ``GEMM_SIZE``."""
    rng = np.random.RandomState(0)
    rates = {}
    for dtype in (np.float32, np.float64):
        A, B = (rng.standard_normal((GEMM_SIZE, GEMM_SIZE)).astype(dtype) for _ in range(2))
        rates[("gemm", np.dtype(dtype).name)] = 2 * GEMM_SIZE**3 / best_seconds(np.matmul, A, B) / 1e9
    return rates


def sparse_rates(X) -> dict:
    """GFLOP/s of the sparse products on X (CSR times dense and its transpose as CSC, ``SPARSE_WIDTH`` columns)."""
    X = sp.csr_matrix(X)
    rng = np.random.RandomState(0)
    rates = {}
    for dtype in (np.float32, np.float64):
        A = X.astype(dtype)
        W = rng.standard_normal((A.shape[1], SPARSE_WIDTH)).astype(dtype)
        D = rng.standard_normal((A.shape[0], SPARSE_WIDTH)).astype(dtype)
        A_T = sparse_products.transposed(A)  # as the solvers and MLP lay it out
        spent = best_seconds(sparse_products.matmul, A, W) + best_seconds(sparse_products.matmul, A_T, D)
        rates[("sparse", np.dtype(dtype).name)] = 4 * max(A.nnz, 1) * SPARSE_WIDTH / spent / 1e9
    return rates


def product_flops(A, columns: int) -> tuple[str, float]:
    """The kind of a product of A with ``columns`` columns (sparse or GEMM) and its FLOPs."""
    if sp.issparse(A):
        return "sparse", 2.0 * A.nnz * columns
    return "gemm", 2.0 * A.shape[0] * A.shape[1] * columns


@contextmanager
def counted_design_products(flops: Counter):
    """Count into ``flops`` (by kind and precision) every product the solvers' designs compute meanwhile."""
    forward, backward = Design.forward, Design.backward

    def count(design, columns):
        for part in (design.X, getattr(design, "dense", None) if design.dense_columns.size else None):
            if part is not None:
                kind, amount = product_flops(part, columns)
                flops[(kind, np.dtype(design.dtype).name)] += amount

    def counted_forward(design, V):
        count(design, V.shape[1])
        return forward(design, V)

    def counted_backward(design, R):
        count(design, R.shape[1])
        return backward(design, R)

    Design.forward, Design.backward = counted_forward, counted_backward
    try:
        yield flops
    finally:
        Design.forward, Design.backward = forward, backward


def mlp_flops(X, Y, n_epochs: int, networks=None) -> Counter:
    """FLOPs of MLP's epochs (single precision): the two products with X, and the three with the output layer;
    of its default networks (the hidden-size selection and the refit), or of ``networks`` ((rows, hidden) pairs)."""
    flops: Counter = Counter()
    density = (X.nnz if sp.issparse(X) else np.count_nonzero(X)) / max(X.shape[0], 1)
    networks = mlp_networks(X.shape[0], X.shape[1], Y.shape[1]) if networks is None else networks
    for n_rows, n_hidden in networks:
        if sp.issparse(X):
            flops[("sparse", "float32")] += 4.0 * density * n_rows * n_hidden * n_epochs
        else:
            flops[("gemm", "float32")] += 4.0 * n_rows * X.shape[1] * n_hidden * n_epochs
        flops[("gemm", "float32")] += 6.0 * n_rows * n_hidden * Y.shape[1] * n_epochs
    return flops


def mlp_floor(X, Y, n_epochs: int, n_hidden: int, rates: dict) -> float:
    """The floor of one network of ``n_hidden`` units trained on all of X's rows: its products' FLOPs at ``rates``
    (the GEMM rates given, the sparse ones measured here on X)."""
    rates = {**rates, **sparse_rates(X)}
    flops = mlp_flops(X, Y, n_epochs, [(X.shape[0], n_hidden)])
    return sum(amount / 1e9 / rates[key] for key, amount in flops.items())


def bench_parts(X_train, X_test, Y_train, seed, n_epochs: int, rates: dict, log) -> dict:
    """Each part's seconds (train + test, shared fits as a run makes them), its product FLOPs and its floor."""
    rates = {**rates, **sparse_rates(X_train)}
    results = {}
    with tempfile.TemporaryDirectory() as folder, SharedFits(folder).active():
        for part, methods in PARTS.items():
            flops: Counter = Counter()
            cpu: list = []
            with counted_design_products(flops):
                for method in methods:
                    params = {"n_epochs": n_epochs} if method == "MLP" else {}
                    timed(primary_method(method, params, seed), X_train, Y_train, X_test, cpu=cpu)
            spent = sum(cpu)
            if part == "MLP":
                flops += mlp_flops(X_train, Y_train, n_epochs)
            floor = None if part == "BR_RF" else sum(amount / 1e9 / rates[key] for key, amount in flops.items())
            results[part] = {"seconds": spent, "gflop": sum(flops.values()) / 1e9, "floor": floor}
            log(f"  {part}: {spent:.2f}s, {results[part]['gflop']:.1f} GFLOP, floor {floor or 0:.2f}s")
    return {"parts": results, "rates": rates}


def render_parts(results: dict, n_epochs: int) -> tuple[list, list]:
    """The per-part table (one row per dataset and part), the totals per part, and the rates measured."""
    lines = table_head(
        "## Where the time goes: each part against its floor at this core's peak (split 0, train + test)",
        ["dataset", "part", "measured CPU s", "GFLOP", "floor s", "floor / measured"],
    )
    totals: dict = {part: [0.0, 0.0] for part in PARTS}
    for name, r in results.items():
        for part, p in r["parts"].items():
            floor = "—" if p["floor"] is None else f"{p['floor']:.3f}"
            reached = "—" if p["floor"] is None else f"{p['floor'] / p['seconds']:.0%}"
            lines.append(f"| {name} | {part} | {p['seconds']:.3f} | {p['gflop']:.2f} | {floor} | {reached} |")
            totals[part][0] += p["seconds"]
            totals[part][1] += p["floor"] or 0.0
    lines += ["", "### All datasets measured, per part", ""]
    lines += table_head("", ["part", "measured CPU s", "floor s", "floor / measured"])[2:]
    for part, (seconds, floor) in totals.items():
        modelled = part != "BR_RF"
        lines.append(
            f"| {part} | {seconds:.3f} | {f'{floor:.3f}' if modelled else '—'} | "
            f"{f'{floor / seconds:.0%}' if modelled and seconds else '—'} |"
        )
    lines += ["", "Peak rates measured in this run (GFLOP/s, one thread, best of 5):", ""]
    first = next(iter(results.values()), None)
    if first is not None:
        lines.append(
            f"- SGEMM {first['rates'][('gemm', 'float32')]:.1f}, DGEMM {first['rates'][('gemm', 'float64')]:.1f} "
            f"({GEMM_SIZE} x {GEMM_SIZE}); sparse products, {SPARSE_WIDTH} columns"
            f"{'' if sparse_products.compiled() else ' (scipy: the fast extra is not installed)'}:"
        )
        for name, r in results.items():
            float32, float64 = (r["rates"][("sparse", dtype)] for dtype in ("float32", "float64"))
            lines.append(f"  {name} float32 {float32:.1f}, float64 {float64:.1f}")
    mlp_default = MLP().n_epochs
    if n_epochs != mlp_default:
        lines.append(f"- MLP trained {n_epochs} epochs (its default is {mlp_default}).")
    return lines + [""], []


def median_rates(repeats: int) -> dict:
    """The GEMM rates, the median of ``repeats`` measurements each the best of ``RATE_REPEATS``."""
    measured = [gemm_rates() for _ in range(max(repeats, 1))]
    return {key: statistics.median(m[key] for m in measured) for key in measured[0]}
