"""A claim's specification curve (Simonsohn, Simmons & Nelson 2020): every specification's effect, sorted, over a
panel naming its choices.

The top panel shows each specification's deciding effect and interval as the distance from the claimed
boundary (above 0: the claimed side), coloured by its verdict; the panel below marks, for each
specification, the option it takes on each dimension (setting, seed, reading, multiplicity). The input is
the plain frame the multiverse writes (``multiverse.csv``: :data:`~mlhidden.claims.multiverse.CURVE_COLUMNS`),
so the figure shows no number the file does not hold.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from mlhidden.io import PathLike
from mlhidden.report.figures import literal, new_figure, save_figure
from mlhidden.stats.uncertainty import FAILS, HOLDS, INCONCLUSIVE, NO_DIFFERENCE

DIMENSIONS = ("setting", "seed", "reading", "multiplicity")
"""The choices a specification makes, in the order the indicator panel lists them."""
VERDICT_COLOURS = {HOLDS: "#1a7f37", FAILS: "#cf222e", NO_DIFFERENCE: "#0969da", INCONCLUSIVE: "#8c959f"}
OTHER_COLOUR = "#d0d7de"  # not evaluated, not testable


def curve_order(frame: pd.DataFrame) -> pd.DataFrame:
    """One claim's rows sorted by margin (specifications with none last), ties kept in the file's order."""
    return frame.assign(_missing=frame["margin"].isna()).sort_values(
        ["_missing", "margin"], kind="stable").drop(columns="_missing")


def draw_specification_curve(frame: pd.DataFrame, claim: str) -> Figure:
    """The specification curve of ``claim`` from its rows of ``frame``."""
    rows = curve_order(frame[frame["claim"] == claim]).reset_index(drop=True)
    options = [(dimension, value) for dimension in DIMENSIONS
               for value in sorted(set(rows[dimension].astype(str))) if rows[dimension].nunique(dropna=False) > 1]
    width = min(max(4.0, 0.12 * len(rows) + 2.5), 12.0)
    figure = new_figure(width, 2.4 + 0.18 * len(options))
    grid = figure.add_gridspec(2, 1, height_ratios=[2.2, max(0.18 * len(options), 0.3)], hspace=0.08)
    curve, panel = figure.add_subplot(grid[0]), figure.add_subplot(grid[1])
    x = np.arange(len(rows))
    colours = [VERDICT_COLOURS.get(v, OTHER_COLOUR) for v in rows["verdict"]]
    low, high, margin = (rows[c].to_numpy(dtype=float) for c in ("low", "high", "margin"))
    curve.vlines(x, low, high, colors=colours, linewidth=1.2)
    curve.scatter(x, margin, c=colours, s=14, zorder=3)
    curve.axhline(0.0, color="black", linewidth=0.6)
    curve.set_xlim(-0.6, len(rows) - 0.4)
    curve.set_xticks([])
    curve.set_ylabel("distance from the\nclaimed boundary", fontsize=8)
    undrawn = int(rows["margin"].isna().sum())
    title = f"{claim}: {len(rows)} specifications"
    title += f" ({undrawn} without a tested effect, not drawn)" if undrawn else ""
    curve.set_title(literal(title), fontsize=9, loc="left")
    for verdict, colour in VERDICT_COLOURS.items():
        count = int((rows["verdict"] == verdict).sum())
        if count:
            curve.scatter([], [], c=colour, s=14, label=f"{verdict} ({count})")
    if any(not math.isnan(v) for v in margin):
        curve.legend(fontsize=7, loc="upper left", frameon=False)
    for y, (dimension, value) in enumerate(options):
        chosen = rows[dimension].astype(str).to_numpy() == value
        panel.scatter(x[chosen], np.full(chosen.sum(), y), marker="|", s=40, color="black")
    panel.set_yticks(range(len(options)), [literal(f"{d}: {v}") for d, v in options], fontsize=7)
    panel.set_ylim(len(options) - 0.5, -0.5)
    panel.set_xlim(curve.get_xlim())
    panel.set_xticks([])
    for side in ("top", "right", "bottom"):
        panel.spines[side].set_visible(False)
    return figure


def write_specification_curves(frame: pd.DataFrame, out_dir: PathLike) -> list[Path]:
    """``specification_curve_<claim>.png`` and ``.pdf`` under ``out_dir`` for each claim of ``frame`` that some
    specification evaluated; their paths.

    A claim's id comes from the claims file: in the file name, anything but letters, digits, ``.``,
    ``_`` and ``-`` becomes ``_``.
    """
    paths: list[Path] = []
    stems: set[str] = set()
    for claim in dict.fromkeys(frame["claim"]):
        if frame.loc[frame["claim"] == claim, "margin"].isna().all():
            continue  # no specification evaluated it: a curve would be empty
        stem = base = curve_stem(claim)
        while stem in stems:  # two ids that differ only in the characters replaced
            stem = f"{stem}_{base}"
        stems.add(stem)
        paths += save_figure(draw_specification_curve(frame, claim), Path(out_dir) / stem)
    return paths


def curve_stem(claim: object) -> str:
    """The file name (without suffix) of a claim's curve: ``specification_curve_<id>``, the id's characters
    other than letters, digits, ``.``, ``_`` and ``-`` as ``_``."""
    return "specification_curve_" + "".join(c if c.isalnum() or c in "._-" else "_" for c in str(claim))
