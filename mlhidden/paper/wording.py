"""The report's fixed words: how a missing run is said, a paper quote as plain text, and the band its
comparison tables flag a difference beyond.

The claims' own directions, sizes and readings are in ``configs/claims.yaml``, not here.
"""

from __future__ import annotations

import re

DEVIATION = 0.05
"""A table flags our value and the paper's as differing notably when they are further apart than this."""


def missing_run(name: str) -> str:
    """Why something that needs run ``name`` is not evaluated."""
    return f"no results for run '{name}'"


def plain_latex(text: str) -> str:
    """A paper quote's LaTeX as plain text (``\\alg{CCASL}`` CCASL, ``$h_{\\textsc{xor}}$`` h_XOR), so that
    REPORT.md and the page (which renders REPORT.md) quote the paper as a reader reads it."""
    text = re.sub(r"\\textsc\{([^{}]*)\}", lambda match: match.group(1).upper(), text)
    text = re.sub(r"\\Tab\{([^{}]*)\}", r"Table \1", text)
    text = re.sub(r"\\Fig\{([^{}]*)\}", r"Figure \1", text)
    text = re.sub(r"\$([^$]*)\$", lambda match: re.sub(r"_\{([^{}]*)\}", r"_\1", match.group(1)), text)
    text = re.sub(r"\\[a-zA-Z]+\{([^{}]*)\}", r"\1", text)
    text = re.sub(r"`([^`']*)'", "\u2018\\1\u2019", text)
    return text.replace("--", "\u2013").replace("~", " ")
