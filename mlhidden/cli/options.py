"""Options several commands share, defined once so that their names and help agree."""

from __future__ import annotations

import math

import click


def _data_dir_option(help_text: str):
    """``--data-dir``: the first folder of the data path (mlhidden.data.catalog.data_path)."""
    return click.option("--data-dir", type=click.Path(file_okay=False), default=None, help=help_text)


DATA_DIR = _data_dir_option(
    "Dataset folder, searched first; then $MLHIDDEN_DATA, then the datasets shipped with mlhidden."
)
FETCH_DATA_DIR = _data_dir_option(
    "Folder the files go to (default: $MLHIDDEN_DATA, else the folder of the datasets shipped with mlhidden)."
)


class Seconds(click.ParamType):
    """A positive, finite number of seconds: NaN, infinity, zero and negative numbers are refused."""

    name = "seconds"

    def convert(self, value, param, ctx):
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not (math.isfinite(seconds) and seconds > 0):
            self.fail(f"{value!r} is not a positive, finite number of seconds", param, ctx)
        return seconds


SECONDS = Seconds()

LABELS = click.option(
    "--labels",
    type=int,
    default=None,
    metavar="N",
    help="Label count of datasets given as ARFF paths: the first N attributes, or the last |N| if negative "
    "(supplies or overrides -C).",
)
STATS = click.option(
    "--stats",
    is_flag=True,
    help="Also write statistics.md/.json and critical-difference diagrams (Friedman, Nemenyi, Wilcoxon-Holm); "
    "on one dataset, a corrected resampled t-test over its splits (Holm).",
)
CONTROL = click.option(
    "--control", default=None,
    help="Control method for the Wilcoxon tests, or the t-tests over one dataset's splits "
    "(default: best average rank).",
)
STD = click.option(
    "--std",
    is_flag=True,
    help="Show cells as 'mean ± std rank' (standard deviation over the splits) in the text tables.",
)
# At most 12 decimals: the ranks treat means closer than 1e-12 as ties (stats.ranks.RANK_DECIMALS).
PRECISION = click.option(
    "--precision", type=click.IntRange(0, 12), default=None, metavar="N",
    help="Decimals of every value in the tables and the page; `run` keeps it for later reports (default: the "
    "run's, else 2 to 4 for scores, as many as tell ranks apart; times by size).",
)
HTML = click.option(
    "--html", is_flag=True, help="Also write index.html: one self-contained page of tables, plots and provenance."
)
