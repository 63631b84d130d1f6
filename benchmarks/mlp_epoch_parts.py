"""MLP's epoch against its floor, and the same kernels each alone: where an epoch's time over the floor goes.

``python -m benchmarks.mlp_epoch_parts [Corel5k Bibtex OHSUMED]`` (one BLAS thread, one process): for split 0 of
each dataset, scaled as MLP scales it, with 100 hidden units, it prints three things:

- the floor per epoch by the bench's model (:func:`benchmarks.part_floor.mlp_floor`: the products' FLOPs at this
  core's SGEMM rate on squares, and the sparse products' rate on X);
- the sum of the epoch's kernels, each timed alone (best of 15 CPU-second calls): the three GEMMs, the two sparse
  products and the passes around ``exp``;
- the epoch itself (:func:`~mlhidden.methods.mlp.train_network`).

The kernels alone over the floor is what the kernels' own rates on these shapes cost. The epoch over the kernels
alone is what running them in turn costs: each finds its operands evicted by the kernel before.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks.part_floor import best_seconds, gemm_rates, mlp_floor
from mlhidden.data import read_arff
from mlhidden.methods.epoch_passes import output_residual, sigmoid_of_sum
from mlhidden.methods.hidden_units import apply_scaling, column_scaling
from mlhidden.methods.mlp import product_layout, train_network
from mlhidden.methods.sparse_products import in_column_chunks, matmul
from mlhidden.runs.splits import SplitRecipe

DATA_DIR = Path(__file__).resolve().parents[1] / "datasets"
HIDDEN = 100
EPOCHS = 40
REPEATS = 15


def kernel_seconds(X, Y) -> dict[str, float]:
    """Each kernel of an epoch alone, on arrays of the epoch's shapes (the passes without the products they follow)."""
    rng = np.random.RandomState(0)
    n_rows, n_labels = X.shape[0], Y.shape[1]
    X_rows, X_T = product_layout(X)
    X_T = in_column_chunks(X_T, HIDDEN)
    W1 = rng.uniform(-0.05, 0.05, (X.shape[1], HIDDEN)).astype(np.float32)
    W2 = rng.uniform(-0.1, 0.1, (HIDDEN, n_labels)).astype(np.float32)
    b1, b2 = np.zeros(HIDDEN, np.float32), np.zeros(n_labels, np.float32)
    targets, share = Y.astype(np.float32) / n_rows, np.float32(1 / n_rows)
    H = sigmoid_of_sum(matmul(X_rows, W1), b1)
    delta, _ = output_residual(H @ W2, b2, share, targets)
    delta_hidden = delta @ W2.T
    kernels = {
        "X W1": (matmul, X_rows, W1),
        "Xt d": (matmul, X_T, delta_hidden),
        "H W2": (np.matmul, H, W2),
        "d W2t": (np.matmul, delta, W2.T),
        "Ht d": (np.matmul, H.T, delta),
        "hidden sigmoid": (lambda: sigmoid_of_sum(matmul(X_rows, W1), b1),),
        "output residual": (lambda: output_residual(H @ W2, b2, share, targets),),
    }
    seconds = {part: best_seconds(*call, repeats=REPEATS) for part, call in kernels.items()}
    seconds["hidden sigmoid"] -= seconds["X W1"]
    seconds["output residual"] -= seconds["H W2"]
    return seconds


def scaled_training_rows(name: str):
    """Split 0's training rows of a shipped dataset, X scaled as MLP scales it, and their labels in the split's
    order."""
    data = read_arff(DATA_DIR / f"{name}.arff.bz2")
    split = SplitRecipe(0, 1).splits(data.name, data.Y)[0]
    X, Y = data.X[split.train], data.Y[:, split.label_order][split.train]
    offset, scale = column_scaling(X, "auto")
    return apply_scaling(X, offset, scale), Y


def main(argv: list[str] | None = None) -> None:
    names = (sys.argv[1:] if argv is None else argv) or ["Corel5k", "Bibtex", "OHSUMED"]
    with threadpool_limits(limits=1):
        rates = gemm_rates()
        print(f"SGEMM {rates[('gemm', 'float32')]:.1f} GF/s on squares of 1024")
        for name in names:
            X, Y = scaled_training_rows(name)
            floor = mlp_floor(X, Y, EPOCHS, HIDDEN, rates) / EPOCHS
            kernels = kernel_seconds(X, Y)
            alone = sum(kernels.values())
            start = time.process_time()
            train_network(X, Y, HIDDEN, 0.1, EPOCHS, 0.9, np.random.RandomState(0))
            epoch = (time.process_time() - start) / EPOCHS
            print(
                f"{name}: floor {floor * 1e3:.2f} ms an epoch; kernels alone {alone * 1e3:.2f} "
                f"({alone / floor:.2f}x the floor); the epoch {epoch * 1e3:.2f} ({epoch / floor:.2f}x)"
            )
            print("   ", ", ".join(f"{part} {value * 1e3:.2f}" for part, value in kernels.items()))


if __name__ == "__main__":
    main()
