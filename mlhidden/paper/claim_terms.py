"""The band the report's comparison tables use, and how a missing run is said.

The claims' own directions, sizes and readings are in ``configs/claims.yaml``, not here.
"""

from __future__ import annotations

DEVIATION = 0.05
"""A table flags our value and the paper's as differing notably when they are further apart than this."""


def missing_run(name: str) -> str:
    """Why something that needs run ``name`` is not evaluated."""
    return f"no results for run '{name}'"
