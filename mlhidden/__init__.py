"""mlhidden: reproduce 'Multi-label Classification using Labels as Hidden Nodes' and run its protocol.

The public API (docs/api.md) is importable from here: ``mlhidden.run_experiment``, ``load_config``,
``load_dataset``, ``ResultStore``, ``check_claims``, the estimators (``BR``, ``CC``, ...) and the
few types they take and return; the names a study and the command line need besides are in the
layers' faces (``mlhidden.experiment.CostPriors``, ...). Each is imported from its layer's package on
first use (PEP 562), so that ``import mlhidden`` loads neither numpy nor the runner: it only chooses
the BLAS kernel, which has to happen before numpy loads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mlhidden._version import __version__
from mlhidden.blas_kernel import set_blas_kernel
from mlhidden.lazy_exports import lazy_names

if TYPE_CHECKING:  # the names of PUBLIC_API, for type checkers
    from mlhidden.claims.check import check_claims as check_claims
    from mlhidden.claims.verdicts import ClaimResult as ClaimResult
    from mlhidden.data.arff import read_arff as read_arff
    from mlhidden.data.arff import write_arff as write_arff
    from mlhidden.data.catalog import load_dataset as load_dataset
    from mlhidden.data.dataset import Dataset as Dataset
    from mlhidden.experiment.config import RunConfig as RunConfig
    from mlhidden.experiment.config import load_config as load_config
    from mlhidden.experiment.config import parse_config as parse_config
    from mlhidden.experiment.run_options import RunOptions as RunOptions
    from mlhidden.experiment.run_summary import RunSummary as RunSummary
    from mlhidden.experiment.runner import run_experiment as run_experiment
    from mlhidden.methods.base import MultiLabelClassifier as MultiLabelClassifier
    from mlhidden.methods.baselines import AllZero as AllZero
    from mlhidden.methods.baselines import LabelMajority as LabelMajority
    from mlhidden.methods.baselines import MostFrequentLabelSet as MostFrequentLabelSet
    from mlhidden.methods.br import BR as BR
    from mlhidden.methods.cc import CC as CC
    from mlhidden.methods.ccasl import CCASL as CCASL
    from mlhidden.methods.ccasl import CCASLAML as CCASLAML
    from mlhidden.methods.ccasl import CCASLBR as CCASLBR
    from mlhidden.methods.expansion import ELM as ELM
    from mlhidden.methods.expansion import RBFBR as RBFBR
    from mlhidden.methods.forest import ForestBR as ForestBR
    from mlhidden.methods.lp import LP as LP
    from mlhidden.methods.mlp import MLP as MLP
    from mlhidden.methods.pcc import PCC as PCC
    from mlhidden.methods.registry import make_method as make_method
    from mlhidden.methods.stacking import MBR as MBR
    from mlhidden.runs.run_results import RunResults as RunResults
    from mlhidden.runs.store import ResultStore as ResultStore
    from mlhidden.runs.store import load_results as load_results

set_blas_kernel()  # before anything loads numpy: OPENBLAS_CORETYPE is read once, when OpenBLAS loads

PUBLIC_API = {
    "Dataset": "mlhidden.data",
    "load_dataset": "mlhidden.data",
    "read_arff": "mlhidden.data",
    "write_arff": "mlhidden.data",
    "AllZero": "mlhidden.methods",
    "BR": "mlhidden.methods",
    "CC": "mlhidden.methods",
    "CCASL": "mlhidden.methods",
    "CCASLAML": "mlhidden.methods",
    "CCASLBR": "mlhidden.methods",
    "ELM": "mlhidden.methods",
    "ForestBR": "mlhidden.methods",
    "LP": "mlhidden.methods",
    "LabelMajority": "mlhidden.methods",
    "MBR": "mlhidden.methods",
    "MLP": "mlhidden.methods",
    "MostFrequentLabelSet": "mlhidden.methods",
    "MultiLabelClassifier": "mlhidden.methods",
    "PCC": "mlhidden.methods",
    "RBFBR": "mlhidden.methods",
    "make_method": "mlhidden.methods",
    "ResultStore": "mlhidden.runs",
    "RunResults": "mlhidden.runs",
    "load_results": "mlhidden.runs",
    "RunConfig": "mlhidden.experiment",
    "RunOptions": "mlhidden.experiment",
    "RunSummary": "mlhidden.experiment",
    "load_config": "mlhidden.experiment",
    "parse_config": "mlhidden.experiment",
    "run_experiment": "mlhidden.experiment",
    "ClaimResult": "mlhidden.claims",
    "check_claims": "mlhidden.claims",
}
"""Each public name -> the package that exports it: the one place the package root names a layer above it."""

__getattr__, _public_names = lazy_names(__name__, PUBLIC_API)
__all__ = ["__version__", *_public_names]


def __dir__() -> list[str]:
    return sorted({*globals(), *PUBLIC_API})
