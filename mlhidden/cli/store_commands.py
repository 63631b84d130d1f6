"""A run's results store: ``mlhidden store repair``."""

from __future__ import annotations

import click

from mlhidden.cli.endings import OneLineErrors


@click.group(cls=OneLineErrors)
def store():
    """A run's results store: mend one that something other than mlhidden damaged."""


@store.command("repair")
@click.argument("run_dir", type=click.Path(file_okay=False))
def store_repair(run_dir):
    """Mend RUN_DIR's store without losing a good unit, after keeping a copy of it as it is.

    Rebuilds a lost meta or datasets table from run.json, gives units their config's label, and
    marks failed the units holding a status other than ok or failed, or text where a number
    belongs: `mlhidden run` with the run's command computes those again.
    """
    from mlhidden.runs.store_repair import repair_store

    lines = repair_store(run_dir)
    for line in lines or [f"nothing to repair: the results store in {run_dir} is sound"]:
        click.echo(line)
