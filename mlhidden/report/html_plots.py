"""The results page's plots, each drawn by matplotlib and returned as inline SVG text.

Text stays text in the SVG (``svg.fonttype: none``): the files stay small and the browser sets
the words in its own font. Every SVG gets its own id prefix (``key``), so that many plots can sit
in one HTML page, some of them hidden, without two elements sharing an id or one plot's clip
paths or markers resolving to another's; with a fixed hash salt the ids are the same each time.
Plots take the tables (:class:`~mlhidden.report.tables.MetricTable`) the text tables are made
from, so a plot never shows a number the tables do not hold.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib import rc_context
from matplotlib.figure import Figure

from mlhidden.report.cd_diagram import draw_cd_diagram
from mlhidden.report.figures import line_styles, literal, new_figure
from mlhidden.report.significance_tests import Ranks
from mlhidden.report.tables import MetricTable
from mlhidden.runs.status import OK

AXIS_PAD = 0.04  # of the range, beyond each end: points at 0 and 1 stay off the axes
PANEL_WIDTH = 0.55  # inches per method in a per-split panel
_SVG_START = re.compile(r"<svg\b")
_ID = re.compile(r'(\sid=")([^"]+)"')
_ID_REFERENCE = re.compile(r'(url\(#|href="#)([^)"]+)')


def svg(figure: Figure, key: str) -> str:
    """``figure`` as an ``<svg>`` element (no XML prolog); its ids, and references to them, start with ``key``."""
    buffer = io.StringIO()
    with rc_context({"svg.fonttype": "none", "svg.hashsalt": "mlhidden", "svg.id": None}):
        figure.savefig(buffer, format="svg", bbox_inches="tight", pad_inches=0.05, metadata={"Date": None})
    text = buffer.getvalue()
    start = _SVG_START.search(text)
    if start is None:
        raise ValueError("matplotlib wrote no <svg> element")
    prefix = re.sub(r"[^\w-]", "-", key)
    text = _ID.sub(lambda m: f'{m.group(1)}{prefix}-{m.group(2)}"', text[start.start() :])
    return _ID_REFERENCE.sub(lambda m: f"{m.group(1)}{prefix}-{m.group(2)}", text).strip()


def split_scores_svg(tables: Sequence[MetricTable], dataset: str, key: str) -> str:
    """One panel per table: a box of the ok splits' values per method, each split a dot on it.

    The dots are spread evenly across the box (no random jitter), so the plot is the same each
    time it is drawn.
    """
    methods = list(tables[0].methods)
    width = max(2.4, PANEL_WIDTH * len(methods) + 0.9)
    figure = new_figure(width * len(tables), 2.9)
    axes = figure.subplots(1, len(tables), squeeze=False)[0]
    for panel, (ax, table) in enumerate(zip(axes, tables)):
        values = _split_values(table, dataset)
        data = [values.get(method, np.array([])) for method in methods]
        drawn = [i for i, column in enumerate(data) if len(column)]
        ax.boxplot(
            [data[i] for i in drawn],
            positions=[i + 1 for i in drawn],
            widths=0.55,
            showfliers=False,
            medianprops={"color": "black", "linewidth": 1.0},
            boxprops={"linewidth": 0.8},
            whiskerprops={"linewidth": 0.8},
            capprops={"linewidth": 0.8},
        )
        for i, (colour, marker) in enumerate(line_styles(len(methods))):
            column = data[i]
            if len(column):
                offsets = np.linspace(-0.18, 0.18, len(column)) if len(column) > 1 else np.zeros(1)
                ax.scatter(
                    i + 1 + offsets, column, s=12, color=colour, marker=marker, zorder=3, linewidths=0,
                    gid=f"panel{panel}-method-{i}",
                )
            else:
                ax.text(
                    i + 1,
                    0.5,
                    "no value",
                    transform=ax.get_xaxis_transform(),
                    ha="center",
                    va="center",
                    rotation=90,
                    fontsize=7,
                    color="grey",
                )
        ax.set_xlim(0.4, len(methods) + 0.6)
        ax.set_xticks(range(1, len(methods) + 1))
        ax.set_xticklabels(
            [literal(method) for method in methods],
            rotation=45 if len(methods) > 4 else 0,
            ha="right" if len(methods) > 4 else "center",
            fontsize=8,
        )
        ax.set_title(literal(table.metric.title), fontsize=9)
        ax.tick_params(axis="y", labelsize=8)
        ax.grid(True, axis="y", linewidth=0.4, alpha=0.5)
    figure.suptitle(literal(dataset), fontsize=11, fontweight="bold", y=1.03)
    return svg(figure, key)


def _split_values(table: MetricTable, dataset: str) -> dict[str, np.ndarray]:
    """Method -> the values of its ok splits on ``dataset``, in split order."""
    rows = table.per_split[(table.per_split["dataset"] == dataset) & (table.per_split["status"] == OK)]
    return {method: group["value"].dropna().to_numpy(float) for method, group in rows.groupby("method", sort=False)}


def cd_diagram_svg(avg_ranks: Ranks, cd: float, title: str, key: str) -> str:
    """The critical-difference diagram (:func:`~mlhidden.report.cd_diagram.draw_cd_diagram`) as SVG."""
    return svg(draw_cd_diagram(avg_ranks, cd, title), key)


def time_size_svg(table: MetricTable, sizes: Mapping[str, float], size_label: str, key: str) -> str | None:
    """Each method's mean time against the datasets' size, log–log, one line per method.

    ``sizes`` maps a dataset to its size (say N·D·L); datasets without a size or a positive mean
    time are left out. None when fewer than one point per method would be drawn.
    """
    datasets = sorted((d for d in table.datasets if sizes.get(d, 0) > 0), key=lambda d: sizes[d])
    if not datasets:
        return None
    figure = new_figure(6.4, 3.8)
    ax = figure.subplots()
    drawn = 0
    for i, (method, (colour, marker)) in enumerate(zip(table.methods, line_styles(len(table.methods)))):
        means = table.means[method].reindex(datasets)
        keep = means.notna() & (means > 0)
        if keep.any():
            ax.plot(
                [sizes[d] for d in means.index[keep]],
                means[keep],
                marker=marker,
                color=colour,
                markersize=4,
                linewidth=1.2,
                label=literal(method),
                gid=f"method-{i}",
            )
            drawn += 1
    if not drawn:
        return None
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(literal(size_label), fontsize=9)
    ax.set_ylabel(literal(table.metric.title), fontsize=9)
    ax.grid(True, which="major", linewidth=0.4, alpha=0.5)
    ax.tick_params(labelsize=8)
    ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), fontsize=8, frameon=False)
    return svg(figure, key)


def agreement_svg(
    frame: pd.DataFrame, band: float, key: str, *, title: str = "", x_label: str = "reference", y_label: str = "ours"
) -> str:
    """Our values against reference values, one point per compared cell, with the band ``|ours - reference| <= band``.

    ``frame`` has the columns ``reference``, ``ours``, ``outside`` (bool: drawn red) and ``marked``
    (bool: drawn as an open square, a reference value with a remark such as an audit finding).
    The axes reach a little beyond the values' range, so that points at its ends stay visible.
    """
    figure = new_figure(4.6, 4.4)
    ax = figure.subplots()
    values = pd.concat([frame["reference"], frame["ours"]]).dropna()
    low = min(0.0, float(values.min())) if len(values) else 0.0
    high = max(1.0, float(values.max())) if len(values) else 1.0
    line = np.array([low, high])
    ax.fill_between(line, line - band, line + band, color="#c6dbef", alpha=0.7, linewidth=0, label=f"within ±{band:g}")
    ax.plot(line, line, color="#2171b5", linewidth=0.8)
    for outside in (False, True):
        for marked in (False, True):
            points = frame[(frame["outside"] == outside) & (frame["marked"] == marked)]
            if points.empty:
                continue
            colour = "#d62728" if outside else "#636363"
            style: dict[str, Any] = {"color": colour}
            if marked:
                style = {"marker": "s", "facecolors": "none", "edgecolors": colour}
            where = "outside" if outside else "within"
            label = f"{where} the band{', reference remarked' if marked else ''} ({len(points)})"
            ax.scatter(points["reference"], points["ours"], s=14, linewidths=0.8, label=label, clip_on=False, **style)
    pad = AXIS_PAD * (high - low)
    ax.set_xlim(low - pad, high + pad)
    ax.set_ylim(low - pad, high + pad)
    ax.set_aspect("equal")
    ax.set_xlabel(literal(x_label), fontsize=9)
    ax.set_ylabel(literal(y_label), fontsize=9)
    ax.tick_params(labelsize=8)
    ax.grid(True, linewidth=0.4, alpha=0.5)
    ax.legend(loc="upper left", fontsize=7, frameon=False)
    if title:
        ax.set_title(literal(title), fontsize=9)
    return svg(figure, key)
