"""The compiled single-precision exp (:mod:`mlhidden.methods.single_exp`) against numpy's: every float32, and the
values an MLP epoch takes it of.

    python -m benchmarks.single_exp [--quick] [DATASET ...]   (default Corel5k)

It prints how many of the 2^32 float32 bit patterns (NaNs, infinities, subnormals included; ``--quick``:
every 61st) the two give different bits for, and the seconds each takes per value on the arguments of an
epoch's two sigmoids: split 0 of the dataset, scaled as MLP scales it, 100 hidden units after 20 epochs (the
fewest CPU seconds of 30 calls, one thread).
"""

from __future__ import annotations

import argparse

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks.mlp_epoch_parts import HIDDEN, scaled_training_rows
from benchmarks.part_floor import best_seconds
from mlhidden.methods.mlp import train_network
from mlhidden.methods.single_exp import exp_in_place
from mlhidden.methods.sparse_products import matmul

CHUNK = 1 << 24
REPEATS = 30


def differing_floats(loop, stride: int = 1) -> tuple[int, int]:
    """How many float32 bit patterns (every ``stride``-th) the compiled exp gives other bits than numpy's for, of
    how many."""
    differing = 0
    for start in range(0, 1 << 32, CHUNK * stride):
        x = np.arange(start, min(start + CHUNK * stride, 1 << 32), stride, dtype=np.uint64)
        x = x.astype(np.uint32).view(np.float32)
        with np.errstate(all="ignore"):
            numpys = np.exp(x)
        loop(x)
        differing += int(np.count_nonzero(x.view(np.uint32) != numpys.view(np.uint32)))
    return differing, len(range(0, 1 << 32, stride))


def sigmoid_arguments(name: str) -> np.ndarray:
    """``-(X W1 + b1)`` and ``-(H W2 + b2)`` of a network 20 epochs into its training, as one flat array."""
    X, Y = scaled_training_rows(name)
    X = X.astype(np.float32)
    net = train_network(X, Y, HIDDEN, 0.1, 20, 0.9, np.random.RandomState(0))
    hidden_sums = matmul(X, net.W1) + net.b1
    output_sums = net.hidden(X) @ net.W2 + net.b2
    return -np.concatenate([hidden_sums.ravel(), output_sums.ravel()])


def exp_seconds(x: np.ndarray, loop) -> tuple[float, float]:
    """CPU seconds of numpy's exp of x and of the compiled one (in place on a copy, the copy's time taken off)."""
    out, work = np.empty_like(x), x.copy()
    copy = best_seconds(np.copyto, work, x, repeats=REPEATS)
    numpys = best_seconds(np.exp, x, out, repeats=REPEATS)

    def copy_and_exp() -> None:
        np.copyto(work, x)
        loop(work)

    return numpys, best_seconds(copy_and_exp, repeats=REPEATS) - copy


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="every 61st bit pattern, not all")
    parser.add_argument("datasets", nargs="*", default=["Corel5k"])
    args = parser.parse_args(argv)
    loop = exp_in_place()
    if loop is None:
        print("this numpy's exp is not the one mlhidden compiles: the epoch takes numpy's")
        return
    differing, checked = differing_floats(loop, 61 if args.quick else 1)
    print(f"float32 bit patterns with other bits than numpy's exp: {differing} of {checked}")
    with threadpool_limits(limits=1):
        for name in args.datasets:
            x = sigmoid_arguments(name)
            numpys, ours = exp_seconds(x, loop)
            print(
                f"{name}: {x.size} values; numpy's exp {numpys / x.size * 1e9:.2f} ns a value, the compiled "
                f"{ours / x.size * 1e9:.2f} ({ours / numpys:.2f}x)"
            )


if __name__ == "__main__":
    main()
