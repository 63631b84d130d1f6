"""A unit's test predictions and label scores from one pass, against ``predict`` then ``predict_proba``.

``python -m benchmarks.one_pass_predictions [--datasets Enron,Medical] [--repeats 5]`` fits, on split 0 of
each dataset under the primary setting's base learners (shared fits made once, as a run makes them), every
method of the paper config whose ``predict_with_proba`` shares a pass
(:func:`~mlhidden.methods.base.shares_one_pass`), then times its test rows both ways, alternating, in one
process on one BLAS thread: ``predict`` then ``predict_proba`` (a unit before) and ``predict_with_proba`` (a
unit now). The two must give the same arrays bit for bit. It prints a Markdown table of median CPU seconds,
with each method's fit seconds beside them: the share of a unit that the saving is.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks.part_floor import primary_method
from benchmarks.run import load_split
from mlhidden.methods.base import shares_one_pass
from mlhidden.methods.shared_fits import SharedFits

DATA_DIR = Path(__file__).resolve().parents[1] / "datasets"
METHODS = ("CC", "PCC", "CCASL", "CCASL+BR", "CCASL+AML", "ELM", "MLP")


def cpu_seconds(work, *args) -> tuple[float, object]:
    start = time.process_time()
    result = work(*args)
    return time.process_time() - start, result


def apart(model, X):
    return model.predict(X), model.predict_proba(X)


def bench_dataset(name: str, repeats: int) -> list[str]:
    """One row per method: fit seconds, both ways' median test seconds, their ratio, and the identity check."""
    _, X_train, X_test, Y_train, _, seed = load_split(name, DATA_DIR)
    rows = []
    with tempfile.TemporaryDirectory() as folder, SharedFits(folder).active():
        for method in METHODS:
            model = primary_method(method, {}, seed)
            fit_seconds, _ = cpu_seconds(model.fit, X_train, Y_train)
            assert shares_one_pass(model), f"{method} computes its predictions and scores apart"
            separately, together = [], []
            for _ in range(repeats):
                seconds, (predicted, proba) = cpu_seconds(apart, model, X_test)
                separately.append(seconds)
                seconds, (one, both) = cpu_seconds(model.predict_with_proba, X_test)
                together.append(seconds)
                assert np.array_equal(predicted, one) and np.array_equal(proba, both), f"{method} differs"
            before, after = statistics.median(separately), statistics.median(together)
            rows.append(
                f"| {name} | {method} | {fit_seconds:.2f} | {before:.3f} | {after:.3f} | {after / before:.2f} | "
                f"{(before - after) / (fit_seconds + before):.1%} |"
            )
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="Enron,Medical,Corel5k")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    lines = [
        "| dataset | method | fit CPU s | predict, then predict_proba s | predict_with_proba s | ratio | "
        "unit's time saved |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    with threadpool_limits(limits=1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in args.datasets.split(","):
            lines += bench_dataset(name, args.repeats)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
