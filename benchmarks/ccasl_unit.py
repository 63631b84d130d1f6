"""One CCASL unit on the Delicious-shaped set (L = 983) under the primary setting: its CPU seconds and a digest.

``python -m benchmarks.ccasl_unit [--samples 16105] [--method CCASL]`` fits the method on split 0 of
:func:`benchmarks.generated.make_delicious_like` (16,105 rows, 500 binary words, 983 labels, cardinality
about 19; 60 % to train), with the primary setting's base learner (liblinear, as a paper run fits it), then
predicts the test rows and their probabilities, from one pass as a unit does (``predict_with_proba``; in a
tree from before it, ``predict`` then ``predict_proba``), on one BLAS thread. It prints
the CPU seconds (``time.process_time``) and the sha256 prefix of the probabilities and predictions, so
that a before/after pair run from two trees (``PYTHONPATH=OLD_TREE python -m benchmarks.ccasl_unit``,
alternating) is compared in time and checked bit for bit.
"""

from __future__ import annotations

import argparse
import hashlib
import time
import warnings

import threadpoolctl

from benchmarks.generated import make_delicious_like
from benchmarks.part_floor import primary_method
from mlhidden.runs.splits import SplitRecipe


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=16105)
    parser.add_argument("--method", default="CCASL")
    args = parser.parse_args(argv)
    data = make_delicious_like(n_samples=args.samples, n_labels=983)
    split = SplitRecipe(0, 1).splits(data.name, data.Y)[0]
    Y = data.Y[:, split.label_order]
    X_train, X_test = data.X[split.train], data.X[split.test]
    model = primary_method(args.method, {}, split.method_seed)
    with threadpoolctl.threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.process_time()
        model.fit(X_train, Y[split.train])
        if hasattr(model, "predict_with_proba"):
            predicted, probabilities = model.predict_with_proba(X_test)
        else:  # a tree from before the one-pass predictions
            predicted, probabilities = model.predict(X_test), model.predict_proba(X_test)
        spent = time.process_time() - start
    digest = hashlib.sha256(probabilities.tobytes() + predicted.tobytes()).hexdigest()[:16]
    print(f"{args.method} on {args.samples} rows: {spent:.2f} CPU s, digest {digest}")


if __name__ == "__main__":
    main()
