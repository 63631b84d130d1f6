"""``mlhidden report``: a run's tables (and statistics, page) rebuilt from its store alone."""

from __future__ import annotations

from pathlib import Path

import click

from mlhidden.cli.options import CONTROL, STATS, STD
from mlhidden.errors import UserError


def write_and_print(
    run_dirs: list, out_dir: Path, stats: bool = False, control: str | None = None, std: bool = False, html: bool = False,
) -> None:
    """Write the tables of one run, or of several merged, into ``out_dir`` and print them with a provenance footer."""
    from mlhidden.experiment.provenance import provenance_lines
    from mlhidden.experiment.store import load_results
    from mlhidden.report import render_terminal_summary, write_reports, write_statistics

    results = load_results(run_dirs)
    footer = provenance_lines(results.provenance)
    tables = (results.units, out_dir, results.datasets, results.methods, results.unavailable)
    paths = write_reports(*tables, provenance=footer, std=std, notes=results.note_lines())
    if stats:
        paths += write_statistics(*tables, control=control)
    if html:
        from mlhidden.report.html import HTML_FILE, write_html

        paths.append(write_html(results, out_dir / HTML_FILE))
    click.echo(render_terminal_summary(results.units, results.datasets, results.methods, results.unavailable, std=std))
    for line in results.note_lines():
        click.echo(line)
    for line in footer:
        click.echo(f"provenance: {line}")
    click.echo(f"wrote {len(paths)} files to {out_dir}/")


def print_metrics(run_dirs: list, metrics, std: bool) -> None:
    """Print one table per metric from the stores alone, and why any method has no value."""
    from mlhidden.report import to_terminal
    from mlhidden.report.stored_metrics import stored_metrics

    results = stored_metrics(run_dirs, metrics)
    for name, result in results.items():
        if result.table is not None:
            click.echo(to_terminal(result.table, std=std))
        for line in result.note_lines():
            click.echo(f"{name}: {line}")
    for line in results.run_notes:
        click.echo(line)


@click.command()
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option("--out", type=click.Path(file_okay=False), default=None, help="Where to write the tables (default: the run directory; required to merge).")
@STATS
@CONTROL
@STD
@click.option(
    "--metric", "metrics", multiple=True, metavar="NAME",
    help="Only print the table of this metric, computed from the stored predictions (repeatable; e.g. ranking_loss, macro_auc).",
)
@click.option("--html", is_flag=True, help="Also write index.html: one self-contained page of tables, plots and provenance.")
def report(run_dirs, out, stats, control, std, metrics, html):
    """Rebuild every table of a run from its results store alone; several RUN_DIRS merge into one table.

    Merging puts methods run on different days or clusters side by side. Runs that split a
    shared dataset differently (run seed, splits, train fraction or data) are refused.
    """
    if metrics and html:
        raise UserError("--html writes the page of every stored metric; --metric only prints tables", hint="drop --metric")
    if metrics:
        print_metrics([Path(d) for d in run_dirs], metrics, std)
        return
    if len(run_dirs) > 1 and out is None:
        raise UserError("merging several runs needs --out DIR for the merged tables", hint="each run directory keeps its own tables")
    write_and_print([Path(d) for d in run_dirs], Path(out) if out else Path(run_dirs[0]), stats, control, std, html)
