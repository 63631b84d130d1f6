"""Critical-difference diagrams (Demšar 2006, Fig. 1) for the Nemenyi test.

The average ranks lie on an axis with rank 1 on the right, so better methods sit to the right;
the better half of the methods is labelled on the right, the other half on the left. The critical
difference is drawn as a bar above the axis, and each group of methods that are not significantly
different is joined by a thick bar. A critical difference longer than the rank axis (few datasets)
widens the axis beyond rank 1, so the bar is drawn to scale and inside it. The figure is drawn and saved
through :mod:`mlhidden.report.figures`, so no pyplot state is touched.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from mlhidden.io import PathLike
from mlhidden.report.figures import literal, new_figure, save_figure
from mlhidden.report.significance_tests import Ranks, cliques

WIDTH = 7.0  # inches
FONT_SIZE = 9
LABEL_ROW = 0.24  # inches between label rows
CLIQUE_ROW = 0.11  # inches between clique bars
AXIS_MARGIN = 0.2  # fraction of the width left on each side of the rank axis for the labels
DPI = 200
PAD_INCHES = 0.05


CD_BAR = "cd-bar"  # the gid of the critical-difference bar


def plot_cd_diagram(avg_ranks: Ranks, cd: float, path_stem: PathLike, title: str | None = None) -> list[Path]:
    """Draw the critical-difference diagram of ``avg_ranks`` (:func:`draw_cd_diagram`) and save it as PNG and PDF.

    Parameters
    ----------
    avg_ranks : pandas.Series or mapping
        Method -> average rank (1 = best); at least 2 methods.
    cd : float
        The critical difference; methods whose ranks differ by less are joined.
    path_stem : str or os.PathLike
        The output path without suffix: ``<path_stem>.png`` and ``<path_stem>.pdf`` are written.
    title : str, optional

    Returns
    -------
    list of pathlib.Path
        The PNG and the PDF.
    """
    return save_figure(draw_cd_diagram(avg_ranks, cd, title), path_stem, dpi=DPI, pad_inches=PAD_INCHES)


def draw_cd_diagram(avg_ranks: Ranks, cd: float, title: str | None = None) -> Figure:
    """The critical-difference diagram as a matplotlib ``Figure`` (see :func:`plot_cd_diagram`).

    The critical-difference bar is the line with gid :data:`CD_BAR`.
    """
    ranks = pd.Series(avg_ranks, dtype=float).sort_values(kind="stable")
    k = len(ranks)
    if k < 2:
        raise ValueError(f"a critical-difference diagram needs at least 2 methods, not {k}")
    groups = [group for group in cliques(ranks, cd) if len(group) > 1]
    n_left = k // 2  # the worse half, labelled on the left
    n_rows = max(n_left, k - n_left)
    bottom = -(0.2 + len(groups) * CLIQUE_ROW + 0.1 + n_rows * LABEL_ROW)
    top = 0.75
    figure = new_figure(WIDTH, top - bottom)
    ax = figure.add_axes((AXIS_MARGIN, 0, 1 - 2 * AXIS_MARGIN, 1))
    best_end = min(1.0, k - cd)  # the axis reaches past rank 1 when the CD is longer than it
    ax.set_xlim(k, best_end)
    ax.set_ylim(bottom, top)
    ax.set_axis_off()
    line: dict[str, Any] = {"color": "black", "linewidth": 0.8, "clip_on": False}

    ax.plot([1, k], [0, 0], **line)
    for tick in range(1, k + 1):
        ax.plot([tick, tick], [0, 0.08], **line)
        ax.text(tick, 0.11, str(tick), ha="center", va="bottom", fontsize=FONT_SIZE)
    for half in range(1, k):
        ax.plot([half + 0.5, half + 0.5], [0, 0.04], **line)

    cd_y = 0.45
    ax.plot([k, k - cd], [cd_y, cd_y], **{**line, "linewidth": 1.2}, gid=CD_BAR)
    for end in (k, k - cd):
        ax.plot([end, end], [cd_y - 0.04, cd_y + 0.04], **line)
    ax.text(k - cd / 2, cd_y + 0.06, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=FONT_SIZE)

    first_label_y = -(0.2 + len(groups) * CLIQUE_ROW + 0.1)
    for i, (method, rank) in enumerate(ranks.items()):
        on_right = i < k - n_left
        row = i if on_right else k - 1 - i
        y = first_label_y - row * LABEL_ROW
        end = best_end - 0.04 * (k - best_end) if on_right else k + 0.04 * (k - best_end)
        ax.plot([rank, rank, end], [0, y, y], **line)
        ax.text(
            end,
            y,
            literal(f" {method} ({rank:.2f}) " if on_right else f" ({rank:.2f}) {method} "),
            ha="left" if on_right else "right",
            va="center",
            fontsize=FONT_SIZE,
        )

    spread = 0.015 * (k - best_end)
    for j, group in enumerate(groups):
        y = -(0.2 + j * CLIQUE_ROW)
        ax.plot([ranks[group[0]] - spread, ranks[group[-1]] + spread], [y, y], color="black", linewidth=3.5,
                solid_capstyle="butt", clip_on=False)

    if title:
        ax.text((best_end + k) / 2, top, literal(title), ha="center", va="bottom", fontsize=FONT_SIZE + 1)

    return figure
