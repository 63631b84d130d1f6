"""The command line: a thin layer over functions that are all callable from Python.

Each group of commands lives in its own module; this one gathers them under ``mlhidden``.
"""

from __future__ import annotations

import click

from mlhidden import __version__
from mlhidden.cli.claims_command import claims
from mlhidden.cli.dataset_method_commands import datasets, methods
from mlhidden.cli.endings import OneLineErrors
from mlhidden.cli.paper_commands import multiverse, reproduce, sensitivity
from mlhidden.cli.report_commands import export, report
from mlhidden.cli.run_commands import init, run, splits_command
from mlhidden.cli.store_commands import store


@click.group(cls=OneLineErrors)
@click.version_option(__version__, prog_name="mlhidden")
def cli():
    """Run the experiments of 'Multi-label Classification using Labels as Hidden Nodes'."""


COMMANDS = (
    run, report, export, store, splits_command, init, reproduce, sensitivity, multiverse, claims, datasets, methods,
)
for command in COMMANDS:
    cli.add_command(command)

main = cli
