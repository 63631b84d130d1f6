"""The values of a claims file's keys, each checked where it is read: text, finite numbers, method names, a
choice among names, the claimed direction and size (a :class:`~mlhidden.stats.replication.Target`) and the
datasets a sub-claim is about.

Each parser takes the key path of its value and the file's ``fail`` (:func:`~mlhidden.yaml_lines.failure_at`),
so that a mistake is one line at the key that is wrong; :mod:`mlhidden.claims.spec` puts them together.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mlhidden.errors import did_you_mean
from mlhidden.stats.replication import Target
from mlhidden.yaml_lines import Fail, KeyPath, refuse_unknown_keys

DATASET_KEYS = ("names", "group", "min_samples")
DIRECTIONS = ("above", "below", "within")


@dataclass(frozen=True)
class DatasetSelection:
    """Which of a run's datasets a sub-claim is about (every one when all are empty)."""

    names: tuple[str, ...] = ()
    group: str | None = None
    min_samples: int | None = None

    def describe(self) -> str:
        parts = [", ".join(self.names)] if self.names else []
        parts += [f"group {self.group}"] if self.group else []
        parts += [f"N ≥ {self.min_samples}"] if self.min_samples is not None else []
        return "; ".join(parts) or "every dataset"


def checked_text(value: Any, where: KeyPath, fail: Fail, *, required: bool = True) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        fail(f"'{where[-1]}' must be text", where)
    return " ".join(value.split())


def finite_number(value: Any, where: KeyPath, fail: Fail) -> float:
    """``value`` as a finite float: an infinite size or smallest effect would decide its sub-claim alone."""
    number = math.nan
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            number = float(value)
        except OverflowError:  # an integer of hundreds of digits
            pass
    if not math.isfinite(number):
        shown = repr(value)
        shown = shown if len(shown) <= 20 else f"{shown[:12]}... ({len(shown)} characters)"
        fail(f"'{where[-1]}' must be a finite number, not {shown}", where)
    return number


def method_names(value: Any, where: KeyPath, fail: Fail, *, count: int | None = None) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(item, str) and item for item in items):
        fail(f"'{where[-1]}' must be a method name or a list of them", where)
    if count is not None and len(items) != count:
        fail(f"'{where[-1]}' needs {count} entries, not {len(items)}", where)
    return tuple(items)


def claimed_target(entry: Mapping[str, Any], statistic: str, where: KeyPath, fail: Fail) -> Target:
    """The claimed direction, size and reading of a sub-claim, on the scale of its statistic."""
    direction = entry.get("direction", "above")
    if direction not in DIRECTIONS:
        fail(f"unknown direction {direction!r}", where + ("direction",),
             hint=f"{did_you_mean(direction, DIRECTIONS)}one of: {', '.join(DIRECTIONS)}")
    ratio = statistic == "ratio"
    scale = (lambda x: math.log(x)) if ratio else (lambda x: x)
    size, reading = entry.get("size"), checked_text(entry.get("reading"), where + ("reading",), fail, required=False)
    if direction == "within":
        if not (isinstance(size, list) and len(size) == 2):
            fail("direction 'within' needs size: [low, high]", where + ("size" if "size" in entry else "direction",))
        low, high = (finite_number(x, where + ("size",), fail) for x in size)
        if ratio and min(low, high) <= 0:
            fail("a ratio's size must be above 0", where + ("size",))
        bounds = sorted((scale(low), scale(high)))
    elif size is not None:
        bound = finite_number(size, where + ("size",), fail)
        if ratio and bound <= 0:
            fail("a ratio's size must be above 0", where + ("size",))
        bounds = [scale(bound), math.inf] if direction == "above" else [-math.inf, scale(bound)]
    else:
        bounds = [0.0, math.inf] if direction == "above" else [-math.inf, 0.0]
    if size is not None and not reading:
        fail("a claimed size needs 'reading': how the words are read as this number", where + ("size",))
    smallest = entry.get("smallest_effect")
    if smallest is None and size is None and statistic != "ranks":
        fail("a sub-claim without a size needs smallest_effect: the smallest effect its words are about",
             where, hint="e.g. smallest_effect: 0.01 (a ratio's is a factor, e.g. 1.1)")
    margin = None
    if smallest is not None:
        margin = finite_number(smallest, where + ("smallest_effect",), fail)
        if margin <= (1.0 if ratio else 0.0):
            fail(f"smallest_effect must be above {'1 (a factor)' if ratio else '0'}", where + ("smallest_effect",))
        margin = scale(margin)
    return Target(bounds[0], bounds[1], size is not None, margin, reading, ratio)


def dataset_selection(value: Any, where: KeyPath, fail: Fail) -> DatasetSelection:
    if value is None:
        return DatasetSelection()
    if isinstance(value, (str, list)):
        return DatasetSelection(names=method_names(value, where, fail))
    if not isinstance(value, dict):
        fail("'datasets' must be a name, a list of names or {names, group, min_samples}", where)
    refuse_unknown_keys(value, DATASET_KEYS, where, fail, "in datasets")
    names = method_names(value["names"], where + ("names",), fail) if "names" in value else ()
    group = checked_text(value["group"], where + ("group",), fail) if "group" in value else None
    minimum = value.get("min_samples")
    if minimum is not None and (isinstance(minimum, bool) or not isinstance(minimum, int)):
        fail("'min_samples' must be a whole number", where + ("min_samples",))
    return DatasetSelection(names, group, minimum)


def one_of(entry: Mapping[str, Any], key: str, allowed: tuple[str, ...], default: str, where: KeyPath,
            fail: Fail) -> str:
    """``entry[key]``, one of ``allowed`` (``default`` when absent)."""
    value = entry.get(key, default)
    if value not in allowed:
        fail(f"unknown {key} {value!r}", where + (key,),
             hint=f"{did_you_mean(str(value), allowed)}one of: {', '.join(allowed)}")
    return str(value)
