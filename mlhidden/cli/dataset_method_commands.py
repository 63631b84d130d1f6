"""What a config can name: the dataset catalog (``mlhidden datasets ...``) and the method registry
(``mlhidden methods``)."""

from __future__ import annotations

import sys

import click

from mlhidden.cli.endings import OneLineErrors, StopSignals
from mlhidden.cli.options import DATA_DIR, FETCH_DATA_DIR, LABELS, SECONDS


@click.group(cls=OneLineErrors)
def datasets():
    """The dataset catalog: list, verify checksums, inspect, fetch from a mirror."""



@datasets.command("list")
@DATA_DIR
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON, for other programs.")
def datasets_list(data_dir, as_json):
    """Every dataset known by name with availability, N, L, D and label cardinality."""
    from mlhidden.data import dataset_table
    from mlhidden.report.export import json_text
    from mlhidden.report.formats import listing

    rows = dataset_table(data_dir)
    click.echo(json_text(rows) if as_json else listing(rows), nl=not as_json)


@datasets.command("verify")
@click.argument("names", nargs=-1)
@DATA_DIR
def datasets_verify(names, data_dir):
    """Check the sha256 of every dataset file present; exit 1 on a mismatch."""
    from mlhidden.data import verify_datasets
    from mlhidden.report.formats import listing

    rows = verify_datasets(data_dir, names or None)
    click.echo(listing(rows))
    if any(r["status"] == "checksum mismatch" for r in rows):
        sys.exit(1)


@datasets.command("info")
@click.argument("name")
@DATA_DIR
@LABELS
def datasets_info(name, data_dir, labels):
    """Load one dataset (catalog name, generator or ARFF path) and describe it."""
    from mlhidden.data import load_dataset
    from mlhidden.report.formats import listing

    data = load_dataset(name, data_dir=data_dir, params=None if labels is None else {"labels": labels})
    click.echo(listing(data.description(), tablefmt="plain"))


@datasets.command("fetch")
@click.argument("names", nargs=-1)
@click.option(
    "--mirror", required=True, metavar="URL_OR_DIR", help="Folder or http(s) base URL holding the dataset files."
)
@FETCH_DATA_DIR
@click.option("--deadline", type=SECONDS, default=None, metavar="SECONDS",
              help="Give up on a file that takes longer than this in all, headers included (default 3600).")
@click.option("--allow-unverified", is_flag=True,
              help="Keep your own file even when the server sends no length (kept only if it loads).")
def datasets_fetch(names, mirror, data_dir, deadline, allow_unverified):
    """Copy or download dataset files from a mirror into the data path, refusing checksum mismatches.

    NAMES are catalog datasets, or file names of your own ARFF files in the mirror (copied with
    their Mulan NAME.xml, their sha256 printed). Exits 1 if a NAME is missing in the mirror."""
    from mlhidden.data import copy_from_mirror
    from mlhidden.report.formats import listing

    stop = StopSignals()
    try:
        with stop:
            rows = copy_from_mirror(mirror, data_dir, names or None, deadline=deadline,
                                    allow_unverified=allow_unverified)
    except KeyboardInterrupt:
        click.echo("interrupted: the files fetched so far are in place, and no file was half-written.", err=True)
        sys.exit(128 + stop.signum)
    click.echo(listing(rows))
    if names and any(row["status"] == "missing in mirror" for row in rows):
        sys.exit(1)


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the methods as JSON, for other programs.")
def methods(as_json):
    """Every method known by name, where it comes from, its parameters and defaults."""
    from mlhidden.methods.base_learners import BASE_LEARNERS
    from mlhidden.methods.registry import method_data, method_table
    from mlhidden.report.export import json_text
    from mlhidden.report.formats import listing

    if as_json:
        click.echo(json_text(method_data()), nl=False)
        return
    click.echo(listing(method_table()))
    click.echo(
        "\nany other estimator with fit(X, Y) and predict(X) by import path, "
        "e.g. sklearn.neighbors.KNeighborsClassifier or mypkg.module:MyMethod"
    )
    click.echo(f"base learners: {', '.join(BASE_LEARNERS)}, or any scikit-learn classifier by import path")
