"""Any metric of stored runs, from their stores alone (``mlhidden report RUN --metric NAME``).

Scores of binary predictions and ranking/probability metrics are computed from each unit's
stored predictions (:mod:`mlhidden.runs.predictions`), so a metric added later needs no
re-run. Units stored before predictions were kept fall back to the scores their row holds;
the ranking metrics are n/a for them, as for methods without label scores, and the methods
concerned are named with the reason, never given made-up values.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mlhidden.escaping import markdown_escape
from mlhidden.io import PathLike, write_text
from mlhidden.report.formats import to_markdown
from mlhidden.report.ranked_methods import shared_methods
from mlhidden.report.tables import MetricTable, metric_table
from mlhidden.runs.metrics import RANKING_METRICS, Metric, get_metric
from mlhidden.runs.provenance import provenance_lines, stored_precision
from mlhidden.runs.run_results import RunResults
from mlhidden.runs.status import OK
from mlhidden.runs.store import ResultStore, load_results
from mlhidden.runs.store_schema import KEY_FIELDS, UnitKey

SCORE_METRICS_FILE = "score_metrics.md"
NO_PREDICTIONS = "its units were stored before predictions were kept (re-run them with --fresh to compute it)"
NO_SCORES = "the method (or its base learner) has no predict_proba, so there are no label scores"
UNDEFINED = "undefined on every test part (e.g. AUC where each label has one class)"


@dataclass(frozen=True)
class StoredMetric:
    """One metric over a run's datasets x methods; ``not_available`` maps a method label to why it has no value."""

    table: MetricTable | None
    not_available: dict[str, str] = field(default_factory=dict)

    def note_lines(self) -> list[str]:
        """One line per reason, naming the methods it applies to."""
        by_reason: dict[str, list[str]] = {}
        for method, reason in self.not_available.items():
            by_reason.setdefault(reason, []).append(method)
        return [f"n/a for {', '.join(methods)}: {reason}" for reason, methods in by_reason.items()]


class StoredMetrics(dict[str, StoredMetric]):
    """``{name: StoredMetric}``, and ``run_notes``: the run's lines on units every one of its tables
    leaves out (of another run seed, or not stored yet), which hold for all the metrics at once;
    ``provenance``: the lines saying what produced the runs."""

    def __init__(
        self, metrics: Mapping[str, StoredMetric], run_notes: Iterable[str], provenance: Iterable[str] = ()
    ) -> None:
        super().__init__(metrics)
        self.run_notes = tuple(run_notes)
        self.provenance = tuple(provenance)


def merged_unranked(results: RunResults) -> dict[str, str]:
    """Method -> why it is left out of the ranks: only for merged runs whose method sets differ
    (:func:`~mlhidden.report.ranked_methods.shared_methods`); one run's missing cells are units still to run."""
    if len(results.provenance) < 2:
        return {}
    return shared_methods(results.units, results.datasets, results.methods, results.unavailable)


def stored_metrics(
    run_dirs: PathLike | Iterable[PathLike], metrics: Iterable[str], *, precision: int | None = None
) -> StoredMetrics:
    """A :class:`StoredMetric` for each name in ``metrics``, reading and unpacking each unit's predictions once.

    The full paper run's predictions are estimated at half a gigabyte compressed: unpacked once,
    they serve every metric asked for. ``precision``: the decimals shown (default: the metric's).
    """
    run_dirs = [run_dirs] if isinstance(run_dirs, (str, os.PathLike)) else list(run_dirs)
    chosen = {name: get_metric(name) for name in metrics}
    results = load_results(run_dirs)
    precision = stored_precision(results.provenance) if precision is None else precision
    columns = [m.name for m in chosen.values() if m.function is not None]
    values, has_scores = _prediction_values(run_dirs, columns)
    tables = {
        name: _tabulate(results, metric, values.get(metric.name), has_scores, precision)
        for name, metric in chosen.items()
    }
    return StoredMetrics(tables, results.note_lines(), provenance_lines(results.provenance))


def write_score_metric_tables(run_dir: PathLike) -> Path:
    """Write ``score_metrics.md`` in ``run_dir``: every ranking and probability metric of its stored predictions.

    The paper reports exact match and Hamming score only; MEKA's other measures come from the
    same stored label scores, so they cost no run (and are n/a, with the reason, for methods
    without scores).
    """
    results = stored_metrics(run_dir, list(RANKING_METRICS))
    parts = [
        "# Ranking and probability measures\n\n",
        "From each unit's stored test-set label scores (`mlhidden report RUN --metric NAME`); means over the splits "
        "and ranks per dataset, as in `tables.md`.\n\n",
    ]
    for result in results.values():
        if result.table is not None:
            parts.append(to_markdown(result.table))
        parts += [f"- {markdown_escape(line)}\n" for line in result.note_lines()]
        parts.append("\n")
    parts += [f"- {markdown_escape(line)}\n" for line in results.run_notes]
    path = Path(run_dir) / SCORE_METRICS_FILE
    return write_text(path, "".join(parts))


def _tabulate(
    results: RunResults, metric: Metric, values: dict[UnitKey, float] | None, has_scores: dict[UnitKey, bool],
    precision: int | None,
) -> StoredMetric:
    """One metric's table; ``values`` maps a prediction key to the metric's value, None for a metric of unit rows."""
    units = results.units
    if values is not None:
        keys = list(zip(*(units[c] for c in KEY_FIELDS)))
        row_values = units[metric.name] if metric.name in units.columns else [np.nan] * len(units)
        units = units.assign(**{metric.name: [values.get(k, v) for k, v in zip(keys, row_values)]})
    not_available: dict[str, str] = {}
    for method in results.methods:
        ok = units[(units["method"] == method) & (units["status"] == OK)]
        if ok.empty or ok[metric.name].notna().any():
            continue
        ok_keys = set(zip(*(ok[c] for c in KEY_FIELDS)))
        if values is None:
            not_available[method] = UNDEFINED
        elif not ok_keys & set(values):
            not_available[method] = NO_PREDICTIONS
        else:
            not_available[method] = NO_SCORES if not any(has_scores.get(k) for k in ok_keys) else UNDEFINED
    methods = [m for m in results.methods if m not in not_available]
    unranked = merged_unranked(results)
    table = metric_table(
        units, metric, results.datasets, methods, results.unavailable, precision=precision, unranked=unranked,
    ) if methods else None
    return StoredMetric(table, not_available)


def _prediction_values(
    run_dirs: Iterable[PathLike], columns: list[str]
) -> tuple[dict[str, dict[UnitKey, float]], dict[UnitKey, bool]]:
    """``({column: {prediction key: value}}, {prediction key: whether it has scores})`` over every unit with stored
    predictions."""
    values: dict[str, dict[UnitKey, float]] = {column: {} for column in columns}
    has_scores: dict[UnitKey, bool] = {}
    if not columns:
        return values, has_scores
    for run_dir in run_dirs:
        with ResultStore(run_dir, create=False) as store:
            for key, predictions in store.iter_predictions():
                if key not in has_scores:
                    has_scores[key] = predictions.scores is not None
                    for column in columns:
                        values[column][key] = predictions.metric(column)
    return values, has_scores
