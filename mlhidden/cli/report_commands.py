"""``mlhidden report``: a run's tables (and statistics, page) rebuilt from its store alone."""

from __future__ import annotations

from pathlib import Path

import click

from mlhidden.cli.options import CONTROL, HTML, PRECISION, STATS, STD
from mlhidden.errors import UserError


def write_and_print(run_dirs: list, out_dir: Path | None, **options) -> None:
    """Write the report of one run, or of several merged, into ``out_dir`` and print its tables, notes
    and provenance footer (see :func:`~mlhidden.report.run_files.report_runs` for ``options``)."""
    from mlhidden.report.run_files import report_runs

    report = report_runs(run_dirs, out_dir, **options)
    click.echo(report.text)
    for line in report.notes:
        click.echo(line)
    for line in report.provenance:
        click.echo(f"provenance: {line}")
    if out_dir is None:
        return
    click.echo(f"wrote {len(report.paths)} files to {out_dir}/")
    if options.get("html"):
        from mlhidden.report.html import HTML_FILE

        click.echo(f"results page: {out_dir / HTML_FILE}")


@click.command()
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option(
    "--out", type=click.Path(file_okay=False), default=None,
    help="Where to write the tables (default: the run directory; required to merge). "
    "With --metric, files are written only with --out or --stats.",
)
@STATS
@CONTROL
@STD
@PRECISION
@click.option(
    "--metric", "metrics", multiple=True, metavar="NAME",
    help="Only the table of this metric, from the stored predictions (repeatable; e.g. ranking_loss, macro_auc).",
)
@HTML
def report(run_dirs, out, stats, control, std, precision, metrics, html):
    """Rebuild every table of a run from its results store alone; several RUN_DIRS merge into one table.

    Merging puts methods run on different days or clusters side by side; when their method sets
    differ, each dataset is ranked over the methods every dataset has, and a note names the others.
    Runs that split a shared dataset differently (run seed, splits, train fraction or data) are refused.
    """
    if metrics and html:
        raise UserError("--html writes the page of every stored metric; --metric its own tables", hint="drop --metric")
    if len(run_dirs) > 1 and out is None and (stats or not metrics):
        raise UserError(
            "merging several runs needs --out DIR for the merged tables", hint="each run directory keeps its own tables"
        )
    writes = out is not None or stats or not metrics
    out_dir = (Path(out) if out else Path(run_dirs[0])) if writes else None
    write_and_print(
        [Path(d) for d in run_dirs], out_dir,
        metrics=metrics, stats=stats, control=control, std=std, precision=precision, html=html,
    )


@click.command()
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option(
    "--format", "fmt", type=click.Choice(["csv", "json", "parquet"]), default="csv", show_default=True,
    help="json: a list of one object per row; parquet needs the parquet extra.",
)
@click.option(
    "--out", type=click.Path(dir_okay=False), default=None, help="The units' file (default RUN_DIR/export.FORMAT)."
)
@click.option(
    "--predictions", is_flag=True, help="Also OUT_predictions.FORMAT: one row per unit x test row x label.",
)
def export(run_dirs, fmt, out, predictions):
    """Write a run's units (several RUN_DIRS: merged), one row per unit, as CSV, JSON or Parquet for other tools."""
    from mlhidden.report.export import export_run

    if len(run_dirs) > 1 and out is None:
        raise UserError("exporting several runs needs --out FILE", hint="each run directory keeps its own export")
    out_path = Path(out) if out else Path(run_dirs[0]) / f"export.{fmt}"
    paths, n_units = export_run([Path(d) for d in run_dirs], out_path, fmt, predictions=predictions)
    click.echo(f"wrote {paths[0]} ({n_units} units)" + "".join(f" and {path}" for path in paths[1:]))
