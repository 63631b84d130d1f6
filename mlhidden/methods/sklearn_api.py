"""What mlhidden takes from scikit-learn beyond its public API, and where its supported releases differ.

scikit-learn has no public home for the parameter constraints that ``_validate_params`` reads
(``Interval``, ``StrOptions``, ``HasMethods``) nor for the ``Tree`` that the compact forest
rebuilds, so they are imported here and nowhere else; ``tests/methods/test_sklearn_api.py`` fails loudly
on a release that moved or changed them, and pyproject.toml admits only the releases tested.

scikit-learn 1.8 deprecated ``penalty`` in ``LogisticRegression(CV)`` (its default became
``"deprecated"``: ``l1_ratio(s)`` say the penalty) and gave ``LogisticRegressionCV``
``use_legacy_attributes``, whose ``False`` makes ``C_`` a float and ``coefs_paths_``, ``scores_``
arrays instead of per-class dicts. :data:`PENALTY_FROM_L1_RATIO` says which of the two APIs is
installed, for the few places that must know.
"""

from __future__ import annotations

import inspect

import sklearn
from sklearn.linear_model import LogisticRegressionCV
from sklearn.tree._tree import Tree
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions

__all__ = ["PENALTY_FROM_L1_RATIO", "SKLEARN_VERSION", "HasMethods", "Interval", "StrOptions", "Tree"]

# The installed release as (major, minor).
SKLEARN_VERSION: tuple[int, int] = (int(sklearn.__version__.split(".")[0]), int(sklearn.__version__.split(".")[1]))

# scikit-learn >= 1.8: ``penalty`` is deprecated and LogisticRegressionCV takes ``use_legacy_attributes``.
PENALTY_FROM_L1_RATIO: bool = "use_legacy_attributes" in inspect.signature(LogisticRegressionCV).parameters
