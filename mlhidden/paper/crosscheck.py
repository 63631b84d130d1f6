"""A second, independent implementation of BR, CC and LP as a cross-check of ours.

Our BR and CC fit their logistic regressions as one batched problem, and LP maps label vectors
to classes itself; a bug there would move every table of the report. So the same methods are
fitted again by other people's code: scikit-multilearn's ``BinaryRelevance``,
``ClassifierChain`` and ``LabelPowerset``, and scikit-learn's ``MultiOutputClassifier`` and
``ClassifierChain``, each with the base learner a setting of ``configs/sensitivity.yaml`` gives
ours (LP's liblinear wrapped in one-vs-rest, as the setting wraps ours). Both sides see the
paper run's own splits and label orders, drawn by the runner's code from ``configs/paper.yaml``;
the chains follow the label order as given (ours with ``order=None``, theirs with their default).
Our side is refitted through the runner's :func:`~mlhidden.runs.unit_fit.fit_unit`, and
where the run's store export (``results/paper/units.csv``) holds the same unit, its stored scores
are put beside the refit.

Every row of the result is one cell: setting × dataset × split × method × implementation, with
both sides' exact match and Hamming score, the share of identical predicted label entries and
rows, and what can explain a difference: labels constant in the training part (scikit-learn's
logistic regression refuses them, so both sides give them a constant model) and their base
models that stopped at ``max_iter`` without converging, with the agreement on the labels whose
model did converge. :mod:`mlhidden.paper.crosscheck_table` turns the rows into the report's table.

Run with ``python -m mlhidden.paper.crosscheck --out results/crosscheck.csv``.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.multioutput import ClassifierChain, MultiOutputClassifier

from mlhidden import RunConfig, parse_config
from mlhidden.errors import UserError
from mlhidden.experiment import load_datasets
from mlhidden.io import write_text
from mlhidden.methods import make_base_learner
from mlhidden.paper.crosscheck_table import (
    METRICS,
    STORED_UNITS,
    TIGHT,
    TOLERANCE,
    crosscheck_table,
    stored_blas_note,
)
from mlhidden.paper.settings import load_sensitivity
from mlhidden.runs import Split, exact_match, fit_unit, hamming_score, impute, unit_thread_limits

SETTINGS = ("j_paper_era", "a_lbfgs_C1")
"""The primary setting (the paper era's liblinear) and scikit-learn's default solver today (lbfgs)."""
DATASETS = ("Logical", "Music", "Scene", "Yeast", "Medical", "Enron")
LARGER_DATASETS = ("Reuters", "OHSUMED", "Bibtex", "Corel5k")
METHODS = ("BR", "CC", "LP")
INSTALL_HINT = "install the cross-check's extra: pip install -e '.[crosscheck]'"


class ConstantWhenOneClass(ClassifierMixin, BaseEstimator):
    """``estimator`` fitted as it is, or a constant model where the target has one class.

    scikit-learn's logistic regression (and so every wrapper built on it) refuses a label that is
    constant in the training part; ours gives such a label a constant model, and this gives theirs
    the same, so that the comparison is about the fits and not about that refusal.
    """

    def __init__(self, estimator=None):
        self.estimator = estimator

    def fit(self, X, y):
        y = np.asarray(y.toarray() if sp.issparse(y) else y).ravel()
        self.classes_ = np.unique(y)
        self.model_ = clone(self.estimator).fit(X, y) if self.classes_.size > 1 else None
        return self

    def predict(self, X):
        if self.model_ is None:
            return np.full(X.shape[0], self.classes_[0])
        return self.model_.predict(X)


def _skmultilearn(name: str):
    try:
        from skmultilearn import problem_transform
    except ImportError:
        raise UserError("the cross-check needs scikit-multilearn, which is not installed", hint=INSTALL_HINT) from None
    return getattr(problem_transform, name)


def _skml(name: str) -> Callable:
    """A builder of scikit-multilearn's ``name`` over a base learner, fed X in our format (dense or sparse)."""

    def build(base, sparse_inputs: bool):
        return _skmultilearn(name)(classifier=base, require_dense=[not sparse_inputs, True])

    return build


# Per method of ours: the other implementations, by name, as builders of (base learner, sparse inputs?).
IMPLEMENTATIONS: dict[str, tuple[tuple[str, Callable], ...]] = {
    "BR": (
        ("skmultilearn BinaryRelevance", _skml("BinaryRelevance")),
        ("sklearn MultiOutputClassifier", lambda base, sparse_inputs: MultiOutputClassifier(base)),
    ),
    "CC": (
        ("skmultilearn ClassifierChain", _skml("ClassifierChain")),
        ("sklearn ClassifierChain", lambda base, sparse_inputs: ClassifierChain(base, order=None)),
    ),
    "LP": (("skmultilearn LabelPowerset", _skml("LabelPowerset")),),
}


def crosscheck_config(
    setting: str, datasets, methods=METHODS, splits: int = 3, config_dir="configs", data_dir=None
) -> RunConfig:
    """The paper config cut to ``datasets`` and ``splits``, with our ``methods`` under ``setting``
    (``data_dir``: the data path's first folder).

    Seeds, splits and label orders are the paper run's (they depend on its seed, the dataset and
    the split only). LP is not in the paper config; it gets the same base learner as BR.
    """
    config_dir = Path(config_dir)
    sensitivity = load_sensitivity(config_dir / "sensitivity.yaml")
    chosen = sensitivity.setting(setting)
    if chosen.preprocess:
        raise UserError(
            f"setting '{setting}' preprocesses inputs inside the method; the cross-check compares plain base learners",
            path=sensitivity.source,
            hint=f"choose one of {', '.join(SETTINGS)}",
        )
    paper = chosen.load(config_dir / "paper.yaml", splits=splits, data_dir=data_dir)
    known = {spec.name: spec for spec in paper.methods}
    extra = [m for m in methods if m not in known]
    if extra:
        listed = {"name": "crosscheck", "datasets": ["Logical"], "methods": extra}
        known.update({spec.name: spec for spec in parse_config(listed, overlay=chosen.overlay).methods})
    kept = [spec for spec in paper.datasets if spec.name in datasets]
    return dataclasses.replace(paper, datasets=tuple(kept), methods=tuple(known[m] for m in methods))


def _stored_scores(path=STORED_UNITS) -> dict:
    """``(dataset sha256, params hash, split) -> (exact match, Hamming score)`` of a run's stored units, if exported."""
    path = Path(path)
    if not path.exists():
        return {}
    units = pd.read_csv(
        path, usecols=["dataset_sha256", "params_hash", "split", "status", "exact_match", "hamming_score"]
    )
    units = units[units["status"] == "ok"]
    return {
        (r.dataset_sha256, r.params_hash, int(r.split)): (r.exact_match, r.hamming_score) for r in units.itertuples()
    }


def _dense(predicted) -> np.ndarray:
    return np.asarray(predicted.toarray() if sp.issparse(predicted) else predicted).astype(np.int8)


def _logistic_models(fitted) -> list:
    """Every fitted ``LogisticRegression`` inside ``fitted``, in label (chain) order; None for a constant model."""
    if isinstance(fitted, LogisticRegression):
        return [fitted]
    if isinstance(fitted, ConstantWhenOneClass):
        return [None] if fitted.model_ is None else _logistic_models(fitted.model_)
    for attribute in ("classifiers_", "estimators_"):
        if hasattr(fitted, attribute):
            return [model for inner in getattr(fitted, attribute) for model in _logistic_models(inner)]
    return _logistic_models(fitted.classifier) if hasattr(fitted, "classifier") else []


def fit_theirs(build: Callable, base_spec, X, Y, split: Split) -> tuple[np.ndarray, list, float]:
    """Another implementation fitted on a split's training part: test predictions in the dataset's label
    order, its logistic models (label order of the split), and its train + test seconds."""
    with unit_thread_limits():
        X_train, X_test = impute(X[split.train], X[split.test])
        base = ConstantWhenOneClass(make_base_learner(base_spec))
        model = build(base, sp.issparse(X_train))
        start = time.perf_counter()
        model.fit(X_train, Y[split.train][:, split.label_order])
        in_split_order = _dense(model.predict(X_test))
        seconds = time.perf_counter() - start
    predicted = np.empty_like(in_split_order)
    predicted[:, split.label_order] = in_split_order
    return predicted, _logistic_models(model), seconds


def _unconverged(models, n_labels: int) -> np.ndarray | None:
    """Per label (split order), whether its logistic model stopped at ``max_iter``; None where models are not per
    label."""
    if len(models) != n_labels:
        return None
    return np.array([m is not None and int(np.max(m.n_iter_)) >= m.max_iter for m in models])


def boundary_margin(scores, same: np.ndarray, label_order, chained: bool) -> float:
    """The largest |P(y = 1 | x) − 0.5| under our model at the entries where a disagreement starts.

    In BR every flipped entry starts one; in a chain, a row's first flipped link in chain order
    does (the links after it see different inputs). A small value says the flips sit on the
    decision boundary, where the solvers' tolerance decides them.
    """
    flipped = ~same
    if scores is None or not flipped.any():
        return np.nan
    margin = np.abs(scores.astype(float) - 0.5)
    if not chained:
        return float(margin[flipped].max())
    in_chain = flipped[:, label_order]
    rows = np.flatnonzero(in_chain.any(axis=1))
    first = np.asarray(label_order)[in_chain[rows].argmax(axis=1)]
    return float(margin[rows, first].max())


def _compare_cell(Y_test, ours: np.ndarray, theirs: np.ndarray, unconverged, label_order) -> dict:
    """Both sides' scores on one cell and how far their predictions agree."""
    same = ours == theirs
    row = {
        "ours_exact_match": exact_match(Y_test, ours), "theirs_exact_match": exact_match(Y_test, theirs),
        "ours_hamming_score": hamming_score(Y_test, ours), "theirs_hamming_score": hamming_score(Y_test, theirs),
        "agreement": float(same.mean()), "rows_agreement": float(same.all(axis=1).mean()),
        "flipped_entries": int((~same).sum()),
        "unconverged_models": np.nan, "agreement_converged_labels": np.nan, "agreement_unconverged_labels": np.nan,
    }
    if unconverged is not None:
        in_dataset_order = np.empty_like(unconverged)
        in_dataset_order[label_order] = unconverged
        row["unconverged_models"] = int(unconverged.sum())
        if (~in_dataset_order).any():
            row["agreement_converged_labels"] = float(same[:, ~in_dataset_order].mean())
        if in_dataset_order.any():
            row["agreement_unconverged_labels"] = float(same[:, in_dataset_order].mean())
    return row


def _tightened(spec) -> dict:
    """A resolved base-learner spec with every logistic regression in it solved to :data:`TIGHT`."""
    params = dict(spec["params"])
    if isinstance(params.get("estimator"), dict):
        params["estimator"] = _tightened(params["estimator"])
    elif spec["name"] == "logistic":
        params.update(TIGHT)
    return {"name": spec["name"], "params": params}


def run_crosscheck(
    settings=SETTINGS, datasets=DATASETS, splits: int = 3, larger=(), methods=METHODS, config_dir="configs",
    stored_path=STORED_UNITS, data_dir=None, progress: Callable[[str], None] | None = None,
) -> pd.DataFrame:
    """Every cell of the cross-check: ``datasets`` on their first ``splits`` splits, ``larger`` on split 0."""
    stored = _stored_scores(stored_path)
    rows = []
    for setting in settings:
        for names, n_splits in ((datasets, splits), (larger, 1)):
            if not names:
                continue
            config = crosscheck_config(setting, names, methods, n_splits, config_dir, data_dir)
            plans, unavailable = load_datasets(config)
            if unavailable:
                raise UserError(
                    f"dataset(s) not available: {', '.join(unavailable)}", hint="put their ARFF files in datasets/"
                )
            for plan in plans:
                for split in plan.splits:
                    for method in config.methods:
                        if progress:
                            progress(f"{setting} {plan.name} split {split.index} {method.label}")
                        rows += _method_rows(
                            setting,
                            plan,
                            split,
                            method,
                            stored.get((plan.sha256, method.params_hash, split.index)),
                        )
    return pd.DataFrame(rows)


def _quietly(fit: Callable, *args, **kwargs):
    """``fit(*args)`` without convergence warnings: their non-convergence is counted per cell instead."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return fit(*args, **kwargs)


def _method_rows(setting: str, plan, split, method, stored) -> list:
    """One row per other implementation of ``method`` on one split; where the two disagree beyond
    :data:`TOLERANCE` on a metric, both are refitted with :data:`TIGHT` and their agreement kept."""
    X, Y = plan.dataset.X, plan.dataset.Y
    ours = _quietly(fit_unit, X, Y, split, method)
    tightened = dataclasses.replace(method.resolved, base=_tightened(method.resolved.base))
    strict = dataclasses.replace(method, resolved=tightened, prototype=None)
    strict_ours = None
    rows = []
    for implementation, build in IMPLEMENTATIONS[method.name]:
        theirs, models, seconds = _quietly(fit_theirs, build, method.resolved.base, X, Y, split)
        row = _compare_cell(Y[split.test], ours.predicted, theirs, _unconverged(models, Y.shape[1]), split.label_order)
        same = ours.predicted == theirs
        margin = (
            np.nan
            if method.name == "LP"
            else boundary_margin(ours.scores, same, split.label_order, method.name == "CC")
        )
        tight = np.nan
        if max(abs(row[f"ours_{m}"] - row[f"theirs_{m}"]) for m in METRICS) > TOLERANCE:
            strict_ours = strict_ours or _quietly(fit_unit, X, Y, split, strict, with_scores=False)
            tight = float(
                np.mean(strict_ours.predicted == _quietly(fit_theirs, build, strict.resolved.base, X, Y, split)[0])
            )
        rows.append(
            {
                "setting": setting,
                "dataset": plan.name,
                "split": split.index,
                "method": method.label,
                "implementation": implementation,
                "test_rows": len(split.test),
                "labels": Y.shape[1],
                "constant_labels": int(np.sum(np.ptp(Y[split.train], axis=0) == 0)),
                **row,
                "boundary_margin": margin,
                "tight_agreement": tight,
                "stored_exact_match": np.nan if stored is None else stored[0],
                "stored_hamming_score": np.nan if stored is None else stored[1],
                "ours_seconds": ours.train_seconds + ours.test_seconds,
                "theirs_seconds": seconds,
            }
        )
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mlhidden.paper.crosscheck", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("results/crosscheck.csv"))
    parser.add_argument("--splits", type=int, default=3, help="splits of each small dataset (default 3)")
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument(
        "--larger", nargs="*", default=[], help=f"datasets run on split 0 only, e.g. {' '.join(LARGER_DATASETS)}"
    )
    parser.add_argument("--settings", nargs="+", default=list(SETTINGS))
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        frame = run_crosscheck(args.settings, args.datasets, args.splits, args.larger, tuple(args.methods),
                               progress=None if args.quiet else lambda line: print(line, file=sys.stderr))
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    seconds = time.perf_counter() - start
    table = crosscheck_table(frame, wall_seconds=seconds, machine_note=stored_blas_note(frame))
    write_text(args.out, frame.to_csv(index=False, float_format="%.6g", lineterminator="\n"))
    write_text(args.out.with_suffix(".md"), table + "\n")
    print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
