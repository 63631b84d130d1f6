"""The paper's own figures: its generated datasets drawn over their true label regions.

Fig. "results_syn1" shows two-label, two-dimensional synthetic datasets, which their generator
rebuilds from the stored parameters; the Logical problem is drawn with the decision regions of
BR's logistic regression. Both go through the general figure layer (:mod:`mlhidden.report.figures`).
"""

from __future__ import annotations

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.lines import Line2D

from mlhidden.data import draw_network, make_logical
from mlhidden.methods import make_base_learner
from mlhidden.report import literal, new_figure, save_figure

# Label vectors y1y2 of two-label data: light region colours and strong point colours, same hue.
REGION_COLOURS = ("#d9d9d9", "#c6dbef", "#fdd0a2", "#c7e9c0")
POINT_COLOURS = ("#636363", "#2171b5", "#d94801", "#238b45")
GRID_STEPS = 300


def _grid(X, margin=0.05):
    """A GRID_STEPS x GRID_STEPS mesh covering the 2-D points ``X`` with a small margin."""
    low, high = X.min(axis=0), X.max(axis=0)
    pad = margin * (high - low)
    xs, ys = (np.linspace(low[i] - pad[i], high[i] + pad[i], GRID_STEPS) for i in range(2))
    mesh_x, mesh_y = np.meshgrid(xs, ys)
    return mesh_x, mesh_y, np.column_stack([mesh_x.ravel(), mesh_y.ravel()])


def _point_handle(colour, label: str) -> Line2D:
    """A legend entry for scatter points of one colour."""
    return Line2D([], [], linestyle="none", marker="o", markersize=5, color=colour, label=label)


def _label_vector_codes(Y) -> np.ndarray:
    """0..3 for the label vectors 00, 01, 10, 11 of two-label rows."""
    return 2 * np.asarray(Y)[:, 0] + np.asarray(Y)[:, 1]


def plot_synthetic_2d(datasets, path_stem, *, max_points: int = 600) -> list:
    """Scatter plots of two-dimensional, two-label synthetic datasets over their true label regions.

    Parameters
    ----------
    datasets : sequence of (str, Dataset)
        Titles and generated datasets with D = 2 and L = 2 whose ``params`` rebuild them with
        :func:`~mlhidden.data.random_networks.draw_network`.
    path_stem : str or os.PathLike
    max_points : int
        At most this many points are drawn per dataset (the first ones), so that they stay visible.
    """
    n_columns = min(len(datasets), 2)
    n_rows = -(-len(datasets) // n_columns)
    figure = new_figure(4.2 * n_columns + 1.2, 3.8 * n_rows)
    axes = figure.subplots(n_rows, n_columns, squeeze=False).ravel()
    regions, points = ListedColormap(REGION_COLOURS), ListedColormap(POINT_COLOURS)
    for ax, (title, data) in zip(axes, datasets):
        if data.n_features != 2 or data.n_labels != 2:
            raise ValueError(
                f"{title}: a 2-D plot needs D = 2 and L = 2, not D = {data.n_features}, L = {data.n_labels}"
            )
        _, network = draw_network(**data.params)
        mesh_x, mesh_y, grid = _grid(data.X)
        truth = _label_vector_codes(network.labels(grid)).reshape(mesh_x.shape)
        ax.pcolormesh(mesh_x, mesh_y, truth, cmap=regions, vmin=-0.5, vmax=3.5, shading="auto", rasterized=True)
        shown = slice(0, max_points)
        ax.scatter(
            *data.X[shown].T, c=_label_vector_codes(data.Y[shown]), cmap=points, vmin=-0.5, vmax=3.5, s=7, linewidths=0
        )
        ax.set_title(literal(title), fontsize=10)
        ax.set_xlabel("$x_1$")
        ax.set_ylabel("$x_2$")
    for ax in axes[len(datasets):]:
        ax.set_axis_off()
    handles = [_point_handle(POINT_COLOURS[code], f"{code >> 1}{code & 1}") for code in range(4)]
    figure.legend(handles=handles, title="$y_1y_2$", loc="center right", frameon=False)
    figure.subplots_adjust(right=0.86, hspace=0.35, wspace=0.3)
    return save_figure(figure, path_stem)


def plot_logical(path_stem, *, jitter: float = 0.06) -> list:
    """The Logical problem per label, with the decision regions of BR's logistic regression.

    Each panel shows the four inputs (jittered so that the five copies of each are visible)
    coloured by one label, over the region where a logistic regression fitted to that label on
    the 20 examples predicts 1: OR and AND are linearly separable, XOR is not.
    """
    data = make_logical()
    shown = make_logical(jitter=jitter, random_state=0)
    figure = new_figure(11.0, 3.6)
    axes = figure.subplots(1, data.n_labels)
    mesh_x, mesh_y, grid = _grid(np.vstack([data.X, [[-0.25, -0.25], [1.25, 1.25]]]), margin=0.0)
    point_colours = ("#636363", "#2171b5")
    regions, points = ListedColormap(("#f0f0f0", "#c6dbef")), ListedColormap(point_colours)
    for j, (ax, name) in enumerate(zip(axes, data.label_names)):
        model = make_base_learner("logistic").fit(data.X, data.Y[:, j])
        accuracy = float(np.mean(model.predict(data.X) == data.Y[:, j]))
        predicted = model.predict(grid).reshape(mesh_x.shape)
        ax.pcolormesh(mesh_x, mesh_y, predicted, cmap=regions, vmin=-0.5, vmax=1.5, shading="auto", rasterized=True)
        ax.scatter(*shown.X.T, c=shown.Y[:, j], cmap=points, vmin=-0.5, vmax=1.5, s=18, linewidths=0)
        ax.set_title(literal(f"{name}: logistic regression accuracy {accuracy:.2f}"), fontsize=9)
        ax.set_xlabel("$x_1$")
        ax.set_xticks([0, 1])
        ax.set_yticks([0, 1])
    axes[0].set_ylabel("$x_2$")
    handles = [_point_handle(colour, str(value)) for value, colour in enumerate(point_colours)]
    figure.legend(handles=handles, title="label", loc="center right", frameon=False)
    figure.subplots_adjust(right=0.9, wspace=0.3)
    return save_figure(figure, path_stem)
