"""The warnings a unit raised: recorded with the unit, grouped into kinds, said in one line each.

A warning can change a unit's numbers (an lbfgs fit stopped at ``max_iter`` is not the model the
method describes), so the store keeps each unit's distinct warnings (:func:`record_warnings`),
the tables mark the cells whose units raised any, and a run's summary prints one line per kind
(:func:`warning_lines`): ``12 unit(s) did not converge (lbfgs, max_iter=100): scale the features
or raise max_iter``.
"""

from __future__ import annotations

import json
import re
import warnings
from collections import Counter
from collections.abc import Iterable
from typing import Any

MAX_MESSAGE = 300
_NOT_CONVERGED = re.compile(r"(\w+) failed to converge")
_MAX_ITER = re.compile(r"max_iter\s*=\s*(\d+)|after (\d+) iteration")


def record_warnings(caught: Iterable[warnings.WarningMessage]) -> str:
    """The distinct warnings of ``caught`` (``warnings.catch_warnings(record=True)``) as the store keeps them.

    A JSON list of ``{"category", "message", "count"}`` in order of first appearance; each
    message is cut to :data:`MAX_MESSAGE` characters.
    """
    counts = Counter((w.category.__name__, str(w.message)[:MAX_MESSAGE]) for w in caught)
    return json.dumps([{"category": c, "message": m, "count": n} for (c, m), n in counts.items()])


def stored_warnings(text: str | None) -> list[dict[str, Any]]:
    """A unit's recorded warnings back as dicts; none for units stored before they were kept."""
    if not isinstance(text, str) or not text:
        return []
    kept: list[dict[str, Any]] = json.loads(text)
    return kept


def warning_kind(category: str, message: str) -> str:
    """What a warning means for the results, and the fix when there is a known one.

    A convergence warning names the solver and its iteration limit; any other warning is its
    category and the first line of its message.
    """
    solver = _NOT_CONVERGED.search(message)
    if category == "ConvergenceWarning" or solver:
        limit = _MAX_ITER.search(message)
        details = ", ".join(
            part
            for part in (solver and solver.group(1), limit and f"max_iter={limit.group(1) or limit.group(2)}")
            if part
        )
        return f"did not converge{f' ({details})' if details else ''}: scale the features or raise max_iter"
    first_line = message.strip().splitlines()[0] if message.strip() else ""
    return f"raised {category}: {first_line}"


def unit_kinds(text: str | None) -> list[str]:
    """The distinct kinds (:func:`warning_kind`) of one unit's stored warnings, in order."""
    return list(dict.fromkeys(warning_kind(w["category"], w["message"]) for w in stored_warnings(text)))


def kind_counts(warning_texts: Iterable[str | None]) -> Counter[str]:
    """Kind -> number of units that raised it, over the stored warnings of several units."""
    return Counter(kind for text in warning_texts for kind in unit_kinds(text))


def warning_lines(warning_texts: Iterable[str | None]) -> list[str]:
    """One line per warning kind, most frequent first: ``12 unit(s) did not converge (...)``."""
    return [f"{n} unit(s) {kind}" for kind, n in kind_counts(warning_texts).most_common()]
