"""The one rank rule: per-dataset ranks of methods' scores, for the tables, the critical-difference diagrams and the
rank claims alike."""

from __future__ import annotations

import pandas as pd

# Means closer than this are one value: float noise must not split a real tie.
RANK_DECIMALS = 12


def rank_rows(scores: pd.DataFrame, higher_is_better: bool = True) -> pd.DataFrame:
    """Each row's ranks of ``scores`` (datasets x methods): 1 = best, ties averaged, a missing score last.

    The one rank rule of the tables, the critical-difference diagrams and the ranks claims: values
    equal to :data:`RANK_DECIMALS` decimals tie, so two means of the same split values summed in
    another order rank alike wherever ranks are taken.
    """
    return scores.round(RANK_DECIMALS).rank(
        axis=1, method="average", ascending=not higher_is_better, na_option="bottom"
    )
