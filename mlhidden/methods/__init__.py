"""Multi-label methods as scikit-learn estimators, and the registry that names them."""

from mlhidden.methods.base import MultiLabelClassifier
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
from mlhidden.methods.registry import METHODS, MethodEntry, make_method, resolve_method
from mlhidden.methods.stacking import MBR

__all__ = [
    "AllZero",
    "BR",
    "CC",
    "CCASL",
    "CCASLAML",
    "CCASLBR",
    "ELM",
    "ExternalMethod",
    "ForestBR",
    "LP",
    "LabelMajority",
    "MBR",
    "METHODS",
    "MethodEntry",
    "MLP",
    "MostFrequentLabelSet",
    "MultiLabelClassifier",
    "PCC",
    "RBFBR",
    "make_method",
    "resolve_method",
]
