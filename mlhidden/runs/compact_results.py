"""A run directory's compact copy of its store, so that a clone (where git leaves the store out) still has the run.

The store is git-ignored: it holds every unit's predictions and grows to hundreds of MB. What a
report and a claims file read of it is small, and every run writes it beside ``run.json`` when it
ends (:func:`write_compact_copy`):

- ``units.csv.gz``: every stored unit, every column, in key order (``ResultStore.units``);
- ``datasets.csv``: the datasets table (checksums and shapes), each with its place in the run's
  dataset order (``order``, empty for none);
- ``label_hits.csv.gz``: per unit with stored predictions, its test rows (``n_rows``) and, per
  label in the dataset's order, the rows predicted right (``correct``, space-separated), from
  which each label's accuracy follows exactly.

A run directory with ``run.json`` and the first two is a stored run without its store
(:func:`has_compact_copy`); ``run.json`` gives the config and the unavailable datasets. Both
files are text that the store's tables write identically, so a store and its copy are compared
as text (:func:`compact_texts`), and gzip is written without a timestamp, so the same store
writes the same bytes.
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mlhidden.errors import UserError
from mlhidden.io import RUN_JSON, PathLike, Writer, text_writer, write_files
from mlhidden.runs.predictions import UnitPredictions
from mlhidden.runs.provenance import read_run_json
from mlhidden.runs.run_results import expected_keys
from mlhidden.runs.status import OK
from mlhidden.runs.store_schema import KEY_FIELDS, REGISTRY_NAME, UnitKey

UNITS_FILE, DATASETS_FILE, LABEL_HITS_FILE = "units.csv.gz", "datasets.csv", "label_hits.csv.gz"
COMPACT_FILES = (UNITS_FILE, DATASETS_FILE, LABEL_HITS_FILE)
_TEXT_FIELDS = (
    "dataset", "dataset_sha256", REGISTRY_NAME, "params_hash", "label", "params_json", "status", "error",
    "finished_at", "warnings", "label_order",
)
_NULLABLE_TEXT = ("label_order",)  # NULL in units stored before schema version 2
_DATASET_TEXT = ("name", "sha256", "source", "status")
_NULLABLE_DATASET_TEXT = ("sha256", "source")


@dataclass(frozen=True)
class StoredTables:
    """What a report reads of a run, from its store or its compact copy: the config (None before a run
    recorded one), the unavailable datasets, the dataset order, the datasets table and every stored unit."""

    config: dict[str, Any] | None
    unavailable: dict[str, str]
    order: list[str]
    datasets: pd.DataFrame
    units: pd.DataFrame


def _csv(frame: pd.DataFrame) -> str:
    return str(frame.to_csv(index=False, lineterminator="\n"))


def compact_texts(tables: StoredTables) -> dict[str, str]:
    """The units and datasets files' text (by file name) of a run's tables, the same for the same tables."""
    units = tables.units.sort_values(list(KEY_FIELDS), kind="stable")
    positions = {name: i for i, name in enumerate(dict.fromkeys(tables.order))}
    datasets = tables.datasets.sort_values("name", kind="stable")
    datasets = datasets.assign(order=datasets["name"].map(positions).astype("Int64"))
    return {UNITS_FILE: _csv(units), DATASETS_FILE: _csv(datasets)}


def label_hits(predictions: Iterable[tuple[UnitKey, UnitPredictions]]) -> pd.DataFrame:
    """Per unit, its test rows and each label's rows predicted right, in key order (the label hits file's rows)."""
    rows = [
        (*key, len(unit.truth), " ".join(map(str, (unit.truth == unit.predicted).sum(axis=0).tolist())))
        for key, unit in predictions
    ]
    frame = pd.DataFrame(rows, columns=[*KEY_FIELDS, "n_rows", "correct"])
    return frame.sort_values(list(KEY_FIELDS), kind="stable").reset_index(drop=True)


def compressed(text: str) -> bytes:
    """``text`` gzipped, without the timestamp gzip would put in, so the same text gives the same bytes."""
    return gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)


def write_compact_copy(run_dir: PathLike, tables: StoredTables, hits: pd.DataFrame | None) -> list[Path]:
    """Write the compact copy of a store's ``tables`` and label ``hits`` (``ResultStore.tables``,
    ``ResultStore.label_hits``) into ``run_dir``; returns the files written.

    Every run writes it when it ends, so a run directory that git carries without its store is
    still a stored run. A store without predictions (an older mlhidden) gets no label hits file.
    """
    texts = compact_texts(tables)
    if hits is not None:
        texts[LABEL_HITS_FILE] = _csv(hits)
    return write_files([
        (Path(run_dir) / name, text_writer(text) if not name.endswith(".gz") else _bytes_writer(compressed(text)))
        for name, text in texts.items()
    ])


def _bytes_writer(data: bytes) -> Writer:
    return lambda stream: stream.write(data)


def _file_text(path: Path) -> str:
    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8")


def has_compact_copy(run_dir: PathLike) -> bool:
    """Whether ``run_dir`` holds ``run.json`` and the compact copy of its units and datasets."""
    return all((Path(run_dir) / name).is_file() for name in (RUN_JSON, UNITS_FILE, DATASETS_FILE))


def differing_files(run_dir: PathLike, tables: StoredTables) -> list[str]:
    """Those of the compact copy's files in ``run_dir`` whose text is not what ``tables`` (the store's) write."""
    return [
        name for name, text in compact_texts(tables).items()
        if (Path(run_dir) / name).is_file() and _file_text(Path(run_dir) / name) != text
    ]


def read_compact_tables(run_dir: PathLike) -> StoredTables:
    """A run's tables from its compact copy and ``run.json`` (see :func:`has_compact_copy`)."""
    run_dir = Path(run_dir)
    run_json = read_run_json(run_dir)
    if run_json is None:
        raise UserError("no readable run.json beside the compact copy", path=run_dir / RUN_JSON,
                        hint="restore it from git (git checkout -- <file>) or re-run the run's command")
    try:
        units = _read_units(run_dir / UNITS_FILE)
        datasets = _nulls_as_none(pd.read_csv(
            run_dir / DATASETS_FILE, dtype={c: str for c in _DATASET_TEXT}, keep_default_na=False,
            na_values={c: [""] for c in ("n_samples", "n_labels", "n_features", "label_cardinality", "order")},
        ), _NULLABLE_DATASET_TEXT)
        order = list(datasets.dropna(subset=["order"]).sort_values("order")["name"])
    except (OSError, ValueError, KeyError, EOFError) as exc:
        raise UserError(f"the compact copy of the run cannot be read ({exc})", path=run_dir,
                        hint="restore its files from git, or re-run the run's command to write them again") from None
    return StoredTables(run_json["config"], dict(run_json["unavailable"]), order,
                        datasets.drop(columns="order"), units)


def _read_units(path: Path) -> pd.DataFrame:
    """The units file as ``ResultStore.units`` gives it: text columns as text, numbers as numbers, NULL as NaN."""
    with gzip.open(path, "rt", encoding="utf-8") as stream:
        text = stream.read()
    header = text.split("\n", 1)[0].split(",")
    units = pd.read_csv(
        io.StringIO(text), dtype={c: str for c in _TEXT_FIELDS if c in header}, keep_default_na=False,
        na_values={c: [""] for c in header if c not in _TEXT_FIELDS},
    )
    return _nulls_as_none(units, _NULLABLE_TEXT)


def _nulls_as_none(frame: pd.DataFrame, columns: Iterable[str]) -> pd.DataFrame:
    """``frame`` with the empty cells of its nullable text ``columns`` as None, as SQLite's NULL reads."""
    present = [column for column in columns if column in frame]
    return frame.assign(**{c: frame[c].astype(object).where(frame[c] != "", None) for c in present})


def read_label_hits(run_dir: PathLike) -> pd.DataFrame | None:
    """The label hits file of ``run_dir`` (:func:`label_hits`' rows), or None where it has none."""
    path = Path(run_dir) / LABEL_HITS_FILE
    if not path.is_file():
        return None
    text = _file_text(path)
    return pd.read_csv(io.StringIO(text), dtype={c: str for c in (*KEY_FIELDS[:4], "correct")},
                       keep_default_na=False)


def label_accuracies(hits: pd.DataFrame, config: Mapping[str, Any], checksums: Mapping[str, str]) -> pd.DataFrame:
    """Each label's test accuracy in every unit of the config: dataset, method (its table label), split,
    label (its index in the dataset's order) and accuracy, in key order; ``hits`` as :func:`read_label_hits`."""
    wanted = expected_keys(config, checksums)
    rows = []
    for unit in hits.itertuples(index=False):
        key = tuple(getattr(unit, field) for field in KEY_FIELDS)
        if key not in wanted:
            continue
        correct = np.array(unit.correct.split(), dtype=np.int64)
        rows += [(unit.dataset, wanted[key], unit.split, label, hits_ / unit.n_rows)
                 for label, hits_ in enumerate(correct.tolist())]
    return pd.DataFrame(rows, columns=["dataset", "method", "split", "label", "accuracy"])


def ok_checksums(datasets: pd.DataFrame) -> dict[str, str]:
    """Name -> checksum of the datasets a run could read (those of the datasets table with status ok)."""
    return {r.name: r.sha256 for r in datasets.itertuples() if r.status == OK}
