"""Whether a config may run into a run directory that holds a run already.

A run directory holds one run: one split protocol and one run seed, so that its tables never
mix them, and the widest config run into it, so that a quick narrower command does not rewrite
its tables and ``run.json`` with fewer units. Each check refuses in one line before anything
in the directory is written; a path the file system cannot hold, before anything is read.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mlhidden.errors import UserError
from mlhidden.experiment.leases import live_leaseholder
from mlhidden.io import STORE_FILE, PathLike
from mlhidden.runs.run_results import expected_keys, split_protocol
from mlhidden.runs.status import OK
from mlhidden.runs.store import ResultStore, store_exists

SQLITE_PATH_BYTES = 512
"""The longest file path SQLite opens on Unix (its ``MAX_PATHNAME``): the store's journal file must fit."""
NAME_BYTES = 255
"""A folder name's limit where the file system does not say (``NAME_MAX`` of Linux and macOS)."""


def check_run_path(run_dir: PathLike, hint: str) -> None:
    """Refuse (UserError, with ``hint``) a run directory whose path the file system or SQLite cannot hold.

    Checked before a dataset is read, so that a long ``name:`` or ``--out`` costs nothing.
    """
    path = Path(os.path.abspath(run_dir))
    limit = _name_limit(path)
    for part in path.parts:
        if len(os.fsencode(part)) > limit:
            raise UserError(
                f"the run directory's folder name '{_shortened(part)}' is {len(os.fsencode(part)):,} bytes, and this "
                f"file system allows {limit}",
                hint=hint,
            )
    journal = len(os.fsencode(path / f"{STORE_FILE}-journal"))
    if journal > SQLITE_PATH_BYTES:
        raise UserError(
            f"the run directory '{_shortened(str(path))}' is a path of {len(os.fsencode(path)):,} bytes, and its "
            f"results store needs one of at most {len(os.fsencode(path)) - journal + SQLITE_PATH_BYTES}",
            hint=hint,
        )


def refuse_fresh_while_in_use(run_dir: PathLike) -> None:
    """``--fresh`` deletes the store: refused while another live process runs into it."""
    owner = None if not store_exists(run_dir) else live_leaseholder(Path(run_dir) / STORE_FILE)
    if owner is not None:
        raise UserError(
            f"another run (process {owner[1]} on {owner[0]}) is running into this directory, and --fresh would delete"
            " its results store under it",
            path=run_dir, hint="wait for that run to end, or give this run its own --out",
        )


def _name_limit(path: Path) -> int:
    """The longest folder name the file system holding ``path`` (its nearest existing folder) allows."""
    for folder in path.parents:
        try:
            limit = os.pathconf(folder, "PC_NAME_MAX")
        except (OSError, ValueError):
            continue
        return limit if limit > 0 else NAME_BYTES
    return NAME_BYTES


def _shortened(text: str, keep: int = 40) -> str:
    return text if len(text) <= keep else f"{text[:keep]}..."


def check_run_directory(
    store: ResultStore, record: dict[str, Any], checksums: dict[str, str], *, narrow: bool = False
) -> str | None:
    """Refuse (UserError) to run the config ``record`` (on data ``checksums``) into ``store``'s run directory;
    else a line on the run stored there that this one replaces, if its tables lose units by it.

    ``narrow`` allows a config asking for a strict part of the stored run's units, which then
    becomes the directory's run (its tables and run.json); the other units stay stored.
    """
    stored = store.get_meta("config")
    if stored is None:
        return None
    if split_protocol(stored) != split_protocol(record):
        raise UserError(
            f"the stored units were split with {split_protocol(stored)}; this config asks for {split_protocol(record)}",
            path=store.path, hint="re-run with --fresh to start over, or choose another --out",
        )
    if stored["seed"] != record["seed"] and not store.units().empty:
        raise UserError(
            f"the stored units were made with run seed {stored['seed']}; this run asks for seed {record['seed']},"
            " and one directory holds one run seed so that its tables never mix or drop seeds",
            path=store.path, hint="give each run seed its own --out, or re-run with --fresh to start over",
        )
    return None if narrow else _refuse_narrower(store, stored, record, checksums)


def _refuse_narrower(
    store: ResultStore, stored: dict[str, Any], record: dict[str, Any], checksums: dict[str, str]
) -> str | None:
    stored_checksums = {r.name: r.sha256 for r in store.datasets().itertuples() if r.status == OK}
    before, asked = set(expected_keys(stored, stored_checksums)), set(expected_keys(record, checksums))
    if not asked < before:
        left = len((before - asked) & store.done_keys())
        if left and stored.get("config_hash") != record.get("config_hash"):
            return (
                f"{store.run_dir} held the run '{stored['name']}' ({_stored_run(stored, stored_checksums)}, config "
                f"{stored.get('config_hash')}); it becomes the "
                f"run of this config, whose tables leave out {left} of that run's stored units (they stay stored; "
                "give each config its own --out to keep both runs' tables)"
            )
        return None
    raise UserError(
        f"this command asks for {len(asked)} of the {len(before)} units of the run stored here "
        f"({_stored_run(stored, stored_checksums)}) and nothing else: running it here would rewrite "
        "that run's tables and run.json with fewer units",
        path=store.path, hint=f"give another --out (with --reuse {store.run_dir} to copy the stored units), "
        f"or add --narrow to make this the run of {store.run_dir}; its other units stay stored",
    )


def _stored_run(stored: dict[str, Any], datasets: Iterable[str]) -> str:
    """What the run stored in a folder computed, which tells it apart where its name is the folder's."""
    labels = ", ".join(method["label"] for method in stored["methods"])
    return f"{labels} on {', '.join(datasets)}, {stored['splits']} splits"
