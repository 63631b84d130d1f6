"""Statistics: intervals and the verdict rule (``uncertainty``), the units of replication and their tests
(``replication``), the rank rule (``ranks``) and the Friedman test (``friedman``).

The layer under both the report (:mod:`mlhidden.report`) and the claims (:mod:`mlhidden.claims`): each
reads its vocabulary (``Target``, ``Comparison``, the verdict words) from here, not from the other.

The names below are imported on first use (:func:`mlhidden.lazy_exports.lazy_names`).
"""

from typing import TYPE_CHECKING

from mlhidden.lazy_exports import lazy_names

if TYPE_CHECKING:  # the names of the table below, for type checkers
    from mlhidden.stats.friedman import FriedmanTest as FriedmanTest
    from mlhidden.stats.friedman import friedman_p as friedman_p
    from mlhidden.stats.friedman import friedman_test as friedman_test
    from mlhidden.stats.ranks import RANK_DECIMALS as RANK_DECIMALS
    from mlhidden.stats.ranks import rank_rows as rank_rows
    from mlhidden.stats.replication import DATASETS as DATASETS
    from mlhidden.stats.replication import SPLITS as SPLITS
    from mlhidden.stats.replication import UNITS as UNITS
    from mlhidden.stats.replication import Target as Target
    from mlhidden.stats.replication import against_control as against_control
    from mlhidden.stats.replication import by_unit as by_unit
    from mlhidden.stats.replication import compare as compare
    from mlhidden.stats.replication import split_test_train_ratio as split_test_train_ratio
    from mlhidden.stats.uncertainty import ALPHA as ALPHA
    from mlhidden.stats.uncertainty import FAILS as FAILS
    from mlhidden.stats.uncertainty import HOLDS as HOLDS
    from mlhidden.stats.uncertainty import HOLM as HOLM
    from mlhidden.stats.uncertainty import INCONCLUSIVE as INCONCLUSIVE
    from mlhidden.stats.uncertainty import NO_DIFFERENCE as NO_DIFFERENCE
    from mlhidden.stats.uncertainty import NOT_EVALUATED as NOT_EVALUATED
    from mlhidden.stats.uncertainty import RULE as RULE
    from mlhidden.stats.uncertainty import TIE_DECIMALS as TIE_DECIMALS
    from mlhidden.stats.uncertainty import VERDICTS as VERDICTS
    from mlhidden.stats.uncertainty import Comparison as Comparison
    from mlhidden.stats.uncertainty import combine as combine
    from mlhidden.stats.uncertainty import critical_difference as critical_difference
    from mlhidden.stats.uncertainty import deciding as deciding
    from mlhidden.stats.uncertainty import format_p as format_p
    from mlhidden.stats.uncertainty import holm as holm
    from mlhidden.stats.uncertainty import interval_of as interval_of
    from mlhidden.stats.uncertainty import nemenyi_q as nemenyi_q
    from mlhidden.stats.uncertainty import t_interval as t_interval

__getattr__, __all__ = lazy_names(__name__, {
    "friedman_p": "mlhidden.stats.friedman",
    "friedman_test": "mlhidden.stats.friedman",
    "FriedmanTest": "mlhidden.stats.friedman",
    "RANK_DECIMALS": "mlhidden.stats.ranks",
    "rank_rows": "mlhidden.stats.ranks",
    "against_control": "mlhidden.stats.replication",
    "by_unit": "mlhidden.stats.replication",
    "compare": "mlhidden.stats.replication",
    "DATASETS": "mlhidden.stats.replication",
    "split_test_train_ratio": "mlhidden.stats.replication",
    "SPLITS": "mlhidden.stats.replication",
    "Target": "mlhidden.stats.replication",
    "UNITS": "mlhidden.stats.replication",
    "ALPHA": "mlhidden.stats.uncertainty",
    "combine": "mlhidden.stats.uncertainty",
    "Comparison": "mlhidden.stats.uncertainty",
    "critical_difference": "mlhidden.stats.uncertainty",
    "deciding": "mlhidden.stats.uncertainty",
    "FAILS": "mlhidden.stats.uncertainty",
    "format_p": "mlhidden.stats.uncertainty",
    "HOLDS": "mlhidden.stats.uncertainty",
    "holm": "mlhidden.stats.uncertainty",
    "INCONCLUSIVE": "mlhidden.stats.uncertainty",
    "interval_of": "mlhidden.stats.uncertainty",
    "nemenyi_q": "mlhidden.stats.uncertainty",
    "NO_DIFFERENCE": "mlhidden.stats.uncertainty",
    "NOT_EVALUATED": "mlhidden.stats.uncertainty",
    "RULE": "mlhidden.stats.uncertainty",
    "t_interval": "mlhidden.stats.uncertainty",
    "TIE_DECIMALS": "mlhidden.stats.uncertainty",
    "VERDICTS": "mlhidden.stats.uncertainty",
    "HOLM": "mlhidden.stats.uncertainty",
})
