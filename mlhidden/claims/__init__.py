"""Claims checked against stored runs: a claims file, its checker, and its outputs (docs/claims.md).

The names below are imported on first use (:func:`mlhidden.lazy_exports.lazy_attribute`).
"""

from typing import Any

from mlhidden.lazy_exports import lazy_attribute

_EXPORTS = {
    "ClaimResult": "mlhidden.claims.check",
    "check_claims": "mlhidden.claims.check",
    "write_outputs": "mlhidden.claims.output",
    "StoredRuns": "mlhidden.claims.runs",
    "read_claims": "mlhidden.claims.spec",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    return lazy_attribute(__name__, _EXPORTS, name)
