"""Claims checked against stored runs: a claims file, its checker, and its outputs (docs/claims.md).

The names below are imported on first use (:func:`mlhidden.lazy_exports.lazy_names`).
"""

from mlhidden.lazy_exports import lazy_names

__getattr__, __all__ = lazy_names(__name__, {
    "ClaimResult": "mlhidden.claims.check",
    "check_claims": "mlhidden.claims.check",
    "write_outputs": "mlhidden.claims.result_files",
    "StoredRuns": "mlhidden.claims.runs",
    "read_claims": "mlhidden.claims.spec",
})
