"""The one figure layer: every figure is made by :func:`new_figure` and saved by :func:`save_figure`.

Every text a figure shows goes through :func:`literal`, so that a name is drawn as it is spelt.

Sweep line plots (:func:`plot_sweep`: one line per method with a band of one standard deviation
over the splits) are drawn here too. Every figure is a :class:`~matplotlib.figure.Figure` on its
own Agg canvas, so no pyplot state is touched.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from mlhidden.io import PathLike, write_file

COLOURS = tuple(f"C{i}" for i in range(10))
# 9 markers against 10 colours: the pair repeats only after 90 lines, never at the 11th.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", "*")
MAX_TICKS = 20  # sweeps with more integer points keep matplotlib's own ticks


def save_figure(figure: Figure, path_stem: PathLike, *, dpi: int = 150, pad_inches: float | None = None) -> list[Path]:
    """Write ``<path_stem>.png`` (at ``dpi``) and ``<path_stem>.pdf`` and return their paths.

    Every figure of the package is saved here, cropped to its drawing plus ``pad_inches``
    (matplotlib's default when None). The PDF has no creation date, so that regenerating a figure
    gives the same bytes.
    """
    stem = Path(path_stem)

    def saver(**options: Any) -> Callable[[IO[bytes]], None]:
        return lambda stream: figure.savefig(stream, bbox_inches="tight", pad_inches=pad_inches, **options)

    return [
        write_file(f"{stem}.png", saver(format="png", dpi=dpi)),
        write_file(f"{stem}.pdf", saver(format="pdf", metadata={"CreationDate": None})),
    ]


def line_styles(n: int) -> list[tuple[str, str]]:
    """``n`` distinct (colour, marker) pairs, one per method of a plot, in order.

    Colour and marker advance together, so lines next to each other differ in both, and their
    cycles are coprime, so that no two of the first 90 lines share both.
    """
    return [(COLOURS[i % len(COLOURS)], MARKERS[i % len(MARKERS)]) for i in range(n)]


def literal(text: object) -> str:
    """``text`` as matplotlib draws it letter for letter: its ``$`` escaped.

    matplotlib reads text between two ``$`` as mathtext, so a method or dataset named ``$\\alpha$``
    would be drawn as α, and one named ``$x^$`` would stop the figure with a parse error.
    """
    return str(text).replace("$", r"\$")


def new_figure(width: float, height: float) -> Figure:
    """A figure of ``width`` x ``height`` inches on its own Agg canvas, outside pyplot's state."""
    figure = Figure(figsize=(width, height))
    FigureCanvasAgg(figure)
    return figure


def plot_sweep(
    frame: pd.DataFrame, path_stem: PathLike, *, y_label: str, x_label: str, title: str | None = None,
    limits: tuple[float, float] | None = (0.0, 1.0),
) -> list[Path]:
    """One panel per dataset group, one line per method: the mean over the splits and a ±1 sd band.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per point: ``panel`` (one panel each), ``line`` (one line each), ``x``, ``mean``
        and ``std`` (the band; NaN for none).
    path_stem : str or os.PathLike
        Output path without suffix.
    y_label, x_label : str
    title : str, optional
        Put above the panels.
    limits : (float, float) or None
        The range of the values (scores lie in [0, 1]): bands are cut there, so that they do not
        suggest impossible values.
    """
    panels = list(dict.fromkeys(frame["panel"]))
    figure = new_figure(5.0 * len(panels) + 2.0, 4.0)
    axes = figure.subplots(1, len(panels), squeeze=False)[0]
    for ax, panel in zip(axes, panels):
        in_panel = frame[frame["panel"] == panel]
        lines = list(in_panel.groupby("line", sort=False))
        for (line, points), (colour, marker) in zip(lines, line_styles(len(lines))):
            x, mean, spread = points["x"].to_numpy(float), points["mean"].to_numpy(), points["std"].fillna(0).to_numpy()
            low, high = mean - spread, mean + spread
            if limits is not None:
                low, high = np.clip(low, *limits), np.clip(high, *limits)
            ax.plot(x, mean, color=colour, marker=marker, markersize=4, linewidth=1.4, label=literal(line))
            ax.fill_between(x, low, high, color=colour, alpha=0.1, linewidth=0)
        ax.set_title(literal(panel), fontsize=10)
        ax.set_xlabel(literal(x_label))
        ax.grid(True, linewidth=0.4, alpha=0.5)
        xs = sorted(set(in_panel["x"]))
        if len(xs) <= MAX_TICKS and all(isinstance(v, (int, np.integer)) for v in xs):
            ax.set_xticks(xs)
    axes[0].set_ylabel(literal(y_label))
    axes[-1].legend(loc="center left", bbox_to_anchor=(1.02, 0.5), fontsize=8, frameon=False)
    if title:
        figure.suptitle(literal(title), fontsize=11)
    return save_figure(figure, path_stem)
