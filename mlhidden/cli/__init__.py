"""The ``mlhidden`` command line: the commands, their progress display and how a command ends."""

from mlhidden.cli.commands import cli, main

__all__ = ["cli", "main"]
