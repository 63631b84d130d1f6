"""Multi-label methods as scikit-learn estimators, and the registry that names them."""

from mlhidden.methods.base import MultiLabelClassifier
from mlhidden.methods.base_learners import (
    BASE_LEARNERS,
    LOGISTIC_LEARNERS,
    binary_only,
    make_base_learner,
    parse_base_spec,
    resolved_base_params,
)
from mlhidden.methods.baselines import AllZero, LabelMajority, MostFrequentLabelSet
from mlhidden.methods.br import BR
from mlhidden.methods.cc import CC
from mlhidden.methods.ccasl import CCASL, CCASLAML, CCASLBR
from mlhidden.methods.expansion import ELM, RBFBR
from mlhidden.methods.external import ExternalMethod
from mlhidden.methods.forest import ForestBR
from mlhidden.methods.lp import LP
from mlhidden.methods.mlp import MLP
from mlhidden.methods.pcc import PCC
from mlhidden.methods.preprocessing import method_of, resolve_preprocess
from mlhidden.methods.registry import (
    METHODS,
    MethodEntry,
    check_method_base,
    describe_method,
    get_entry,
    is_trivial_baseline,
    make_checked_method,
    make_method,
    make_resolved_method,
    method_data,
    method_name,
    method_table,
    registered_methods,
    resolve_method,
    seeded,
)
from mlhidden.methods.resolved_method import ResolvedMethod
from mlhidden.methods.shared_fits import SharedFits
from mlhidden.methods.stacking import MBR

__all__ = [
    "AllZero",
    "BASE_LEARNERS",
    "binary_only",
    "BR",
    "make_resolved_method",
    "ResolvedMethod",
    "CC",
    "CCASL",
    "CCASLAML",
    "CCASLBR",
    "check_method_base",
    "make_checked_method",
    "describe_method",
    "ELM",
    "ExternalMethod",
    "ForestBR",
    "get_entry",
    "is_trivial_baseline",
    "LabelMajority",
    "LOGISTIC_LEARNERS",
    "LP",
    "make_base_learner",
    "make_method",
    "MBR",
    "method_data",
    "method_name",
    "method_of",
    "method_table",
    "MethodEntry",
    "METHODS",
    "MLP",
    "MostFrequentLabelSet",
    "MultiLabelClassifier",
    "parse_base_spec",
    "PCC",
    "RBFBR",
    "registered_methods",
    "resolve_method",
    "resolve_preprocess",
    "resolved_base_params",
    "seeded",
    "SharedFits",
]
