"""mlhidden: reproduce 'Multi-label Classification using Labels as Hidden Nodes' and run its protocol."""

from mlhidden.blas_kernel import set_blas_kernel

__version__ = "0.1.0"

set_blas_kernel()  # before anything loads numpy: OPENBLAS_CORETYPE is read once, when OpenBLAS loads
