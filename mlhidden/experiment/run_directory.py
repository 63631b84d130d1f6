"""Whether a config may run into a run directory that holds a run already.

A run directory holds one run: one split protocol and one run seed, so that its tables never
mix them, and the widest config run into it, so that a quick narrower command does not rewrite
its tables and ``run.json`` with fewer units. Each check refuses in one line before anything
in the directory is written.
"""

from __future__ import annotations

from typing import Any

from mlhidden.errors import UserError
from mlhidden.experiment.run_results import expected_keys, split_protocol
from mlhidden.experiment.status import OK
from mlhidden.experiment.store import ResultStore


def check_run_directory(
    store: ResultStore, record: dict[str, Any], checksums: dict[str, str], *, narrow: bool = False
) -> None:
    """Refuse (UserError) to run the config ``record`` (on data ``checksums``) into ``store``'s run directory.

    ``narrow`` allows a config asking for a strict part of the stored run's units, which then
    becomes the directory's run (its tables and run.json); the other units stay stored.
    """
    stored = store.get_meta("config")
    if stored is None:
        return
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
    if not narrow:
        _refuse_narrower(store, stored, record, checksums)


def _refuse_narrower(
    store: ResultStore, stored: dict[str, Any], record: dict[str, Any], checksums: dict[str, str]
) -> None:
    stored_checksums = {r.name: r.sha256 for r in store.datasets().itertuples() if r.status == OK}
    before, asked = set(expected_keys(stored, stored_checksums)), set(expected_keys(record, checksums))
    if not asked < before:
        return
    labels = ", ".join(method["label"] for method in stored["methods"])
    raise UserError(
        f"this command asks for {len(asked)} of the {len(before)} units of the run stored here ({labels} on "
        f"{', '.join(stored_checksums)}, {stored['splits']} splits) and nothing else: running it here would rewrite "
        "that run's tables and run.json with fewer units",
        path=store.path, hint=f"give another --out (with --reuse {store.run_dir} to copy the stored units), "
        f"or add --narrow to make this the run of {store.run_dir}; its other units stay stored",
    )
