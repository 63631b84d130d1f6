"""A run's results for other tools: JSON listings, and units (and predictions) as CSV, JSON or Parquet files.

``mlhidden export RUN`` writes one row per unit, in table order, with every stored column (JSON:
a list of one object per row, empty cells and infinite numbers null, as strict JSON has no infinity); with
``predictions`` also a long table of the test predictions, one row per unit x test row x label
(``truth``, ``predicted``, ``score``: the label's probability, empty for methods without one).
Parquet needs pyarrow, the ``parquet`` extra; CSV needs nothing more.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mlhidden.errors import UserError
from mlhidden.io import PathLike, Writer, strict_json, text_writer, write_files
from mlhidden.runs.predictions import UnitPredictions
from mlhidden.runs.run_results import sort_units
from mlhidden.runs.store import ResultStore, load_results
from mlhidden.runs.store_schema import KEY_FIELDS

EXPORT_FORMATS = ("csv", "json", "parquet")
PREDICTION_COLUMNS = ["dataset", "method", "split", "test_row", "label", "truth", "predicted", "score"]
JSON_TEXT_COLUMNS = ("params_json", "warnings", "label_order")
"""Unit columns the store keeps as JSON text: a JSON export holds their values, not strings to decode again."""


def json_text(rows: Iterable[Any]) -> str:
    """``rows`` (dicts of plain values) as indented strict JSON; NaN and infinity become null, other objects
    their text."""

    def plain(value: object) -> object:
        if isinstance(value, dict):
            return {str(k): plain(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        return value if value is None or isinstance(value, (str, int, float, bool)) else str(value)

    return strict_json(plain(list(rows)), indent=2, ensure_ascii=False) + "\n"


def export_run(
    run_dirs: PathLike | Iterable[PathLike], out: PathLike, fmt: str = "csv", *, predictions: bool = False
) -> tuple[list[Path], int]:
    """Write the units of one run (or several merged) to ``out``, and with ``predictions`` the
    predictions to ``<out stem>_predictions.<fmt>`` beside it, both or neither. Returns ``(paths, number of units)``."""
    if fmt not in EXPORT_FORMATS:
        raise UserError(f"unknown export format '{fmt}'", hint=f"use one of {', '.join(EXPORT_FORMATS)}")
    if fmt == "parquet":
        try:
            importlib.import_module("pyarrow")
        except ImportError:
            hint = "pip install 'mlhidden[parquet]'"
            raise UserError("--format parquet needs the pyarrow package", hint=hint) from None
    results = load_results(run_dirs)
    units = sort_units(results.units, results.datasets, results.methods, results.unavailable)
    out = Path(out)
    writes = [(out, _writer(units, fmt))]
    if predictions:
        run_dirs = [run_dirs] if isinstance(run_dirs, (str, os.PathLike)) else list(run_dirs)
        frame = _prediction_frame(run_dirs, units)
        writes.append((out.with_name(f"{out.stem}_predictions{out.suffix or '.' + fmt}"), _writer(frame, fmt)))
    return write_files(writes), len(units)


def _prediction_frame(run_dirs: Iterable[PathLike], units: pd.DataFrame) -> pd.DataFrame:
    """The stored predictions of ``units`` (rows of :func:`~mlhidden.runs.store.load_results`), long, in order."""
    keys = list(zip(*(units[c] for c in KEY_FIELDS)))
    label_of = {key: (row.dataset, row.method, row.split) for key, row in zip(keys, units.itertuples())}
    parts: dict[tuple[str, str, int], pd.DataFrame] = {}
    for run_dir in run_dirs:
        with ResultStore(run_dir, create=False) as store:
            for key, unit in store.iter_predictions():
                if key in label_of and label_of[key] not in parts:
                    parts[label_of[key]] = _long(unit)
    order = [label_of[key] for key in keys if label_of[key] in parts]
    frames = [parts[cell].assign(dataset=cell[0], method=cell[1], split=cell[2]) for cell in order]
    if not frames:
        return pd.DataFrame(columns=PREDICTION_COLUMNS)
    return pd.concat(frames, ignore_index=True)[PREDICTION_COLUMNS]


def _long(unit: UnitPredictions) -> pd.DataFrame:
    n_rows, n_labels = unit.truth.shape
    scores = np.full(unit.truth.shape, np.nan) if unit.scores is None else unit.scores.astype(float)
    return pd.DataFrame({
        "test_row": np.repeat(np.arange(n_rows), n_labels),
        "label": np.tile(np.arange(n_labels), n_rows),
        "truth": unit.truth.ravel().astype(int),
        "predicted": unit.predicted.ravel().astype(int),
        "score": scores.ravel(),
    })


def _writer(frame: pd.DataFrame, fmt: str) -> Writer:
    if fmt == "csv":
        return text_writer(frame.to_csv(index=False, lineterminator="\n"))
    if fmt == "json":
        rows = frame.to_dict("records")
        for row in rows:
            for column in JSON_TEXT_COLUMNS:
                if isinstance(row.get(column), str) and row[column]:
                    row[column] = json.loads(row[column])
        return text_writer(json_text(rows))
    return lambda stream: frame.to_parquet(stream, index=False)
