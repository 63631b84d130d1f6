"""Reproduce the paper in one call: run its configs, then write REPORT.md, tables and figures.

:func:`reproduce` runs ``configs/<name>.yaml`` for every name in :data:`PAPER_CONFIGS` into
``<out>/<name>/`` (resuming what is already stored), writes each run's own tables, refits the
few units whose per-label accuracies the report needs (the store keeps scores, not
predictions), and calls :func:`write_report`.

:func:`write_report` reads only the run stores, those refits and the paper's numbers
(``reference_results.csv`` beside this module), so every number in REPORT.md is computed and the
report can be rebuilt at any time. It sets each table next to the paper's, flags deviations
larger than :data:`DEVIATION`, and decides the paper's claims C1-C8 (:data:`CLAIMS`) from the
stored results: each is marked "holds", "does not hold" or "not evaluated", with our numbers.
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import platform
import time
from collections import Counter
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
from tabulate import tabulate

from mlhidden.data import registry_entries
from mlhidden.errors import UserError
from mlhidden.experiment.config import DatasetSpec, RunConfig, load_config
from mlhidden.experiment.provenance import machine, package_versions, provenance_lines
from mlhidden.experiment.runner import load_dataset_spec, run_experiment
from mlhidden.experiment.splits import make_split, method_seed, split_for
from mlhidden.experiment.store import ResultStore, load_results, now, store_exists
from mlhidden.methods.registry import make_method
from mlhidden.report.figures import plot_logical, plot_sweep, plot_synthetic_2d, sweep_frame
from mlhidden.report.formats import format_rank, latex_escape, markdown_escape, write_reports
from mlhidden.report.statistics import markdown_with_diagram, significance_report
from mlhidden.report.tables import METRICS, metric_table

PAPER_CONFIGS = ("paper", "logical", "synthetic", "synthetic_2d", "hidden_nodes", "label_count")
REPORT_FILE = "REPORT.md"
RUN_LOG_FILE = "reproduction.json"
LABEL_ACCURACY_FILE = "label_accuracy.csv"
COMPARISON_FILE = "comparison.csv"
REFERENCE_FILE = "reference_results.csv"

DEVIATION = 0.05
"""Our value and the paper's differ notably when they are further apart than this."""

# The paper's spelling of our dataset names, in reference_results.csv.
PAPER_DATASET_NAMES = {"Ohsumed": "OHSUMED", "M.Mill": "MediaMill"}

# Per-label accuracies the report needs: run -> (dataset groups, method labels) to refit.
LABEL_ACCURACY_REFITS = {
    "synthetic_2d": (("complex 2-D",), ("BR", "CC (1,2)", "CC (2,1)")),
    "paper": (("Medical",), ("CC", "CCASL")),
}

# Table 3's models, named as in logical.yaml and in the paper's table.
LOGICAL_MODELS = ("BR", "CC (b)", "CC (c)", "PCC (c)", "LP", "BR_phi")

# Fig. "results_syn1": its exact-match columns (method labels of synthetic_2d.yaml), and its base
# classifiers: column -> (method label, label index whose accuracy it is).
SYNTHETIC_2D_METHODS = ("BR", "CC (1,2)", "CC (2,1)", "CCASL")
SYNTHETIC_2D_BASE_CLASSIFIERS = {
    "h1(x) of BR": ("BR", 0),
    "h2(x) of BR": ("BR", 1),
    "h1(x,y2) of CC": ("CC (2,1)", 0),
    "h2(x,y1) of CC": ("CC (1,2)", 1),
}

CCASL_METHODS = ("CCASL", "CCASL+BR", "CCASL+AML")
LARGE_DATASET_SAMPLES = 5000
ABOUT_TWICE = (1.5, 3.0)
ORDER_OF_MAGNITUDE = 10.0
PERFECT = 1.0 - 1e-9

HOLDS, FAILS, NOT_EVALUATED = "holds", "does not hold", "not evaluated"
FLAG = "⚠"

# Our headline metrics -> (the paper's table, its metric name there) in reference_results.csv.
PAPER_TABLES = {
    "exact_match": ("results", "exact_match"),
    "hamming_score": ("results", "hamming_score"),
    "total_seconds": ("scalability", "time_seconds"),
}
# The Wilcoxon control of the significance section: the method the paper proposes.
SIGNIFICANCE_CONTROL = "CCASL+AML"
# Far below the paper's display precision, far above the rank rounding (tables.RANK_DECIMALS).
RANK_TIE_BREAK = 1e-9


@dataclass(frozen=True)
class QuickMode:
    """How ``--quick`` shrinks each paper config so that the whole reproduction runs in minutes.

    Attributes
    ----------
    max_splits : int
        Splits per dataset.
    max_cells : int
        Registry datasets with more than this many feature values (N x D) are left out;
        generated datasets are always kept.
    max_sweep_points : int
        A dataset entry keeps the first this-many points of its sweep (e.g. 10 of the 150
        synthetic datasets of each kind).
    """

    max_splits: int = 3
    max_cells: int = 1_500_000
    max_sweep_points: int = 10

    def shrink(self, config: RunConfig) -> RunConfig:
        sizes = {entry.name.lower(): entry.n_samples * entry.n_features for entry in registry_entries()}
        kept, points = [], Counter()
        for spec in config.datasets:
            if sizes.get(spec.name.lower(), 0) > self.max_cells:
                continue
            points[spec.group] += 1
            if points[spec.group] <= self.max_sweep_points:
                kept.append(spec)
        return dataclasses.replace(config, datasets=tuple(kept), splits=min(config.splits, self.max_splits))


QUICK = QuickMode()


@dataclass
class Reproduction:
    """What :func:`reproduce` did: the run summaries by config name, the files written, the time taken."""

    out_dir: Path
    summaries: dict = field(default_factory=dict)
    paths: list = field(default_factory=list)
    seconds: float = 0.0
    interrupted: bool = False

    @property
    def n_failed(self) -> int:
        return sum(summary.n_failed + len(summary.not_run) for summary in self.summaries.values())


def paper_configs(config_dir="configs", names=PAPER_CONFIGS, quick: bool = False) -> list:
    """Load and validate the paper's configs (all of them, before anything runs), shrunk for ``quick``."""
    config_dir = Path(config_dir)
    configs = []
    for name in names:
        path = config_dir / f"{name}.yaml"
        if not path.is_file():
            raise UserError("paper config not found", path=path, hint="run from the project root or pass --configs DIR")
        config = load_config(path)
        configs.append(QUICK.shrink(config) if quick else config)
    return configs


def reproduce(
    out_dir="results",
    *,
    quick: bool = False,
    data_dir=None,
    n_jobs=None,
    config_dir="configs",
    names=PAPER_CONFIGS,
    progress: Callable | None = None,
) -> Reproduction:
    """Run the paper's configs into ``out_dir/<name>/``, then write the report, tables and figures.

    Parameters
    ----------
    out_dir : str or os.PathLike
        Where the run directories, REPORT.md, ``tables/`` and ``figures/`` go.
    quick : bool
        Shrink every config with :data:`QUICK` (3 splits, small datasets, fewer synthetic datasets).
    data_dir : str or os.PathLike, optional
        The dataset folder (see :func:`mlhidden.data.resolve_data_dir`).
    n_jobs : int, optional
        Parallel units; default from each config, else all cores.
    config_dir : str or os.PathLike
        The folder holding ``<name>.yaml`` for each of ``names``.
    names : sequence of str
        The configs to run, by file name without ``.yaml``.
    progress : callable, optional
        ``progress(config_name)`` returns a context manager whose value has the runner's
        ``start(n_units, n_skipped)`` and ``unit(row, done, n_units)`` callbacks (e.g.
        :class:`~mlhidden.experiment.progress.RunProgress`).

    Returns
    -------
    Reproduction
        With ``interrupted`` set (and no report written) when a run was interrupted.
    """
    out_dir = Path(out_dir)
    configs = paper_configs(config_dir, names, quick)
    result = Reproduction(out_dir)
    started, started_at = time.perf_counter(), now()
    earlier = _read_run_log(out_dir)
    earlier_runs = earlier["runs"] if earlier and earlier["quick"] == quick else {}
    log = {"quick": quick, "started_at": started_at, "runs": {}}
    for config in configs:
        run_dir = out_dir / config.name
        run_started = time.perf_counter()
        with progress(config.name) if progress is not None else nullcontext() as shown:
            summary = run_experiment(
                config, run_dir, data_dir=data_dir, n_jobs=n_jobs,
                on_start=getattr(shown, "start", None), on_unit=getattr(shown, "unit", None),
            )
        result.summaries[config.name] = summary
        if summary.interrupted:
            result.interrupted = True
            result.seconds = time.perf_counter() - started
            return result
        result.paths += write_run_tables(run_dir)
        if config.name in LABEL_ACCURACY_REFITS:
            result.paths.append(write_label_accuracies(run_dir, *LABEL_ACCURACY_REFITS[config.name], data_dir=data_dir))
        wall = time.perf_counter() - run_started if summary.n_done else 0.0
        if summary.n_skipped and config.name in earlier_runs:
            wall += earlier_runs[config.name]["wall_seconds"]  # the invocations that computed the stored units
        log["runs"][config.name] = {"wall_seconds": wall, "units": summary.unit_counts()}
    result.seconds = time.perf_counter() - started
    log.update(
        finished_at=now(), invocation_seconds=result.seconds, wall_seconds=sum(r["wall_seconds"] for r in log["runs"].values()),
        machine=machine(), packages=package_versions(), python=platform.python_version(),
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / RUN_LOG_FILE).write_text(json.dumps(log, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    result.paths += write_report(out_dir)
    return result


def _read_run_log(out_dir) -> dict | None:
    path = Path(out_dir) / RUN_LOG_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def write_run_tables(run_dir) -> list:
    """A run's own tables (CSV, LaTeX, Markdown; see :func:`~mlhidden.report.write_reports`)."""
    results = load_results(run_dir)
    return write_reports(
        results.units, run_dir, results.datasets, results.methods, results.unavailable,
        provenance=provenance_lines(results.provenance),
    )


def write_label_accuracies(run_dir, groups, methods, data_dir=None) -> Path:
    """Refit some units of a run and write each label's test accuracy to ``label_accuracy.csv``.

    The store keeps a unit's scores, not its predictions, but the paper also reads the
    accuracy of single labels (Fig. "results_syn1", the Medical chain). Each refit uses the
    unit's own split, label order and method seed, so it is the stored unit again: its exact
    match is written too, for the report to check against the store.

    Parameters
    ----------
    run_dir : str or os.PathLike
    groups : sequence of str
        Dataset groups (config entries) of the run to refit.
    methods : sequence of str
        Method labels to refit.
    data_dir : str or os.PathLike, optional

    Returns
    -------
    pathlib.Path
        The CSV: one row per (dataset, method, split, chain position) with the label's index in
        the dataset, its accuracy, and the unit's exact match.
    """
    run_dir = Path(run_dir)
    results = load_results(run_dir)
    config = results.config
    rows = []
    for spec in config["datasets"]:
        name = spec["label"] or spec["name"]
        if spec["group"] not in groups or name not in results.checksums:
            continue
        data = load_dataset_spec(DatasetSpec(**spec), data_dir)
        for method in (m for m in config["methods"] if m["label"] in methods):
            for index in range(config["splits"]):
                split = split_for(
                    config["seed"], name, index, data.n_samples, data.n_labels, config["train_fraction"], config.get("shuffle_labels", True)
                )
                estimator = make_method(method["name"], method["params"], method.get("base"), random_state=method_seed(config["seed"], name, index))
                estimator.fit(data.X[split.train], data.Y[split.train][:, split.label_order])
                truth = data.Y[split.test][:, split.label_order]
                predicted = np.asarray(estimator.predict(data.X[split.test]))
                exact = float(np.mean(np.all(predicted == truth, axis=1)))
                for position, (label, accuracy) in enumerate(zip(split.label_order, np.mean(predicted == truth, axis=0))):
                    rows.append({
                        "dataset": name, "method": method["label"], "split": index, "position": position,
                        "label": int(label), "accuracy": float(accuracy), "exact_match": exact,
                    })
    path = run_dir / LABEL_ACCURACY_FILE
    pd.DataFrame(rows, columns=["dataset", "method", "split", "position", "label", "accuracy", "exact_match"]).to_csv(
        path, index=False, lineterminator="\n"
    )
    return path


def reference_results() -> pd.DataFrame:
    """The paper's numbers: columns table, metric, dataset (our spelling), method, value, rank."""
    text = resources.files("mlhidden.report").joinpath(REFERENCE_FILE).read_text(encoding="utf-8")
    frame = pd.read_csv(io.StringIO(text), dtype={"method": str})
    frame["dataset"] = frame["dataset"].replace(PAPER_DATASET_NAMES)
    return frame


class Runs:
    """The reproduction's run directories under one folder, each read on first use.

    ``runs[name]`` is the :class:`~mlhidden.experiment.store.RunResults` of ``<folder>/<name>``,
    or None when that run has no store.
    """

    def __init__(self, out_dir):
        self.out_dir = Path(out_dir)
        self._results = {}

    def __getitem__(self, name: str):
        if name not in self._results:
            run_dir = self.out_dir / name
            self._results[name] = load_results(run_dir) if store_exists(run_dir) else None
        return self._results[name]

    def shapes(self, name: str) -> pd.DataFrame:
        """The run's datasets as stored: n_samples, n_labels, n_features, label_cardinality by name."""
        with ResultStore(self.out_dir / name, create=False) as store:
            return store.datasets().set_index("name")

    def label_accuracy(self, name: str) -> pd.DataFrame | None:
        path = self.out_dir / name / LABEL_ACCURACY_FILE
        return pd.read_csv(path) if path.is_file() else None


def ok_units(run) -> pd.DataFrame:
    return run.units[run.units["status"] == "ok"]


def logical_table(runs: Runs) -> pd.DataFrame | None:
    """Table 3: per paper model, mean exact match and Hamming score over its splits, and their count."""
    run = runs["logical"]
    if run is None:
        return None
    units = ok_units(run)
    rows = {}
    for model in LOGICAL_MODELS:
        chosen = units[units["method"] == model]
        rows[model] = {"exact_match": chosen["exact_match"].mean(), "hamming_score": chosen["hamming_score"].mean(), "n_splits": len(chosen)}
    return pd.DataFrame(rows).T.astype({"n_splits": int})


def dataset_means(run) -> pd.DataFrame:
    """Mean over the ok splits of every (dataset group, dataset, method), for all metrics."""
    groups = {spec["label"] or spec["name"]: spec["group"] for spec in run.config["datasets"]}
    units = ok_units(run).assign(group=lambda u: u["dataset"].map(groups))
    return units.groupby(["group", "dataset", "method"], sort=False)[list(METRICS)].mean().reset_index()


def synthetic_table(runs: Runs) -> pd.DataFrame | None:
    """Table 4: per kind and method, the mean over datasets of exact match and Hamming score."""
    run = runs["synthetic"]
    if run is None:
        return None
    means = dataset_means(run)
    table = means.groupby(["group", "method"], sort=False).agg(
        exact_match=("exact_match", "mean"), hamming_score=("hamming_score", "mean"), n_datasets=("dataset", "size")
    )
    return table.rename_axis(["kind", "method"])


def synthetic_2d_tables(runs: Runs) -> tuple | None:
    """Fig. "results_syn1": exact match per dataset and method (CC in each order) and base-classifier accuracies."""
    run = runs["synthetic_2d"]
    if run is None:
        return None
    units = ok_units(run)
    exact = {
        method: units[units["method"] == method].groupby("dataset", sort=False)["exact_match"].mean()
        for method in SYNTHETIC_2D_METHODS
    }
    exact = pd.DataFrame(exact).reindex([d for d in run.datasets if d in set(units["dataset"])])
    accuracy = runs.label_accuracy("synthetic_2d")
    if accuracy is None:
        return exact, None
    base = {}
    for column, (method, label) in SYNTHETIC_2D_BASE_CLASSIFIERS.items():
        chosen = accuracy[(accuracy["method"] == method) & (accuracy["label"] == label)]
        base[column] = chosen.groupby("dataset", sort=False)["accuracy"].mean()
    return exact, pd.DataFrame(base).reindex(list(dict.fromkeys(accuracy["dataset"])))


def chain_accuracy(runs: Runs, name: str = "paper", dataset: str = "Medical") -> pd.DataFrame | None:
    """Per method and chain position, the mean (and sd, count) over splits of the label's accuracy.

    In the shape of :func:`~mlhidden.report.figures.sweep_frame`, so that it plots the same way.
    """
    accuracy = runs.label_accuracy(name)
    if accuracy is None or dataset not in set(accuracy["dataset"]):
        return None
    chosen = accuracy[accuracy["dataset"] == dataset]
    frame = chosen.groupby(["method", "position"], sort=False)["accuracy"].agg(["mean", "std", "size"]).reset_index()
    frame = frame.rename(columns={"method": "line", "position": "x", "size": "n"})
    return frame.assign(panel=dataset, parameter="position", x=frame["x"] + 1)[["panel", "line", "parameter", "x", "mean", "std", "n"]]


def refit_check(runs: Runs, name: str) -> tuple | None:
    """How many refit units reproduce the exact match in the store: (matching, total)."""
    accuracy = runs.label_accuracy(name)
    if accuracy is None or runs[name] is None:
        return None
    refits = accuracy.drop_duplicates(["dataset", "method", "split"])
    stored = runs[name].units.set_index(["dataset", "method", "split"])["exact_match"]
    matching = sum(
        math.isclose(row.exact_match, stored.get((row.dataset, row.method, row.split), math.nan), abs_tol=1e-12)
        for row in refits.itertuples()
    )
    return matching, len(refits)


def run_sweep(runs: Runs, name: str, metric: str = "exact_match") -> pd.DataFrame | None:
    run = runs[name]
    return None if run is None else sweep_frame(run.units, run.config, metric)


@dataclass(frozen=True)
class Claim:
    """One claim of the paper and what our stored results say about it."""

    key: str
    statement: str
    verdict: str
    evidence: str


def _not_evaluated(key, statement, why) -> Claim:
    return Claim(key, statement, NOT_EVALUATED, why)


def _verdict(holds: bool) -> str:
    return HOLDS if holds else FAILS


def _missing_run(name: str) -> str:
    return f"no results for run '{name}'"


def claim_logical(runs: Runs, reference: pd.DataFrame) -> Claim:
    paper = reference[reference["table"] == "logical"]
    values = paper.pivot_table(index="method", columns="metric", values="value", sort=False)
    statement = "Table 3 on Logical (Hamming score / exact match): " + ", ".join(
        f"{model} {row['hamming_score']:.2f} / {row['exact_match']:.2f}" for model, row in values.iterrows()
    )
    table = logical_table(runs)
    if table is None:
        return _not_evaluated("C1", statement, _missing_run("logical"))
    deviations, missing = [], []
    for row in paper.itertuples():
        ours = table.at[row.method, row.metric]
        if math.isnan(ours):
            missing.append(row.method)
        elif abs(ours - row.value) > DEVIATION:
            deviations.append(f"{row.method} {METRICS[row.metric].title.lower()} {ours:.2f} (paper {row.value:.2f})")
    if deviations:
        return Claim("C1", statement, FAILS, f"{len(deviations)} of {len(paper)} values differ by more than {DEVIATION}: " + "; ".join(deviations))
    if missing:
        return _not_evaluated("C1", statement, f"no results for {', '.join(sorted(set(missing)))}")
    return Claim("C1", statement, HOLDS, f"all {len(paper)} values within {DEVIATION} of the paper's")


def claim_synthetic(runs: Runs, reference: pd.DataFrame) -> Claim:
    statement = "Table 4, exact match: complex data CCASL > CC > BR; simple data BR ≥ CC ≥ CCASL"
    table = synthetic_table(runs)
    if table is None:
        return _not_evaluated("C2", statement, _missing_run("synthetic"))
    methods = ["BR", "CC", "CCASL"]
    if not {(kind, method) for kind in ("complex", "simple") for method in methods} <= set(table.index):
        return _not_evaluated("C2", statement, "the run lacks a kind (complex, simple) or a method (BR, CC, CCASL)")
    c, s = (table.loc[kind, "exact_match"] for kind in ("complex", "simple"))
    holds = c["CCASL"] > c["CC"] > c["BR"] and s["BR"] >= s["CC"] >= s["CCASL"]
    evidence = "; ".join(
        f"{kind} ({int(table.at[(kind, 'BR'), 'n_datasets'])} datasets): " + ", ".join(f"{m} {means[m]:.3f}" for m in methods)
        for kind, means in (("complex", c), ("simple", s))
    )
    return Claim("C2", statement, _verdict(holds), evidence)


def _avg_ranks(run, metric: str):
    table = metric_table(run.units, metric, run.datasets, run.methods, run.unavailable)
    return table.avg_rank.sort_values(kind="stable"), len(table.ranked_datasets)


def _ranks_text(ranks: pd.Series) -> str:
    return ", ".join(f"{method} {rank:.2f}" for method, rank in ranks.items())


def _rank_claim(runs: Runs, key: str, statement: str, metric: str, holds) -> Claim:
    """A claim about the paper run's average ranks on ``metric``; ``holds(ranks)`` decides it."""
    run = runs["paper"]
    if run is None:
        return _not_evaluated(key, statement, _missing_run("paper"))
    ranks, n = _avg_ranks(run, metric)
    if not n:
        return _not_evaluated(key, statement, "no dataset of the paper run has every method's result")
    return Claim(key, statement, _verdict(holds(ranks)), f"average ranks over {n} datasets: {_ranks_text(ranks)}")


def claim_exact_match_ranks(runs: Runs, reference: pd.DataFrame) -> Claim:
    return _rank_claim(
        runs, "C3", "Exact-match average rank (Table 'results'): CCASL+AML best, CCASL+BR second, ELM worst",
        "exact_match", lambda ranks: list(ranks.index[:2]) == ["CCASL+AML", "CCASL+BR"] and ranks.index[-1] == "ELM",
    )


def claim_hamming_ranks(runs: Runs, reference: pd.DataFrame) -> Claim:
    return _rank_claim(
        runs, "C4", "Hamming-score average rank (Table 'results'): BR_RF best",
        "hamming_score", lambda ranks: ranks.index[0] == "BR_RF",
    )


def _first_perfect(points: pd.DataFrame):
    perfect = points[points["mean"] >= PERFECT]
    return None if perfect.empty else perfect["x"].min()


def claim_hidden_nodes(runs: Runs, reference: pd.DataFrame) -> Claim:
    statement = "Fig. 'contrast' (Logical): CCASL+AML reaches exact match 1.0 with K = 1 hidden node; ELM and MLP need more"
    frame = run_sweep(runs, "hidden_nodes")
    if frame is None:
        return _not_evaluated("C5", statement, _missing_run("hidden_nodes"))
    lines = {line: points for line, points in frame.groupby("line")}
    if not {"CCASL+AML", "ELM", "MLP"} <= set(lines) or 1 not in set(lines["CCASL+AML"]["x"]):
        return _not_evaluated("C5", statement, "the run lacks CCASL+AML at K = 1, ELM or MLP")
    aml = lines["CCASL+AML"].set_index("x")["mean"][1]
    firsts = {line: _first_perfect(lines[line]) for line in ("CCASL+AML", "ELM", "MLP")}
    holds = aml >= PERFECT and all(firsts[line] is None or firsts[line] > 1 for line in ("ELM", "MLP"))
    reached = "; ".join(
        f"{line} first reaches 1.0 at K = {first}" if first is not None else f"{line} never reaches 1.0 (best {lines[line]['mean'].max():.2f})"
        for line, first in firsts.items()
    )
    return Claim("C5", statement, _verdict(holds), f"CCASL+AML at K = 1: {aml:.2f}; {reached}")


def claim_label_count(runs: Runs, reference: pd.DataFrame) -> Claim:
    statement = "Fig. 'labup' (Scene, first L labels): at L = 6 CCASL+AML is the best logistic-regression method; at L = 1 random forest beats logistic regression"
    run = runs["label_count"]
    if run is None:
        return _not_evaluated("C6", statement, _missing_run("label_count"))
    frame = sweep_frame(run.units, run.config, "exact_match")
    bases = {m["group"]: (m.get("base") or {}).get("name") for m in run.config["methods"]}
    if not {1, 6} <= set(frame["x"]):
        return _not_evaluated("C6", statement, "the run lacks L = 1 or L = 6")
    at = {L: frame[frame["x"] == L].set_index("line")["mean"] for L in (1, 6)}
    logistic = {L: means[[m for m in means.index if bases[m] == "logistic"]] for L, means in at.items()}
    forest = at[1][[m for m in at[1].index if bases[m] == "random_forest"]]
    if "CCASL+AML" not in logistic[6] or forest.empty:
        return _not_evaluated("C6", statement, "the run lacks CCASL+AML or a random-forest method")
    best6 = logistic[6].idxmax()
    holds = best6 == "CCASL+AML" and forest.min() > logistic[1].max()
    evidence = (
        f"L = 6: best logistic-regression method {best6} {logistic[6].max():.3f} (CCASL+AML {logistic[6]['CCASL+AML']:.3f}); "
        f"L = 1: random forest {', '.join(f'{m} {v:.3f}' for m, v in forest.items())} vs best logistic regression "
        f"{logistic[1].idxmax()} {logistic[1].max():.3f}"
    )
    return Claim("C6", statement, _verdict(holds), evidence)


def claim_time(runs: Runs, reference: pd.DataFrame) -> Claim:
    statement = (
        f"Time (Table 'scalability'): CCASL methods about 2x BR/CC on the large datasets (N ≥ {LARGE_DATASET_SAMPLES}); "
        "MLP an order of magnitude slower than the CCASL methods"
    )
    run = runs["paper"]
    if run is None:
        return _not_evaluated("C7", statement, _missing_run("paper"))
    table = metric_table(run.units, "total_seconds", run.datasets, run.methods, run.unavailable)
    means = table.means.loc[table.ranked_datasets]
    needed = {"BR", "CC", "MLP", *CCASL_METHODS}
    if means.empty or not needed <= set(means.columns):
        return _not_evaluated("C7", statement, f"the paper run lacks a complete dataset or one of {', '.join(sorted(needed))}")
    shapes = runs.shapes("paper")
    large = [d for d in means.index if shapes.at[d, "n_samples"] >= LARGE_DATASET_SAMPLES]
    ccasl = means[list(CCASL_METHODS)].mean(axis=1)
    mlp_ratio = float(np.exp(np.log(means["MLP"] / ccasl).mean()))
    mlp_text = f"MLP / CCASL methods: geometric mean {mlp_ratio:.1f}x over {len(means)} datasets"
    if not large:
        return _not_evaluated("C7", statement, f"no large dataset (N ≥ {LARGE_DATASET_SAMPLES}) has results; {mlp_text}")
    ratios = ccasl[large] / means.loc[large, ["BR", "CC"]].mean(axis=1)
    ratio = float(ratios.mean())
    holds = ABOUT_TWICE[0] <= ratio <= ABOUT_TWICE[1] and mlp_ratio >= ORDER_OF_MAGNITUDE
    per_dataset = ", ".join(f"{d} {r:.1f}x" for d, r in ratios.items())
    return Claim(
        "C7", statement, _verdict(holds),
        f"CCASL methods / BR,CC on {len(large)} large datasets: {ratio:.1f}x ({per_dataset}; 'about 2x' read as "
        f"{ABOUT_TWICE[0]}-{ABOUT_TWICE[1]}x); {mlp_text}",
    )


def _chain_ends(points: pd.DataFrame) -> tuple:
    """Mean accuracy over the first and the last quarter of the chain positions."""
    quarter = max(len(points) // 4, 1)
    means = points.sort_values("x")["mean"].to_numpy()
    return means[:quarter].mean(), means[-quarter:].mean()


def claim_medical_chain(runs: Runs, reference: pd.DataFrame) -> Claim:
    paper = reference[reference["table"] == "medical_chain"].set_index("method")["value"]
    statement = (
        f"Medical: per-label accuracy rises along the CCASL chain (paper: from {paper['CCASL start']:.2f} to "
        f"{paper['CCASL end']:.2f}; along CC's from {paper['CC start']:.2f} to {paper['CC end']:.2f})"
    )
    frame = chain_accuracy(runs)
    if frame is None:
        return _not_evaluated("C8", statement, "no per-label refits of Medical in the paper run")
    ends = {line: _chain_ends(points) for line, points in frame.groupby("line", sort=False)}
    if "CCASL" not in ends:
        return _not_evaluated("C8", statement, "no CCASL refits of Medical")
    first, last = ends["CCASL"]
    evidence = "; ".join(f"{line}: {a:.3f} over the first quarter of the chain, {b:.3f} over the last" for line, (a, b) in ends.items())
    return Claim("C8", statement, _verdict(last > first), evidence)


CLAIMS = (
    claim_logical,
    claim_synthetic,
    claim_exact_match_ranks,
    claim_hamming_ranks,
    claim_hidden_nodes,
    claim_label_count,
    claim_time,
    claim_medical_chain,
)
"""The claims table's rows, C1-C8: each ``(runs, reference) -> Claim``."""


def evaluate_claims(out_dir) -> list:
    """Every claim of :data:`CLAIMS` decided from the runs under ``out_dir``."""
    runs, reference = Runs(out_dir), reference_results()
    return [claim(runs, reference) for claim in CLAIMS]


def _fmt(value, digits=2) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def _markdown(frame: pd.DataFrame, index_name: str = "") -> str:
    headers = [index_name, *map(str, frame.columns)]
    rows = [[markdown_escape(index), *(markdown_escape(v) for v in row)] for index, row in zip(frame.index, frame.to_numpy())]
    return tabulate(rows, headers=[markdown_escape(h) for h in headers], tablefmt="pipe", disable_numparse=True) + "\n"


def _latex(frame: pd.DataFrame, caption: str, label: str, index_name: str = "") -> str:
    lines = [
        r"\begin{table}", r"\centering", rf"\caption{{{latex_escape(caption)}}}", rf"\label{{{label}}}",
        rf"\begin{{tabular}}{{l{'r' * len(frame.columns)}}}", r"\toprule",
        " & ".join(map(latex_escape, [index_name, *frame.columns])) + r" \\", r"\midrule",
    ]
    lines += [" & ".join(map(latex_escape, [index, *row])) + r" \\" for index, row in zip(frame.index, frame.to_numpy())]
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def write_table(numbers: pd.DataFrame, shown: pd.DataFrame, stem: Path, caption: str, index_name: str = "") -> list:
    """``numbers`` as ``<stem>.csv``; ``shown`` (formatted cells) as ``<stem>.md`` and ``<stem>.tex``."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [stem.with_suffix(".csv"), stem.with_suffix(".md"), stem.with_suffix(".tex")]
    numbers.to_csv(paths[0], lineterminator="\n")
    paths[1].write_text(f"{caption}\n\n{_markdown(shown, index_name)}", encoding="utf-8")
    paths[2].write_text(_latex(shown, caption, f"tab:{stem.name}", index_name), encoding="utf-8")
    return paths


@dataclass
class Section:
    """A part of REPORT.md, the comparison rows it contributes and the files it wrote."""

    markdown: str
    comparisons: list = field(default_factory=list)
    paths: list = field(default_factory=list)


def _comparison(table, metric, dataset, method, ours, paper, flagged: bool = True) -> dict:
    difference = ours - paper if not (math.isnan(ours) or math.isnan(paper)) else math.nan
    return {
        "table": table, "metric": metric, "dataset": dataset, "method": method, "ours": ours, "paper": paper,
        "difference": difference, "flagged": bool(flagged and not math.isnan(difference) and abs(difference) > DEVIATION),
    }


def _flag_note(rows: list) -> str:
    flagged = sum(row["flagged"] for row in rows)
    compared = sum(not math.isnan(row["difference"]) for row in rows)
    return f"{flagged} of {compared} values differ from the paper's by more than {DEVIATION} ({FLAG})."


def results_section(runs: Runs, reference: pd.DataFrame) -> Section:
    """Table "results" (exact match, Hamming score) and Table "scalability" (time) next to the paper's."""
    title = "## Table 'results' and Table 'scalability': the real datasets\n\n"
    run = runs["paper"]
    if run is None:
        return Section(title + f"Not run: {_missing_run('paper')}.\n")
    parts = [
        title,
        "Each cell: our mean over the splits and our rank on the dataset, then the paper's value and rank in "
        f"parentheses; {FLAG} marks a score more than {DEVIATION} from the paper's. The average rank is over the "
        "datasets we ranked; the paper's is recomputed from its per-dataset ranks on those same datasets. Every "
        "table of the run, with standard deviations and LaTeX versions: `paper/tables.md`.\n\n",
    ]
    comparisons = []
    for metric, (table_name, paper_metric) in PAPER_TABLES.items():
        table = metric_table(run.units, metric, run.datasets, run.methods, run.unavailable)
        paper = reference[(reference["table"] == table_name) & (reference["metric"] == paper_metric)].set_index(["dataset", "method"])
        rows, table_comparisons = {}, []
        for dataset in table.datasets:
            if dataset in table.unavailable:
                rows[dataset] = [table.unavailable[dataset], *[""] * (len(table.methods) - 1)]
                continue
            cells = []
            for method in table.methods:
                row = _comparison(
                    table_name, paper_metric, dataset, method, table.means.at[dataset, method],
                    paper["value"].get((dataset, method), math.nan), flagged=not table.metric.is_time,
                )
                table_comparisons.append(row)
                ours = f"{_fmt_metric(table, row['ours'])} {format_rank(table.ranks.at[dataset, method])}"
                theirs = f"{_fmt(row['paper'], 0 if table.metric.is_time else 2)} {format_rank(paper['rank'].get((dataset, method), math.nan))}"
                cells.append(f"{ours} ({theirs})" + (f" {FLAG}" if row["flagged"] else ""))
            rows[dataset] = cells
        paper_ranks = paper["rank"].unstack("method").reindex(index=table.ranked_datasets, columns=list(table.methods))
        rows["avg rank"] = [f"{table.avg_rank[m]:.2f} ({paper_ranks[m].mean():.2f})" for m in table.methods]
        comparisons += table_comparisons
        parts.append(f"### {table.metric.title} (Table '{table_name}')\n\n")
        if table.metric.is_time:
            parts.append("Train plus test seconds per unit; the paper's come from another machine, so compare ranks and ratios.\n\n")
        parts.append(_markdown(pd.DataFrame.from_dict(rows, orient="index", columns=list(table.methods)), "Dataset"))
        parts.append("\n" if table.metric.is_time else f"\n{_flag_note(table_comparisons)}\n\n")
    return Section("".join(parts), comparisons)


def paper_units(reference: pd.DataFrame) -> pd.DataFrame:
    """The paper's Tables 'results' and 'scalability' as units, one split per (dataset, method) cell.

    The paper prints only each cell's mean over its splits; as units, its numbers go through the
    same :func:`~mlhidden.report.tables.metric_table` and significance tests as ours. Its means
    are rounded (2 decimals, whole seconds), which ties many cells its ranks tell apart, so each
    value is raised by a multiple of :data:`RANK_TIE_BREAK` that orders them as its printed ranks do:
    the ranks are then the paper's own (its average ranks to the printed digit), and the shown values
    unchanged; the Wilcoxon tests see two such tied means as differing by the least amount.
    """
    columns = []
    for metric, (table_name, paper_metric) in PAPER_TABLES.items():
        rows = reference[(reference["table"] == table_name) & (reference["metric"] == paper_metric)]
        # Upwards only, so that no zero turns into "-0.00": better scores gain more, slower times more.
        steps = rows["rank"].max() - rows["rank"] if METRICS[metric].higher_is_better else rows["rank"]
        values = rows["value"] + RANK_TIE_BREAK * steps
        columns.append(values.set_axis(pd.MultiIndex.from_frame(rows[["dataset", "method"]])).rename(metric))
    return pd.concat(columns, axis=1).reset_index().assign(split=0, status="ok", error="")


def _significance_sections(units, datasets, methods, unavailable, stem: str, figures_dir: Path) -> tuple:
    """Per metric of :data:`PAPER_TABLES`: the tests' Markdown with its CD diagram, and the files drawn."""
    parts, paths = [], []
    for metric in PAPER_TABLES:
        table = metric_table(units, metric, datasets, methods, unavailable)
        report = significance_report(table, SIGNIFICANCE_CONTROL if SIGNIFICANCE_CONTROL in table.methods else None)
        text, drawn = markdown_with_diagram(report, figures_dir / f"cd_{stem}_{metric}", figures_dir.parent, level=4)
        parts.append(text + "\n")
        paths += drawn
    return parts, paths


def significance_section(runs: Runs, reference: pd.DataFrame, figures_dir: Path) -> Section:
    """Friedman, Nemenyi and Wilcoxon–Holm tests of our paper run and of the paper's own numbers."""
    parts = [
        "## Statistical significance of the rank differences (Demšar 2006)\n\n",
        "Per table, over the datasets where every method has a result: the Friedman test on the ranks with the "
        "Iman–Davenport F statistic; the Nemenyi test, under which two methods differ when their average ranks differ "
        "by at least the critical difference CD (at α = 0.05 and 0.10; the diagrams join methods closer than the CD "
        f"at 0.05); and Wilcoxon signed-rank tests of {SIGNIFICANCE_CONTROL} against every other method on the "
        "per-dataset means, Holm-corrected. The bullet points say in words which differences are significant. "
        "`mlhidden report RUN --stats` writes the same tests for any run.\n\n",
        "### Our paper run\n\n",
    ]
    run = runs["paper"]
    if run is None:
        parts.append(f"Not run: {_missing_run('paper')}.\n\n")
        paths = []
    else:
        ours, paths = _significance_sections(run.units, run.datasets, run.methods, run.unavailable, "paper", figures_dir)
        parts += ours
    units = paper_units(reference)
    datasets, methods = list(dict.fromkeys(units["dataset"])), list(dict.fromkeys(units["method"]))
    parts.append(
        "### The paper's own numbers (Table 'results' and Table 'scalability')\n\n"
        "The same tests on the paper's published means (one value per dataset), ranked as the paper ranks them: its "
        "per-dataset ranks order the cells that its rounded values tie, and real ties share their average rank (which "
        "the paper prints rounded down). The average ranks are then exactly the paper's 'avg rank' rows.\n\n"
    )
    theirs, drawn = _significance_sections(units, datasets, methods, None, "reference", figures_dir)
    return Section("".join(parts + theirs), paths=paths + drawn)


def _fmt_metric(table, value) -> str:
    return "-" if math.isnan(value) else table.metric.format(value)


def logical_section(runs: Runs, reference: pd.DataFrame, tables_dir: Path, figures_dir: Path) -> Section:
    title = "## Table 3: the Logical problem\n\n"
    table = logical_table(runs)
    if table is None:
        return Section(title + f"Not run: {_missing_run('logical')}.\n")
    paper = reference[reference["table"] == "logical"].set_index(["metric", "method"])["value"]
    metrics = {"hamming_score": "Hamming score", "exact_match": "Exact match"}
    comparisons, compared, ours = [], {}, {}
    for model in table.index:
        compared[model], ours[model] = [], []
        for metric in metrics:
            row = _comparison("logical", metric, "Logical", model, table.at[model, metric], paper.get((metric, model), math.nan))
            comparisons.append(row)
            compared[model].append(f"{_fmt(row['ours'])} ({_fmt(row['paper'])})" + (f" {FLAG}" if row["flagged"] else ""))
            ours[model].append(_fmt(row["ours"]))
        compared[model].append(str(table.at[model, "n_splits"]))
        ours[model].append(str(table.at[model, "n_splits"]))
    index = [*metrics.values(), "splits"]
    paths = plot_logical(figures_dir / "logical")
    paths += write_table(table, pd.DataFrame(ours, index=index), tables_dir / "logical", "Table 3: the Logical problem (ours)", "Metric")
    text = (
        title
        + f"![The Logical problem]({_relative(paths[0], figures_dir.parent)})\n\n"
        + "Ours (the paper's in parentheses). The labels keep their order (OR, AND, XOR) in every split: CC (b) "
        "chains XOR last, after OR and AND; CC (c) and PCC (c) chain XOR first (PCC with exact inference). "
        "`splits` counts the splits behind each column.\n\n"
        + _markdown(pd.DataFrame(compared, index=index), "Metric") + "\n" + _flag_note(comparisons) + "\n"
    )
    return Section(text, comparisons, paths)


def synthetic_section(runs: Runs, reference: pd.DataFrame, tables_dir: Path) -> Section:
    title = "## Table 4: synthetic data\n\n"
    table = synthetic_table(runs)
    if table is None:
        return Section(title + f"Not run: {_missing_run('synthetic')}.\n")
    paper = reference[reference["table"] == "synthetic"].set_index(["dataset", "metric", "method"])["value"]
    comparisons, rows = [], []
    for (kind, method), values in table.iterrows():
        cells = []
        for metric in ("exact_match", "hamming_score"):
            row = _comparison("synthetic", metric, kind, method, values[metric], paper.get((kind, metric, method), math.nan))
            comparisons.append(row)
            cells.append(f"{_fmt(row['ours'], 3)} ({_fmt(row['paper'], 3)})" + (f" {FLAG}" if row["flagged"] else ""))
        rows.append((f"{kind} · {method}", [*cells, f"{int(values['n_datasets'])}"]))
    shown = pd.DataFrame([r[1] for r in rows], index=[r[0] for r in rows], columns=["Exact match", "Hamming score", "datasets"])
    ours = table.copy()
    ours.index = [f"{kind} · {method}" for kind, method in table.index]
    ours_shown = pd.DataFrame(
        {"Exact match": ours["exact_match"].map(lambda v: _fmt(v, 3)), "Hamming score": ours["hamming_score"].map(lambda v: _fmt(v, 3)),
         "datasets": ours["n_datasets"].map(str)}
    )
    paths = write_table(table, ours_shown, tables_dir / "synthetic", "Table 4: mean over the synthetic datasets of each kind (ours)", "Data · method")
    text = (
        title
        + "Mean over the synthetic datasets of each kind of the per-dataset score (one 50/50 split each); ours, the "
        "paper's in parentheses. The paper does not give D, the input or weight distributions or the label "
        "thresholds, so our datasets are not the paper's (see `mlhidden/data/synthetic.py`).\n\n"
        + _markdown(shown, "Data · method") + "\n" + _flag_note(comparisons) + "\n"
    )
    return Section(text, comparisons, paths)


def synthetic_2d_section(runs: Runs, reference: pd.DataFrame, tables_dir: Path, figures_dir: Path) -> Section:
    title = "## Fig. 'results_syn1': two-dimensional synthetic data\n\n"
    tables = synthetic_2d_tables(runs)
    if tables is None:
        return Section(title + f"Not run: {_missing_run('synthetic_2d')}.\n")
    exact, base = tables
    run = runs["synthetic_2d"]
    specs = [spec for spec in run.config["datasets"] if (spec["label"] or spec["name"]) in set(run.datasets)]
    datasets = [(spec["label"] or spec["name"], load_dataset_spec(DatasetSpec(**spec))) for spec in specs]
    paths = plot_synthetic_2d(datasets, figures_dir / "synthetic_2d")
    paths += write_table(exact, exact.map(_fmt), tables_dir / "synthetic_2d_exact_match", "Fig. results_syn1: exact match (ours)", "Dataset")
    parts = [
        title,
        f"![Two-dimensional synthetic data]({_relative(paths[0], figures_dir.parent)})\n\n",
        "Points: the first 600 examples, coloured by their label vector y1y2; background: the true label vector of the "
        "generating network. Exact match, mean over the splits (CC (1,2) chains y1 first, CC (2,1) y2 first):\n\n",
        _markdown(exact.map(_fmt), "Dataset"),
    ]
    if base is not None:
        paths += write_table(base, base.map(_fmt), tables_dir / "synthetic_2d_base_accuracy", "Fig. results_syn1: base-classifier accuracy (ours)", "Dataset")
        check = refit_check(runs, "synthetic_2d")
        parts += [
            "\nAccuracy of the base classifiers (refits of the stored units on the complex datasets; "
            f"{check[0]} of {check[1]} refits reproduce the stored exact match):\n\n",
            _markdown(base.map(_fmt), "Dataset"),
        ]
    paper = reference[reference["table"] == "synthetic_2d"]
    paper_table = paper.pivot_table(index="dataset", columns="method", values="value", sort=False)
    columns = [c for c in [*exact.columns, *SYNTHETIC_2D_BASE_CLASSIFIERS] if c in paper_table.columns]
    parts += [
        "\nThe paper's numbers for its two complex samples, for comparison only: they are other random datasets, "
        "so no cell is flagged.\n\n",
        _markdown(paper_table[columns].map(_fmt), "Paper's dataset"),
    ]
    return Section("".join(parts), paths=paths)


def _relative(path: Path, root: Path) -> str:
    return Path(path).relative_to(root).as_posix()


def sweep_section(runs: Runs, name: str, title: str, x_label: str, intro: str, tables_dir: Path, figures_dir: Path) -> Section:
    """A sweep figure (exact match against the swept value) with its table of means."""
    frame = run_sweep(runs, name)
    if frame is None:
        return Section(f"{title}\n\nNot run: {_missing_run(name)}.\n")
    splits = runs[name].config["splits"]
    paths = plot_sweep(
        frame, figures_dir / name, y_label="Exact match", x_label=x_label,
        title=f"Exact match, mean ± 1 sd over {splits} splits",
    )
    means = frame.pivot_table(index="x", columns="line", values="mean", sort=False)
    means = means[list(dict.fromkeys(frame["line"]))].rename_axis(index=x_label, columns=None)
    paths += write_table(frame.set_index(["panel", "line", "x"]), means.map(_fmt), tables_dir / name, f"{title.lstrip('# ')} (ours)", x_label)
    text = (
        f"{title}\n\n{intro} The paper gives this figure as a plot only, so there are no numbers to set ours "
        f"against; the claims table checks what its text says about it.\n\n"
        f"![{markdown_escape(title.lstrip('# '))}]({_relative(paths[0], figures_dir.parent)})\n\n"
        + _markdown(means.map(_fmt), x_label)
    )
    return Section(text, paths=paths)


def medical_section(runs: Runs, tables_dir: Path, figures_dir: Path) -> Section:
    title = "## Medical: per-label accuracy along the chain\n\n"
    frame = chain_accuracy(runs)
    if frame is None:
        return Section(title + "Not evaluated: no per-label refits of Medical (the paper run lacks Medical).\n")
    paths = plot_sweep(frame, figures_dir / "medical_chain", y_label="Label accuracy", x_label="position in the chain (real labels)",
                       title="Test accuracy of each chain position, mean ± 1 sd over the splits")
    paths += write_table(frame.set_index(["line", "x"]), frame.pivot_table(index="x", columns="line", values="mean", sort=False).map(lambda v: _fmt(v, 3)),
                         tables_dir / "medical_chain", "Medical: label accuracy per chain position (ours)", "position")
    check = refit_check(runs, "paper")
    text = (
        title
        + "Each split chains the labels in its random order, so each position holds a random label; the accuracy at a "
        f"position is averaged over the splits. From refits of the stored units ({check[0]} of {check[1]} reproduce the "
        "stored exact match).\n\n"
        + f"![Medical chain accuracy]({_relative(paths[0], figures_dir.parent)})\n"
    )
    return Section(text, paths=paths)


def differences_section(runs: Runs, reference: pd.DataFrame) -> str:
    """What we know about why our numbers differ from the paper's: data, learners, machine."""
    lines = ["## Where our numbers differ, and what we know about why\n"]
    paper_shapes = reference[reference["table"] == "datasets"].pivot_table(index="dataset", columns="metric", values="value", sort=False)
    run = runs["paper"]
    if run is not None:
        shapes = runs.shapes("paper")
        for dataset in run.datasets:
            if dataset in run.unavailable:
                lines.append(f"- **{dataset}**: {run.unavailable[dataset]}; the paper's numbers for it have nothing to compare with.")
                continue
            if dataset not in paper_shapes.index:
                continue
            ours, theirs = shapes.loc[dataset], paper_shapes.loc[dataset]
            differing = [
                f"{key} {ours[key]:.{2 if key == 'label_cardinality' else 0}f} (paper {theirs[key]:.{2 if key == 'label_cardinality' else 0}f})"
                for key in ("n_samples", "n_labels", "n_features", "label_cardinality")
                if abs(float(ours[key]) - float(theirs[key])) > (0.005 if key == "label_cardinality" else 0)
            ]
            if differing:
                lines.append(f"- **{dataset}**: our file differs from the paper's dataset table: {', '.join(differing)}.")
        bases = sorted({json.dumps(m.get("base"), sort_keys=True) for m in run.config["methods"] if m.get("base")})
        lines.append(
            "- **Base learners** (scikit-learn " + package_versions().get("scikit-learn", "?") + "): "
            + "; ".join(f"`{b}`" for b in bases)
            + ". The paper used the scikit-learn of its day (before 0.22: liblinear logistic regression with a "
            "penalised intercept, forests of 10 trees by default) with settings it does not state; we use today's "
            "defaults unless a parameter is set. No method was tuned towards the paper's numbers."
        )
    for name in ("logical", "paper"):
        if runs[name] is not None and "Logical" in runs[name].checksums:
            shape = runs.shapes(name).loc["Logical"]
            split = make_split(int(shape["n_samples"]), int(shape["n_labels"]), 0, 0, runs[name].config["train_fraction"], False)
            lines.append(
                f"- **Logical** has {int(shape['n_samples'])} examples: a split trains on {len(split.train)} and tests on "
                f"{len(split.test)}, so one wrong test example costs {1 / len(split.test):.3f} exact match, and a training "
                "part may miss an input combination. The paper does not say how it evaluated Table 3."
            )
            break
    lines.append(
        "- **Protocol**: every split draws a random label order, as in the paper, and CC and PCC chain the labels in "
        "it; Table 3 and Fig. 'results_syn1' compare given chain orders, so their configs keep the labels' order "
        "(`shuffle_labels: false`) and name each chain's order."
    )
    lines.append(
        "- **Synthetic data**: the paper describes its generators in one sentence; ours follow it (random inputs, "
        "ReLU hidden layer, threshold units) with choices it leaves open, so Table 4 and Fig. 'results_syn1' compare "
        "trends, not values."
    )
    lines.append("- **Times** come from another machine and implementation; compare ranks and ratios, not seconds.")
    return "\n".join(lines) + "\n"


def run_information(out_dir: Path, runs: Runs) -> str:
    """Wall time, unit time, machine and package versions of the reproduction."""
    lines = ["## Run information\n"]
    log = _read_run_log(out_dir)
    if log is None:
        lines.append("No `reproduction.json`: these results were not produced by `mlhidden reproduce`.\n")
    else:
        mode = "`mlhidden reproduce --quick`" if log["quick"] else "`mlhidden reproduce`"
        host = log["machine"]
        memory = f", {host['memory_bytes'] / 2**30:.1f} GiB memory" if host.get("memory_bytes") else ""
        lines.append(
            f"{mode}, last invoked from {log['started_at']} to {log['finished_at']}; wall time to compute every stored "
            f"unit {_duration(log['wall_seconds'])} on "
            f"{host['cores']} cores{memory} ({host['platform']}); Python {log['python']}, "
            + ", ".join(f"{name} {version}" for name, version in sorted(log["packages"].items()))
            + ".\n"
        )
    rows = []
    for name in PAPER_CONFIGS:
        run = runs[name]
        if run is None:
            continue
        wall = (log or {}).get("runs", {}).get(name, {}).get("wall_seconds")
        ok = run.units["status"] == "ok"
        rows.append([
            name, f"{len(run.units)}", f"{int((~ok).sum())}", f"{run.missing}", _duration(wall) if wall is not None else "-",
            _duration(float(run.units["total_seconds"].sum())), f"{run.config['splits']}",
        ])
    lines.append(tabulate(rows, headers=["run", "units", "failed", "missing", "wall time", "sum of unit times", "splits"], tablefmt="pipe", disable_numparse=True))
    lines.append(
        "\nA run's wall time adds up the invocations that computed its stored units (a resumed run adds to the "
        "earlier time; a run started afresh starts from zero); the sum of unit times is single-core train + test "
        "time of every stored unit, a fit shared between methods counted in each method that uses it (what sharing "
        "saved is `reused_fit_seconds` in the run's `run.json`)."
    )
    return "\n".join(lines) + "\n"


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min {secs:02d} s"


def claims_markdown(claims: list) -> str:
    rows = [[claim.key, markdown_escape(claim.statement), f"**{claim.verdict}**", markdown_escape(claim.evidence)] for claim in claims]
    return tabulate(rows, headers=["", "claim", "verdict", "our numbers"], tablefmt="pipe", disable_numparse=True) + "\n"


def write_report(out_dir) -> list:
    """Write REPORT.md, ``tables/``, ``figures/`` and ``comparison.csv`` under ``out_dir`` from its runs.

    Runs that are missing are reported as not run and their claims as not evaluated.

    Returns
    -------
    list of pathlib.Path
        The files written.
    """
    out_dir = Path(out_dir)
    tables_dir, figures_dir = out_dir / "tables", out_dir / "figures"
    runs, reference = Runs(out_dir), reference_results()
    claims = [claim(runs, reference) for claim in CLAIMS]
    sections = [
        results_section(runs, reference),
        significance_section(runs, reference, figures_dir),
        logical_section(runs, reference, tables_dir, figures_dir),
        synthetic_section(runs, reference, tables_dir),
        synthetic_2d_section(runs, reference, tables_dir, figures_dir),
        sweep_section(
            runs, "hidden_nodes", "## Fig. 'contrast': hidden nodes on Logical", "hidden nodes K",
            "K synthetic labels for the CCASL methods (PCCASL: 10 Monte-Carlo samples), K hidden units for ELM and MLP.",
            tables_dir, figures_dir,
        ),
        sweep_section(
            runs, "label_count", "## Fig. 'labup': Scene with its first L labels", "labels L",
            "BR_RF and CC_RF use random forests, the others logistic regression.", tables_dir, figures_dir,
        ),
        medical_section(runs, tables_dir, figures_dir),
    ]
    comparisons = pd.DataFrame([row for section in sections for row in section.comparisons],
                               columns=["table", "metric", "dataset", "method", "ours", "paper", "difference", "flagged"])
    comparison_path = out_dir / COMPARISON_FILE
    comparisons.to_csv(comparison_path, index=False, lineterminator="\n")
    log_path = out_dir / RUN_LOG_FILE
    quick = json.loads(log_path.read_text(encoding="utf-8"))["quick"] if log_path.is_file() else False
    header = [
        "# Reproducing 'Multi-label Classification using Labels as Hidden Nodes' (Read & Hollmén)\n",
        "Generated by `mlhidden reproduce` from the result stores in this folder and the paper's numbers in "
        "`mlhidden/report/reference_results.csv`; no number here is typed by hand. Rebuild it with the same command "
        "(stored units are not run again).\n",
    ]
    if quick:
        header.append(
            f"**Quick mode**: at most {QUICK.max_splits} splits, only datasets with N x D ≤ {QUICK.max_cells:,}, at most "
            f"{QUICK.max_sweep_points} points of each dataset sweep. Numbers are rougher than the paper's protocol allows; "
            "run `make reproduce` for the full experiments.\n"
        )
    flagged = int(comparisons["flagged"].sum())
    header += [
        "## Claims\n",
        "Each row is decided from the stored results by `mlhidden/report/reproduction.py`.\n",
        claims_markdown(claims),
        f"Over all tables, {flagged} of {int(comparisons['difference'].notna().sum())} compared scores differ from the "
        f"paper's by more than {DEVIATION} (`{COMPARISON_FILE}` lists every comparison).\n",
    ]
    body = [section.markdown for section in sections]
    text = "\n".join([*header, *body, differences_section(runs, reference), run_information(out_dir, runs)])
    report = out_dir / REPORT_FILE
    report.write_text(text, encoding="utf-8")
    return [report, comparison_path, *(path for section in sections for path in section.paths)]
