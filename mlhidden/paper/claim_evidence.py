"""The paper's evidence that a store row does not hold, named in configs/claims.yaml.

Extractors (:data:`EXTRACTORS`) give the general claims checker (:mod:`mlhidden.claims.check`) a
frame of dataset, method, split and value: our values minus the paper's printed ones, the
per-label accuracies along a chain from the refits, and named labels' accuracies from the stored
predictions (for positive controls). Notes (:data:`NOTES`) put a claim next to the
paper's own numbers: our data against the paper's, the paper's time ratios, the paper's values
that a trivial baseline beats. Every size and reading stays in the claims file. Any claims file may
use them; ``params`` or a claim they cannot serve is a UserError without a path, which the checker
puts at its line.
"""

from __future__ import annotations

import math

import pandas as pd

from mlhidden.claims import ClaimSpec, StoredRuns, SubClaim, statistic
from mlhidden.errors import UserError, did_you_mean
from mlhidden.paper.reference import LABEL_ACCURACY_FILE, reference_results
from mlhidden.runs import METRICS, load_dataset_spec, stored_label_accuracies
from mlhidden.yaml_lines import failure_at, refuse_unknown_keys

SUMMARIES = ("rise", "mean")
"""How :func:`chain_accuracy` summarises a chain's per-label accuracies."""


def _refuse_unknown_params(sub: SubClaim, keys: tuple[str, ...]) -> None:
    refuse_unknown_keys(sub.params, keys, (), failure_at(None, {}), "in params")


def _gap_tables(paper: pd.DataFrame) -> list[str]:
    """The tables of the paper's numbers ``paper`` with one value per method and metric: a gap per cell needs one."""
    cells = paper[paper["metric"].isin(list(METRICS))]
    shared = cells[cells.duplicated(["table", "method", "metric"], keep=False)]
    return sorted(set(cells["table"]) - set(shared["table"]))


def paper_gap(runs: StoredRuns, sub: SubClaim) -> pd.DataFrame | str:
    """Per cell of the paper's table ``params.table`` (method x metric), our split's value minus the paper's.

    Each cell is a "dataset" of the frame (e.g. "BR exact match"), its method "gap"; only our units of the
    cell's dataset count. The table defaults to the run's name.
    """
    _refuse_unknown_params(sub, ("table",))
    paper, table = reference_results(), sub.params.get("table", sub.run)
    tables = _gap_tables(paper)
    if table not in tables:
        raise UserError(f"the paper has no table {table!r}",
                        hint=f"{did_you_mean(table, tables)}give params: {{table: {' or '.join(tables)}}}")
    paper = paper[paper["table"] == table]
    units = runs.ok_units(str(sub.run))
    cells = [(row, units[(units["method"] == row.method) & (units["dataset"] == row.dataset)])
             for row in paper.itertuples()]
    lacking = sorted({f"{row.method} on {row.dataset}" for row, chosen in cells if chosen.empty})
    if lacking:
        return f"run '{sub.run}' has no result for {', '.join(lacking)}"
    frames = [
        pd.DataFrame({
            "dataset": f"{row.method} {METRICS[row.metric].title.lower()}", "method": "gap",
            "split": chosen["split"].to_numpy(), "value": chosen[row.metric].to_numpy(dtype=float) - row.value,
        })
        for row, chosen in cells
    ]
    return pd.concat(frames, ignore_index=True)


def chain_accuracy(runs: StoredRuns, sub: SubClaim) -> pd.DataFrame | str:
    """Per chain (method) and split of the refits of ``params.dataset``, a summary of the per-label accuracies.

    ``params.summary`` is ``rise`` (mean over the last quarter of the chain positions minus the
    first quarter's) or ``mean`` (over the whole chain; the default).
    """
    _refuse_unknown_params(sub, ("dataset", "summary"))
    dataset, summary = sub.params.get("dataset"), sub.params.get("summary", "mean")
    if not isinstance(dataset, str):
        raise UserError("needs params: {dataset: NAME, summary: rise or mean}")
    if summary not in SUMMARIES:
        raise UserError(f"unknown summary {summary!r}", hint=f"{did_you_mean(summary, SUMMARIES)}rise or mean")
    path = runs.paths[str(sub.run)] / LABEL_ACCURACY_FILE
    accuracy = pd.read_csv(path) if path.is_file() else None
    if accuracy is None or dataset not in set(accuracy["dataset"]):
        return f"no per-label refits of {dataset} in run '{sub.run}'"
    chosen = accuracy[accuracy["dataset"] == dataset]
    rows = []
    for (method, split), group in chosen.groupby(["method", "split"], sort=False):
        ordered = group.sort_values("position")["accuracy"].to_numpy(dtype=float)
        quarter = max(len(ordered) // 4, 1)
        value = ordered[-quarter:].mean() - ordered[:quarter].mean() if summary == "rise" else ordered.mean()
        rows.append({"dataset": dataset, "method": method, "split": split, "value": value})
    return pd.DataFrame(rows)


def _label_positions(runs: StoredRuns, run: str, labels: list[str], datasets: set[str]) -> dict[str, list[int]]:
    """Dataset -> the positions of ``labels`` among its labels, as its file names them (a UserError for one missing)."""
    positions = {}
    for spec in runs.record(run).datasets:
        if spec.table_name not in datasets:
            continue
        names = list(load_dataset_spec(spec).label_names)
        lacking = [label for label in labels if label not in names]
        if lacking:
            raise UserError(f"{spec.table_name} has no label {lacking[0]!r}",
                            hint=f"{did_you_mean(lacking[0], names)}its labels: {', '.join(names)}")
        positions[spec.table_name] = [names.index(label) for label in labels]
    return positions


def label_accuracy(runs: StoredRuns, sub: SubClaim) -> pd.DataFrame | str:
    """Per method and split, the lowest per-label accuracy among ``params.labels`` (label names), from the stored
    test predictions.

    "BR learns OR and AND" is about each of the two: it holds when the weaker one is learnt, so the
    statistic is the lower of their accuracies on each split. The predictions are in the dataset's label
    order whatever order a split fitted the labels in.
    """
    _refuse_unknown_params(sub, ("labels",))
    labels = sub.params.get("labels")
    if not isinstance(labels, list) or not labels or not all(isinstance(label, str) for label in labels):
        raise UserError("needs params: {labels: [NAME, ...]}, label names of the dataset")
    run = str(sub.run)
    units = runs.ok_units(run)
    chosen = set(sub.datasets.names) if sub.datasets.names else set(units["dataset"])
    positions = _label_positions(runs, run, labels, chosen)
    accuracies = stored_label_accuracies(runs.paths[run])
    if accuracies is None:
        return f"run '{run}' has neither stored predictions nor their label hits"
    named = pd.Series([label in positions.get(dataset, ()) for dataset, label in
                       zip(accuracies["dataset"], accuracies["label"])], index=accuracies.index, dtype=bool)
    weakest = accuracies[named].groupby(["dataset", "method", "split"], sort=False)["accuracy"].min()
    if weakest.empty:
        return f"run '{run}' has no stored predictions on {', '.join(sorted(chosen))}"
    return weakest.rename("value").reset_index()


def synthetic_data_differ(runs: StoredRuns, spec: ClaimSpec) -> str:
    """Our BR's exact match on each kind of synthetic data next to the paper's (Table 4)."""
    if runs["synthetic"] is None:
        return ""
    units = runs.ok_units("synthetic")
    paper = reference_results()
    paper = paper[(paper["table"] == "synthetic") & (paper["metric"] == "exact_match") & (paper["method"] == "BR")]
    ours = units[units["method"] == "BR"].groupby("group")["exact_match"].mean()
    shown = [
        f"{row.dataset} {ours.get(row.dataset, float('nan')):.3f} (paper {row.value:.3f})" for row in paper.itertuples()
    ]
    return f"Our generator's data are not the paper's: BR's exact match is {', '.join(shown)}."


def paper_time_ratios(runs: StoredRuns, spec: ClaimSpec) -> str:
    """The paper's own time ratios (its time table) for each time-ratio sub-claim, on the same datasets.

    A sub-claim of a method the paper never timed is a UserError: the note has nothing to set beside it.
    """
    if runs["paper"] is None:
        return ""
    paper = reference_results()
    times = paper[paper["table"] == "scalability"].pivot_table(index="dataset", columns="method", values="value")
    units = runs.ok_units("paper")
    parts = []
    for sub in spec.subclaims:
        if sub.statistic != "ratio" or sub.run != "paper":
            continue
        untimed = [name for side in sub.sides for name in side if name not in times.columns]
        if untimed:
            raise UserError(f"the paper's time table has no method {untimed[0]!r}",
                            hint=f"{sub.id} compares it; the table times {', '.join(times.columns)}")
        datasets = list(dict.fromkeys(units["dataset"]))
        if sub.datasets.min_samples is not None:
            sizes = runs.shapes("paper")["n_samples"]
            datasets = [d for d in datasets if sizes[d] >= sub.datasets.min_samples]
        ratios = statistic(times.reindex(datasets), sub).dropna()
        shown = ", ".join(f"{d} {math.exp(r):.1f}x" for d, r in ratios.items() if math.isfinite(r))
        if shown:
            parts.append(f"{sub.id}: the paper's own table gives {shown} (datasets it times at 0 s left out)")
    return "; ".join(parts) + "." if parts else ""


def medical_chain_baseline(runs: StoredRuns, spec: ClaimSpec) -> str:
    """The paper's chain accuracies that predicting no label beats on Medical, which the chain sizes rest on."""
    if runs["paper"] is None:
        return ""
    units = runs.ok_units("paper")
    zero = units[(units["dataset"] == "Medical") & (units["method"] == "AllZero")]
    if zero.empty:
        return ""
    baseline = float(zero["hamming_score"].mean())
    paper = reference_results()
    chain = paper[paper["table"] == "medical_chain"]
    below = [f"{row.method} {row.value:.2f}" for row in chain.itertuples() if row.value < baseline]
    if not below:
        return ""
    return (f"The paper's chain accuracies {', '.join(below)} are below what predicting no label scores on Medical "
            f"(AllZero's per-label accuracy {baseline:.3f} in our paper run): the sizes claimed rest on these values.")


EXTRACTORS = {"paper_gap": paper_gap, "chain_accuracy": chain_accuracy, "label_accuracy": label_accuracy}
"""Extractors configs/claims.yaml may name."""
NOTES = {
    "synthetic_data_differ": synthetic_data_differ,
    "paper_time_ratios": paper_time_ratios,
    "medical_chain_baseline": medical_chain_baseline,
}
"""Notes configs/claims.yaml may name."""
