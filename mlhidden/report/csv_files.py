"""The CSV files of a run's results: ``units.csv``, a wide ``<metric>.csv`` per metric and ``avg_ranks.csv``.

The text tables (:mod:`mlhidden.report.formats`) show rounded means and ranks; these files keep every
number at full precision with its spread, rank, 95 % interval and counts, for other tools to read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from mlhidden.io import PathLike, write_text
from mlhidden.report.tables import MetricTable, metric_tables
from mlhidden.runs.run_results import sort_units
from mlhidden.runs.status import OK

AVG_RANKS_FILE = "avg_ranks.csv"


def wide_frame(table: MetricTable) -> pd.DataFrame:
    """One row per dataset; per method its mean, std, rank, 95 % interval and counts of splits, failed and warned units.

    The interval columns (``<method> ci_low``, ``<method> ci_high``: the 95 % t-interval over the
    ok splits) come last, so the columns older readers know keep their names and positions.

    The average ranks are not a dataset, so they are in :func:`_avg_ranks_frame`, not a row here.

    ``status`` is "ok" for a ranked row, the reason for an unavailable dataset, and says so when
    a row has cells without any result and so is not ranked.
    """
    ranked = set(table.ranked_datasets)
    status = [
        table.unavailable.get(d, OK if d in ranked else "incomplete (not ranked)") for d in table.datasets
    ]
    columns = {"dataset": list(table.datasets), "status": status}
    for method in table.methods:
        columns[method] = table.means[method].to_numpy()
        columns[f"{method} std"] = table.std[method].to_numpy()
        columns[f"{method} rank"] = table.ranks[method].to_numpy()
        columns[f"{method} n_splits"] = table.n_splits[method].to_numpy()
        columns[f"{method} n_failed"] = table.n_failed[method].to_numpy()
        columns[f"{method} n_warned"] = table.n_warned[method].to_numpy()
    for method in table.methods:
        columns[f"{method} ci_low"] = table.ci_low[method].to_numpy()
        columns[f"{method} ci_high"] = table.ci_high[method].to_numpy()
    frame = pd.DataFrame(columns)
    count_columns = [c for c in frame.columns if c.endswith((" n_splits", " n_failed", " n_warned"))]
    return frame.astype({column: "Int64" for column in count_columns})


def _avg_ranks_frame(tables: Mapping[str, MetricTable]) -> pd.DataFrame:
    """Per metric and method, the average rank and over how many ranked datasets (``avg_ranks.csv``)."""
    rows = [
        {
            "metric": column,
            "method": method,
            "avg_rank": table.avg_rank[method],
            "n_datasets": len(table.ranked_datasets),
        }
        for column, table in tables.items()
        for method in table.methods
    ]
    return pd.DataFrame(rows, columns=["metric", "method", "avg_rank", "n_datasets"])


def write_frame(path: Path, frame: pd.DataFrame) -> Path:
    """``frame`` as a CSV file without its index, "\\n" line ends on every platform."""
    return write_text(path, frame.to_csv(index=False, lineterminator="\n"))


def write_csvs(units: pd.DataFrame, tables: Mapping[str, MetricTable], out_dir: Path) -> list[Path]:
    """``units`` (sorted) as ``units.csv``, each of ``tables`` as a wide ``<metric>.csv``, then ``avg_ranks.csv``."""
    paths = [write_frame(out_dir / "units.csv", units)]
    paths += [write_frame(out_dir / f"{column}.csv", wide_frame(table)) for column, table in tables.items()]
    return [*paths, write_frame(out_dir / AVG_RANKS_FILE, _avg_ranks_frame(tables))]


def write_csv(
    units: pd.DataFrame, out_dir: PathLike, datasets: Sequence[str], methods: Sequence[str],
    unavailable: Mapping[str, str] | None = None,
) -> list[Path]:
    """Write ``units.csv`` (all columns, in table order), a wide ``<metric>.csv`` per metric and ``avg_ranks.csv``.

    Returns the paths written.
    """
    tables = metric_tables(units, datasets, methods, unavailable)
    return write_csvs(sort_units(units, datasets, methods, unavailable), tables, Path(out_dir))
