"""MEKA's label convention: ``@relation 'Name: -C N'`` says the first N attributes are labels, ``-C -N`` the last N."""

from __future__ import annotations

import re
from pathlib import Path

from mlhidden.errors import UserError

LABELS_HINT = "add -C N to @relation or pass --labels N"

_CLASS_OPTION = re.compile(r"(?:^|\s)-C\s+(\S+)")


def relation_name(path: Path, relation: str) -> str:
    """The dataset name: the relation before its colon, else the file name."""
    return relation.partition(":")[0].strip() or path.name.split(".")[0]


def relation_count(relation: str) -> int | None:
    """The relation's ``-C`` label count, or None when it has no integer one."""
    option = _CLASS_OPTION.search(relation.partition(":")[2])
    try:
        return None if option is None else int(option.group(1))
    except ValueError:
        return None


def meka_labels(path: Path, relation: str, relation_line: int | None, labels: int | None) -> tuple[str, int]:
    """The dataset name (before the colon) and the label count (``labels`` or the ``-C`` option)."""
    name = relation_name(path, relation)
    if labels is not None:
        return name, int(labels)
    option = _CLASS_OPTION.search(relation.partition(":")[2])
    if option is None:
        raise UserError(
            f"the @relation '{relation}' does not say how many attributes are labels",
            path=path,
            line=relation_line,
            hint=LABELS_HINT,
        )
    try:
        return name, int(option.group(1))
    except ValueError:
        raise UserError(
            f"-C must be followed by an integer label count, got '{option.group(1)}'",
            path=path,
            line=relation_line,
            hint=LABELS_HINT,
        ) from None


def label_index(path: Path, n_labels: int, n_attributes: int, line: int | None) -> list[int]:
    """The attribute indices of ``-C n_labels``: the first N for N > 0, the last |N| for N < 0."""
    if not 0 < abs(n_labels) < n_attributes:
        raise UserError(
            f"label count {n_labels} does not fit {n_attributes} attributes: -C N needs 0 < |N| < the number "
            f"of attributes (labels are the first N for N > 0, the last |N| for N < 0)",
            path=path,
            line=line,
        )
    return list(range(n_labels)) if n_labels > 0 else list(range(n_attributes + n_labels, n_attributes))
