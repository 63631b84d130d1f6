"""How many decimals a table prints: enough that two values which rank differently never read the same.

Two decimals, as the paper prints, often hide what decides a rank: on a sweep, five cells may
all read 0.78 and rank 1 to 5. A table gets the fewest decimals, from
:data:`~mlhidden.runs.metrics.MIN_DIGITS` to ``MAX_DIGITS``, that tell apart every two cells of a
ranked row whose ranks differ (:func:`first_separating`); what even ``MAX_DIGITS`` cannot tell apart
is named in a note under the table (:func:`rank_collisions`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import pandas as pd

Shown = Callable[[float], str]


def rank_collisions(means: pd.DataFrame, ranks: pd.DataFrame, shown: Shown) -> list[tuple[str, str, str]]:
    """``(dataset, method, method)`` for each two cells of a ranked row whose means read the same as
    ``shown`` prints them but whose ranks differ (cells without a mean, such as failed ones, print no number)."""
    collisions = []
    for dataset in ranks.index:
        first_of: dict[str, tuple[str, float]] = {}
        for method, rank in ranks.loc[dataset].items():
            mean = means.at[dataset, method]
            if math.isnan(rank) or math.isnan(mean):
                continue
            text = shown(mean)
            if text in first_of and first_of[text][1] != rank:
                collisions.append((str(dataset), first_of[text][0], str(method)))
            first_of.setdefault(text, (str(method), rank))
    return collisions


def first_separating(candidates: Sequence[Shown], means: pd.DataFrame, ranks: pd.DataFrame) -> int:
    """The index of the first of ``candidates`` (ways to print a mean, fewest decimals first) under which
    no two cells that rank differently read the same; the last when none is."""
    separating = (i for i, shown in enumerate(candidates) if not rank_collisions(means, ranks, shown))
    return next(separating, len(candidates) - 1)
