"""Time mlhidden's methods against the obvious scikit-learn routes on split 0 of real datasets.

Run with ``make bench`` or ``python -m benchmarks.run``. Everything runs in one process, ours and
the peer alternating within each repetition, so that the machine's load affects both alike:
only the ratios measured in the same run mean anything (absolute seconds are for the trend).
Both sides get one BLAS/OpenMP thread, as every unit of a run has: with more, a peer whose
threads spin-wait on a busy machine looks several times slower than it is.

Comparisons (train + test seconds, peak RSS, share of identical test predictions):

- ``BR`` vs ``MultiOutputClassifier(LogisticRegression())``;
- ``CC`` vs ``ClassifierChain(LogisticRegression())`` in the same order;
- ``PCC`` Monte-Carlo inference (M = 50) vs a per-instance sampling loop drawing the same
  uniforms, on the first ``--pcc-rows`` test rows;

and ``CCASL``, ``CCASL+AML``, ``MLP``, ``BR_RF`` on their own; the CCASL family against CC and
MLP against ``MLPClassifier`` (see :mod:`benchmarks.hidden_layers`). scikit-learn's wrappers refuse a
label with one class in the training part, so the comparisons use the labels that have both.

Shared fits: the methods that train the same pieces on a split (``CC`` and ``PCC``; ``CCASL``,
``CCASL+BR`` and ``CCASL+AML``) fitted one after the other, each alone vs sharing fits as a run
does, with the share of identical predictions (it must be all of them).

``--sections`` picks what runs: ``baseline`` (all of the above but the last two), ``ccasl``,
``mlp``, ``liblinear`` and ``logistic_cv`` (:mod:`benchmarks.batched_bases`), ``floor``
(:mod:`benchmarks.reproduce_floor`) and ``parts`` (:mod:`benchmarks.part_floor`: each part of a run
against its floor at this core's peak rates), each on its own datasets (``--datasets``,
``--ccasl-datasets``, ``--mlp-datasets``, ``--liblinear-datasets``, ``--logistic-cv-datasets``,
``--floor-datasets``, ``--parts-datasets``).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import sys
import tempfile
import time
import warnings
from contextlib import nullcontext
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np
import psutil
import scipy
import scipy.sparse as sp
import sklearn
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.multioutput import ClassifierChain, MultiOutputClassifier
from threadpoolctl import threadpool_limits

from benchmarks.batched_bases import BATCHED_BASES, bench_batched_base, render_batched_base
from benchmarks.generated import make_delicious_like, make_many_labels, make_mediamill_like
from benchmarks.hidden_layers import (
    CCASL_DATASETS,
    MLP_DATASETS,
    MLP_HIDDEN,
    QUICK_HIDDEN_DATASETS,
    bench_ccasl,
    bench_mlp,
    render_ccasl,
    render_mlp,
)
from benchmarks.part_floor import bench_parts, median_rates, mlp_floor, render_parts
from benchmarks.peak_rss import PeakRSS
from benchmarks.reproduce_floor import bench_floor, paper_config, render_floor
from benchmarks.results_file import results_path
from mlhidden.data import DatasetUnavailable, load_dataset
from mlhidden.methods.base import hstack_features
from mlhidden.methods.base_learners import positive_proba
from mlhidden.methods.registry import make_method
from mlhidden.methods.shared_fits import SharedFits
from mlhidden.runs.splits import SplitRecipe

PROJECT_ROOT = Path(__file__).resolve().parents[1]
DATASETS = ("Bibtex", "Corel5k", "Enron", "Medical", "OHSUMED", "MediaMill-synthetic")
QUICK_DATASETS = ("Medical", "Enron")
ALONE = ("CCASL", "CCASL+AML", "MLP", "BR_RF")
RUN_SEED = 0
# The targets of the speed issue: (speed-up of ours over the peer, identical predictions).
TARGETS = {"BR": (3.0, 0.995), "CC": (3.0, 0.995), "PCC": (50.0, 0.995)}
TARGET_DATASETS = {"BR": ("Bibtex", "Corel5k"), "CC": ("Bibtex", "Corel5k"), "PCC": DATASETS}
# Methods of the paper's config that share fits, in the config's (and so the run's) order.
SHARING_METHODS = ("CC", "PCC", "CCASL", "CCASL+BR", "CCASL+AML")
SECTIONS = ("baseline", "ccasl", "mlp", *BATCHED_BASES, "floor", "parts")
PAPER_CONFIG = PROJECT_ROOT / "configs" / "paper.yaml"
GENERATED = {
    "MediaMill-synthetic": make_mediamill_like,
    "Many-labels-synthetic": make_many_labels,
    "Delicious-synthetic": make_delicious_like,
    "Delicious-synthetic-quarter": partial(make_delicious_like, n_samples=4000),
}


def fit_methods_in_turn(methods, X_train, Y_train, X_test, seed, share: bool):
    """Seconds to fit and predict ``methods`` one after the other, their predictions, and the seconds reused."""
    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        with SharedFits(folder).active() if share else nullcontext() as shared:
            predictions = {
                m: np.asarray(make_method(m, random_state=seed).fit(X_train, Y_train).predict(X_test)) for m in methods
            }
        return time.perf_counter() - start, predictions, shared.reused_seconds if share else 0.0


@dataclass
class Measurement:
    """Medians over repetitions of one method on one dataset."""

    seconds: list = field(default_factory=list)
    train: list = field(default_factory=list)
    test: list = field(default_factory=list)
    peak_rss: list = field(default_factory=list)
    prediction: np.ndarray | None = None

    def add(self, train, test, rss, prediction):
        self.train.append(train)
        self.test.append(test)
        self.seconds.append(train + test)
        self.peak_rss.append(rss)
        self.prediction = prediction

    def median(self, attr="seconds") -> float:
        return statistics.median(getattr(self, attr))


def timed_fit_predict(estimator, X_train, Y_train, X_test):
    """Train seconds, test seconds, peak RSS (bytes) and the test predictions."""
    with PeakRSS() as rss, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        estimator.fit(X_train, Y_train)
        middle = time.perf_counter()
        predicted = np.asarray(estimator.predict(X_test))
        end = time.perf_counter()
    return middle - start, end - middle, rss.peak, predicted


def per_instance_mc(models, X, uniforms) -> np.ndarray:
    """PCC's Monte-Carlo search the straightforward way: row by row, link by link, ``predict_proba``.

    Candidate 0 is the greedy vector (threshold 0.5), candidates 1..M use ``uniforms[row]``, as in
    :func:`mlhidden.methods.inference.monte_carlo_search`; returns the best vectors in chain order.
    """
    n_rows, n_samples, n_links = uniforms.shape
    best = np.zeros((n_rows, n_links), dtype=np.int8)
    for row in range(n_rows):
        thresholds = np.vstack([np.full(n_links, 0.5), uniforms[row]])
        inputs = X[np.full(n_samples + 1, row)]
        labels = np.zeros((n_samples + 1, n_links), dtype=np.int8)
        log_joint = np.zeros(n_samples + 1)
        for j, model in enumerate(models):
            p = positive_proba(model, hstack_features(inputs, labels[:, :j]))
            values = p > thresholds[:, j]
            labels[:, j] = values
            with np.errstate(divide="ignore"):
                log_joint += np.log(np.where(values, p, 1.0 - p))
        best[row] = labels[np.argmax(log_joint)]
    return best


def load_split(name: str, data_dir: Path):
    """Split 0 of a dataset as the runner makes it: train/test parts, labels in the split's order."""
    dataset = GENERATED[name]() if name in GENERATED else load_dataset(name, data_dir=data_dir)
    split = SplitRecipe(RUN_SEED, 1).splits(dataset.name, dataset.Y)[0]
    X_train, X_test = dataset.X[split.train], dataset.X[split.test]
    values = X_train.data if sp.issparse(X_train) else X_train
    if np.isnan(values).any():
        imputer = SimpleImputer(strategy="mean", keep_empty_features=True).fit(X_train)
        X_train, X_test = imputer.transform(X_train), imputer.transform(X_test)
    Y = dataset.Y[:, split.label_order]
    return dataset, X_train, X_test, Y[split.train], Y[split.test], split.method_seed


def agreement(ours, peer):
    """Shares of identical test predictions: label entries and whole rows."""
    same = np.asarray(ours) == np.asarray(peer)
    return float(same.mean()), float(same.all(axis=1).mean())


def bench_dataset(name, data_dir, repeats, pcc_rows, alone, share_methods, log):
    dataset, X_train, X_test, Y_train, Y_test, seed = load_split(name, data_dir)
    varying = np.flatnonzero(Y_train.min(axis=0) != Y_train.max(axis=0))
    Yv = Y_train[:, varying]
    log(
        f"{name}: train {X_train.shape}, test {X_test.shape[0]}, "
        f"{Yv.shape[1]}/{Y_train.shape[1]} labels with both classes"
    )
    info = {
        "n_train": X_train.shape[0],
        "n_test": X_test.shape[0],
        "n_features": X_train.shape[1],
        "n_labels": Y_train.shape[1],
        "n_compared": Yv.shape[1],
        "sparse": sp.issparse(X_train),
    }
    pairs = {
        "BR": (lambda: make_method("BR", random_state=seed), lambda: MultiOutputClassifier(LogisticRegression())),
        "CC": (lambda: make_method("CC", random_state=seed), lambda: ClassifierChain(LogisticRegression())),
    }
    compared = {key: (Measurement(), Measurement()) for key in pairs}
    pcc_ours, pcc_peer = Measurement(), Measurement()
    pcc = make_method("PCC", random_state=seed).fit(X_train, Yv)
    rows = min(pcc_rows, X_test.shape[0])
    uniforms = np.random.RandomState(pcc.inference_seed_).random_sample((rows, pcc.n_samples, Yv.shape[1]))
    for repeat in range(repeats):
        for key, (ours, peer) in pairs.items():
            for factory, measurement in ((ours, compared[key][0]), (peer, compared[key][1])):
                measurement.add(*timed_fit_predict(factory(), X_train, Yv, X_test))
            log(
                f"  {key} rep {repeat + 1}: ours {compared[key][0].seconds[-1]:.2f}s, "
                f"sklearn {compared[key][1].seconds[-1]:.2f}s"
            )
        with PeakRSS() as rss:
            start = time.perf_counter()
            predicted = pcc.predict(X_test)
            pcc_ours.add(0.0, (time.perf_counter() - start) / X_test.shape[0], rss.peak, predicted[:rows])
        with PeakRSS() as rss:
            start = time.perf_counter()
            best = per_instance_mc(pcc.estimators_, X_test, uniforms)
            pcc_peer.add(0.0, (time.perf_counter() - start) / rows, rss.peak, best[:, np.argsort(pcc.order_)])
        log(
            f"  PCC-MC rep {repeat + 1}: ours {pcc_ours.test[-1] * 1e3:.3f} ms/row, "
            f"loop {pcc_peer.test[-1] * 1e3:.1f} ms/row"
        )
    compared["PCC"] = (pcc_ours, pcc_peer)
    sharing = {"alone": [], "shared": [], "reused": [], "identical": []}
    for repeat in range(repeats if share_methods else 0):
        alone_seconds, alone_predictions, _ = fit_methods_in_turn(
            share_methods, X_train, Y_train, X_test, seed, share=False
        )
        shared_seconds, shared_predictions, reused = fit_methods_in_turn(
            share_methods, X_train, Y_train, X_test, seed, share=True
        )
        sharing["alone"].append(alone_seconds)
        sharing["shared"].append(shared_seconds)
        sharing["reused"].append(reused)
        sharing["identical"].append(
            all(np.array_equal(alone_predictions[m], shared_predictions[m]) for m in share_methods)
        )
        log(
            f"  shared fits rep {repeat + 1}: alone {alone_seconds:.1f}s, shared {shared_seconds:.1f}s "
            f"(reused {reused:.1f}s)"
        )
    solo = {}
    for method in alone:
        solo[method] = Measurement()
        for repeat in range(repeats):
            solo[method].add(*timed_fit_predict(make_method(method, random_state=seed), X_train, Y_train, X_test))
            log(f"  {method} rep {repeat + 1}: {solo[method].seconds[-1]:.2f}s")
    return info, compared, solo, sharing


def machine_info(module: str = "benchmarks.run") -> list[str]:
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = psutil.virtual_memory().total / 2**30
    return [
        f"- date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
        (
            f"- machine: {platform.platform()}, {cpu}, {os.cpu_count()} logical cores, {memory:.1f} GiB RAM, "
            f"load average {os.getloadavg()[0]:.2f} at start"
        ),
        (
            f"- python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
            f"scikit-learn {sklearn.__version__}"
        ),
        f"- command: `{' '.join([f'python -m {module}', *sys.argv[1:]])}`",
    ]


def mib(value) -> str:
    return f"{value / 2**20:.0f}"


def render(results, hidden_results, args, started) -> str:
    """The report; ``hidden_results`` maps each section but the baseline to its results."""
    lines = [
        "# mlhidden speed benchmark",
        "",
        *machine_info(),
        f"- wall time of this benchmark: {time.perf_counter() - started:.0f} s",
        "",
    ]
    lines += [
        "Split 0 of each dataset (run seed 0), labels in the split's order. Ours and the peer alternate",
        (
            f"within each of {args.repeats} repetition(s) in one process, one BLAS thread each; "
            "figures are medians. The machine is"
        ),
        "shared and noisy: compare the ratios, not the absolute seconds. Comparisons use the labels with",
        "both classes in the training part (scikit-learn's wrappers refuse the others).",
        "",
    ]
    verdicts = []
    if results:
        baseline_lines, verdicts = render_baseline(results, args)
        lines += baseline_lines
    renderers = {
        "ccasl": render_ccasl,
        "mlp": render_mlp,
        "floor": partial(
            render_floor, paper_datasets=args.paper_datasets, splits=args.paper_splits, unavailable=args.unavailable
        ),
        "parts": partial(render_parts, n_epochs=args.mlp_epochs),
    }
    for section, section_results in hidden_results.items():
        if section_results:
            section_lines, section_verdicts = renderers.get(section, partial(render_batched_base, section))(
                section_results
            )
            lines += section_lines
            verdicts += section_verdicts
    lines += ["## Targets", "", *(verdicts or ["- (no target dataset in this run)"]), ""]
    return "\n".join(lines)


def render_baseline(results, args) -> tuple[list, list]:
    """The sections on BR, CC, PCC, the other methods alone, shared fits and the datasets; target verdicts."""
    lines = [
        "## BR and CC vs scikit-learn (train + test)",
        "",
        (
            "| dataset | method | ours s | sklearn s | speed-up | identical entries | identical rows | "
            "ours peak RSS MiB | sklearn peak RSS MiB |"
        ),
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    verdicts = []
    for name, (_info, compared, _, _) in results.items():
        for key in ("BR", "CC", "PCC"):
            ours, peer = compared[key]
            speedup = peer.median("test" if key == "PCC" else "seconds") / ours.median(
                "test" if key == "PCC" else "seconds"
            )
            entries, rows = agreement(ours.prediction, peer.prediction)
            if key != "PCC":
                lines.append(
                    f"| {name} | {key} | {ours.median():.2f} | {peer.median():.2f} | {speedup:.1f}x | "
                    f"{entries:.4%} | {rows:.2%} | {mib(max(ours.peak_rss))} | {mib(max(peer.peak_rss))} |"
                )
            if name in TARGET_DATASETS[key]:
                need_speed, need_same = TARGETS[key]
                met = speedup >= need_speed and entries >= need_same
                verdicts.append(
                    f"- {key} on {name}: {speedup:.1f}x (target {need_speed:g}x), {entries:.3%} identical entries "
                    f"-> {'met' if met else 'NOT met'}"
                )
    lines += [
        "",
        "## PCC Monte-Carlo inference (M = 50) vs a per-instance sampling loop",
        "",
        f"Same fitted chain, same uniforms; the loop runs on the first {args.pcc_rows} test rows, ours on the whole",
        "test set (per-row times compared); identical = same MAP vector on the loop's rows.",
        "",
        "| dataset | labels | ours ms/row | loop ms/row | speed-up | identical entries | identical rows |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, (info, compared, _, _) in results.items():
        ours, peer = compared["PCC"]
        entries, rows = agreement(ours.prediction, peer.prediction)
        lines.append(
            f"| {name} | {info['n_compared']} | {ours.median('test') * 1e3:.3f} | {peer.median('test') * 1e3:.1f} | "
            f"{peer.median('test') / ours.median('test'):.0f}x | {entries:.4%} | {rows:.2%} |"
        )
    lines += [
        "",
        "## Other methods on their own (all labels; absolute figures, for the trend)",
        "",
        "| dataset | method | train s | test s | peak RSS MiB |",
        "|---|---|---:|---:|---:|",
    ]
    for name, (_info, _, solo, _) in results.items():
        for method, measurement in solo.items():
            lines.append(
                f"| {name} | {method} | {measurement.median('train'):.2f} | {measurement.median('test'):.2f} | "
                f"{mib(max(measurement.peak_rss))} |"
            )
    lines += [
        "",
        f"## Shared fits: {', '.join(args.share_methods)} fitted and evaluated in turn (all labels)",
        "",
        "Each method fitting everything itself vs sharing identical fits through a folder, as `mlhidden run` does;",
        "reused = the compute seconds the shared fits stood for; identical = every method's test predictions equal.",
        "",
        "| dataset | alone s | shared s | speed-up | reused s | identical |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for name, (_, _, _, sharing) in results.items():
        if sharing["alone"]:
            alone, shared = statistics.median(sharing["alone"]), statistics.median(sharing["shared"])
            lines.append(
                f"| {name} | {alone:.1f} | {shared:.1f} | {alone / shared:.2f}x | "
                f"{statistics.median(sharing['reused']):.1f} | {'yes' if all(sharing['identical']) else 'NO'} |"
            )
    lines += [
        "",
        "## Datasets",
        "",
        "| dataset | train rows | test rows | features | labels | compared labels | X |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for name, (info, _, _, _) in results.items():
        lines.append(
            f"| {name} | {info['n_train']} | {info['n_test']} | {info['n_features']} | {info['n_labels']} | "
            f"{info['n_compared']} | {'sparse' if info['sparse'] else 'dense'} |"
        )
    return lines + [""], verdicts


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", help=f"comma-separated (default: {','.join(DATASETS)})")
    parser.add_argument("--repeats", type=int, default=3, help="repetitions per measurement (median reported)")
    parser.add_argument("--pcc-rows", type=int, default=100, help="test rows for the per-instance PCC loop")
    parser.add_argument("--alone", default=",".join(ALONE), help="methods timed on their own ('' for none)")
    parser.add_argument(
        "--share-methods",
        default=",".join(SHARING_METHODS),
        help="methods timed in turn with and without shared fits ('' for none)",
    )
    parser.add_argument(
        "--sections",
        default=",".join(SECTIONS),
        help=f"comma-separated sections to run (default: {','.join(SECTIONS)})",
    )
    parser.add_argument("--ccasl-datasets", help=f"datasets of the ccasl section (default: {','.join(CCASL_DATASETS)})")
    parser.add_argument("--mlp-datasets", help=f"datasets of the mlp section (default: {','.join(MLP_DATASETS)})")
    for section, base in BATCHED_BASES.items():
        parser.add_argument(
            f"--{section.replace('_', '-')}-datasets",
            help=f"datasets of the {section} section (default: {','.join(base.datasets)})",
        )
    parser.add_argument("--floor-datasets", help="datasets of the floor section (default: the paper config's)")
    parser.add_argument("--parts-datasets", help="datasets of the parts section (default: the paper config's)")
    parser.add_argument("--mlp-epochs", type=int, default=1000, help="epochs of both networks in the mlp section")
    parser.add_argument(
        "--tight-datasets",
        help=(
            "ccasl datasets where CCASL is also fitted tightly, for agreement and objective gaps "
            "(default: the real ones)"
        ),
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=(
            f"{', '.join(QUICK_DATASETS)} ({', '.join(QUICK_HIDDEN_DATASETS)} for ccasl, mlp, liblinear, floor, parts; "
            "none for logistic_cv); 1 repetition; 20 PCC rows; 100 MLP epochs"
        ),
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="the data path (default: the shipped datasets/, as for mlhidden run)",
    )
    parser.add_argument("--out", type=Path, default=None, help="default: benchmarks/results.md (quick: results/quick/)")
    args = parser.parse_args(argv)
    args.out = args.out or results_path(args.quick)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    if args.quick:
        args.repeats, args.pcc_rows, args.mlp_epochs = 1, 20, 100
    sections = set(args.sections.split(","))
    if not sections <= set(SECTIONS):
        parser.error(f"unknown section(s) {sorted(sections - set(SECTIONS))}; choose from {', '.join(SECTIONS)}")

    def chosen(section, given, default, quick=QUICK_HIDDEN_DATASETS):
        if section not in sections:
            return []
        return given.split(",") if given else list(quick if args.quick and section != "baseline" else default)

    names = chosen("baseline", args.datasets, QUICK_DATASETS if args.quick else DATASETS)
    args.paper_datasets, args.paper_splits = paper_config(PAPER_CONFIG)
    ccasl_names = args.ccasl_names = chosen("ccasl", args.ccasl_datasets, CCASL_DATASETS)
    hidden_names = {
        "ccasl": ccasl_names,
        "mlp": chosen("mlp", args.mlp_datasets, MLP_DATASETS),
        "floor": chosen("floor", args.floor_datasets, args.paper_datasets),
        "parts": chosen("parts", args.parts_datasets, args.paper_datasets),
        **{
            section: chosen(section, getattr(args, f"{section}_datasets"), base.datasets, base.quick)
            for section, base in BATCHED_BASES.items()
        },
    }
    alone = [m for m in args.alone.split(",") if m]
    args.share_methods = [m for m in args.share_methods.split(",") if m]
    args.unavailable = []
    started = time.perf_counter()

    def log(message):
        print(f"[{time.perf_counter() - started:7.1f}s] {message}", flush=True)

    results: dict = {}
    hidden_results: dict = {section: {} for section in hidden_names}
    text = render(results, hidden_results, args, started)
    work = [
        (
            name,
            results,
            lambda name: bench_dataset(
                name, args.data_dir, args.repeats, args.pcc_rows, alone, args.share_methods, log
            ),
        )
        for name in names
    ]
    for section, section_names in hidden_names.items():
        work += [
            (name, hidden_results[section], lambda name, section=section: bench_hidden(name, section, args, log))
            for name in section_names
        ]
    for name, store, measure in work:
        with threadpool_limits(1):
            try:
                store[name] = measure(name)
            except DatasetUnavailable as error:
                log(f"{name}: skipped, {error.reason}")
                args.unavailable.append(name)
        text = render(results, hidden_results, args, started)
        args.out.write_text(text)  # after every dataset, so an interrupted run keeps what it measured
    print(text)


def bench_hidden(name, section, args, log):
    """A section other than the baseline on split 0 of one dataset (all labels)."""
    _, X_train, X_test, Y_train, Y_test, seed = load_split(name, args.data_dir)
    log(f"{name} ({section}): train {X_train.shape}, {Y_train.shape[1]} labels")
    if section == "ccasl":
        tight = (
            args.tight_datasets.split(",")
            if args.tight_datasets is not None
            else [n for n in args.ccasl_names if n not in GENERATED]
        )
        return bench_ccasl(X_train, X_test, Y_train, seed, args.repeats, log, gaps=name in tight)
    if section in BATCHED_BASES:
        return bench_batched_base(section, X_train, X_test, Y_train, seed, args.repeats, log)
    if section == "floor":
        return bench_floor(X_train, X_test, Y_train, seed, args.repeats, log)
    if section in ("parts", "mlp") and not hasattr(args, "gemm_rates"):
        args.gemm_rates = median_rates(args.repeats)
        log(f"  peak GEMM GFLOP/s: {args.gemm_rates}")
    if section == "parts":
        return bench_parts(X_train, X_test, Y_train, seed, args.mlp_epochs, args.gemm_rates, log)
    result = bench_mlp(X_train, X_test, Y_train, Y_test, seed, args.repeats, args.mlp_epochs, log)
    return {**result, "floor": mlp_floor(X_train, Y_train, args.mlp_epochs, MLP_HIDDEN, args.gemm_rates)}


if __name__ == "__main__":
    main()
