"""The stored-run model: what a run stores (its specs, splits, units and measures), the store, and reading it back.

The names below are imported on first use (:func:`mlhidden.lazy_exports.lazy_names`), so that
importing one module of the package (a worker imports a few) loads no other.
"""

from mlhidden.lazy_exports import lazy_names

__getattr__, __all__ = lazy_names(__name__, {
    "RunResults": "mlhidden.runs.run_results",
    "DatasetSpec": "mlhidden.runs.specs",
    "MethodSpec": "mlhidden.runs.specs",
    "ResultStore": "mlhidden.runs.store",
    "load_results": "mlhidden.runs.store",
})
