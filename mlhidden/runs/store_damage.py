"""Units a results store holds that mlhidden never writes, found whenever the store is opened.

A stored unit's status is ok or failed, and its number columns hold numbers (or nothing). A
unit breaking either was changed by something else: a hand edit, another tool, a disk fault.
Rather than fail deep inside a report, or compute the unit again without a word, every command
refuses the store in one line that names the damage and the repair
(:mod:`mlhidden.runs.store_repair`), which keeps every good unit. A unit's stored label is
no such damage: the tables take each method's label from the run's config, so a method
relabelled in the config, or a label cell edited, is reported under the config's label.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from mlhidden.errors import UserError
from mlhidden.runs.status import UNIT_STATUSES

_NUMBER_TYPES = ("INTEGER", "REAL")
_SHOWN_CHARACTERS = 40


@dataclass(frozen=True)
class DamagedUnit:
    """One damaged unit: its row, where it is in words, what is wrong, and the number columns holding something else."""

    rowid: int
    where: str
    damage: str
    bad_cells: tuple[str, ...] = ()


def damaged_units(conn: sqlite3.Connection) -> list[DamagedUnit]:
    """Every damaged unit of the store open on ``conn``."""
    numbers = [row[1] for row in conn.execute("PRAGMA table_info(units)") if str(row[2]).upper() in _NUMBER_TYPES]
    quoted = ['"' + column.replace('"', '""') + '"' for column in numbers]
    columns = ", ".join(["rowid", "dataset", "method", "split", "status", *quoted])
    not_numbers = "".join(f" OR typeof({column}) NOT IN ('integer', 'real', 'null')" for column in quoted)
    query = f"SELECT {columns} FROM units WHERE status NOT IN ({', '.join('?' * len(UNIT_STATUSES))}){not_numbers}"
    found = []
    for rowid, dataset, method, split, status, *values in conn.execute(query, UNIT_STATUSES):
        where = f"{method} on {dataset}, split {split}"
        bad_cells = tuple(c for c, v in zip(numbers, values) if v is not None and not isinstance(v, (int, float)))
        if bad_cells:
            shown = _shown(values[numbers.index(bad_cells[0])])
            found.append(DamagedUnit(rowid, where, f"its {bad_cells[0]} holds {shown}, not a number", bad_cells))
        elif status not in UNIT_STATUSES:
            found.append(DamagedUnit(rowid, where, f"its status is {_shown(status)}, not ok or failed"))
    return found


def damaged_store_error(path: Path, damaged: list[DamagedUnit], n_units: int) -> UserError:
    """The one line refusing the store at ``path`` for its ``damaged`` units (of ``n_units``), with the repair."""
    first = damaged[0]
    more = f"; and {len(damaged) - 1} more" if len(damaged) > 1 else ""
    return UserError(
        f"the results store is damaged in {len(damaged)} of its {n_units} units ({first.where}: {first.damage}{more})",
        path=path,
        hint=f"`mlhidden store repair {path.parent}` mends it, keeping its {n_units - len(damaged)} good units "
        "and a copy of the store as it is",
    )


def _shown(value: object) -> str:
    text = repr(value.decode("utf-8", "replace") if isinstance(value, bytes) else value)
    return text if len(text) <= _SHOWN_CHARACTERS else text[: _SHOWN_CHARACTERS - 3] + "..."
