"""Config sweeps: the grid of points an entry's ``sweep:`` describes, counted before it is built.

``sweep: {NAME: [values] | {range: stop} | {range: [start, stop(, step)]}}``; several axes give
their product, and each point becomes its own dataset or method entry.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mlhidden.yaml_lines import Fail, KeyPath

MAX_ENTRIES = 1_000
"""The most datasets, and the most methods, of a run once sweeps are expanded (table rows, columns)."""
SPLIT_THE_RUN = "or split the run into several configs"


def _sweep_values(values: Any, where: KeyPath, fail: Fail) -> range | list[Any]:
    """A sweep axis: a list of values, or ``{range: [start, stop]}`` / ``{range: stop}`` (kept a range, counted
    unbuilt)."""
    if isinstance(values, Mapping) and set(values) == {"range"}:
        bounds = values["range"]
        bounds = [bounds] if isinstance(bounds, int) else bounds
        if (
            not isinstance(bounds, list)
            or not 1 <= len(bounds) <= 3
            or not all(isinstance(b, int) and not isinstance(b, bool) for b in bounds)
        ):
            fail("a sweep range must be {range: stop} or {range: [start, stop(, step)]} with integers", where)
        if len(bounds) == 3 and bounds[2] == 0:
            fail("a sweep range's step must not be 0", where)
        values = range(*bounds)
    if not isinstance(values, (list, range)) or not values:
        fail("a sweep axis must be a non-empty list of values or {range: ...}", where)
    return values


def sweep_points(
    sweep: Mapping[str, Any], where: KeyPath, fail: Fail, kind: str, room: int
) -> list[dict[str, Any]]:
    """Every point of an entry's ``sweep`` grid (one empty point when it has none), refused past ``room`` points.

    ``kind`` (dataset or method) and ``where`` (the entry's key path) name it in the refusal. The
    grid is counted before it is built, so a huge range costs nothing but its refusal.
    """
    axes = [(name, _sweep_values(values, where + ("sweep", name), fail)) for name, values in sweep.items()]
    count = math.prod(_length(values) for _, values in axes)
    if count > room:
        made = f"this entry makes {count:,} {kind}s" if sweep else f"this is {kind} {MAX_ENTRIES - room + 1:,}"
        fail(
            f"too many {kind}s: {made}, and a run may have {MAX_ENTRIES:,} in all",
            where + (("sweep",) if sweep else ()),
            hint=f"sweep fewer values, {SPLIT_THE_RUN}",
        )
    return [
        dict(zip([name for name, _ in axes], combination)) for combination in itertools.product(*[v for _, v in axes])
    ]


def _length(values: range | list[Any]) -> int:
    """How many values a sweep axis has; a range too long for ``len`` counts as one more than any limit."""
    try:
        return len(values)
    except OverflowError:
        return MAX_ENTRIES + 1


def point_label(label: str, point: Mapping[str, Any]) -> str:
    return f"{label} [{', '.join(f'{k}={v}' for k, v in point.items())}]"


def sweep_of(label: str) -> str:
    """The label a sweep point's ``label`` was made from (:func:`point_label`); any other label itself."""
    return label.split(" [", 1)[0]
