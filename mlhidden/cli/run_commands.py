"""The commands that compute: ``run``, ``splits``, ``init`` (the study's: :mod:`mlhidden.cli.paper_commands`)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from mlhidden.cli.endings import StopSignals
from mlhidden.cli.options import CONTROL, DATA_DIR, HTML, LABELS, PRECISION, SECONDS, STATS, STD
from mlhidden.cli.report_commands import write_and_print
from mlhidden.experiment.backends import BACKENDS


@click.command()
@click.option(
    "--config",
    "config_path",
    default=None,
    type=click.Path(dir_okay=False),
    help="Run config: a YAML file, or a shipped config by name (paper, own_method, ...); or give -d and -m instead.",
)
@click.option(
    "-d",
    "--dataset",
    "datasets",
    multiple=True,
    metavar="NAME",
    help="A dataset (name or ARFF path), without --config; repeatable.",
)
@click.option(
    "-m",
    "--method",
    "methods",
    multiple=True,
    metavar="NAME",
    help="A method (name or import path), without --config; repeatable. "
    "NAME[param=value,base=NAME,base.param=value] sets parameters and the base learner.",
)
@click.option(
    "--label", "method_labels", multiple=True, metavar="TEXT",
    help="The table column of the -m at the same position (repeatable; '' keeps the default).",
)
@click.option(
    "--protocol", default=None, metavar="KIND[:K]",
    help="holdout (random 60/40 splits, the default), kfold:K or stratified_kfold:K (overrides the config).",
)
@click.option(
    "--n-jobs", type=int, default=None, help="Parallel units (-1 = all cores; default from config, else all)."
)
@DATA_DIR
@click.option(
    "--out", type=click.Path(file_okay=False), default=None,
    help="Run directory (default results/<config name>); it names a run from -d/-m."
)
@click.option("--splits", type=int, default=None, help="Number of random 60/40 splits (overrides the config).")
@click.option("--seed", type=int, default=None, help="Run seed (overrides the config).")
@click.option("--fresh", is_flag=True, help="Discard stored units and start over (default: resume).")
@click.option(
    "--narrow",
    is_flag=True,
    help="Let a command asking for a part of the run stored in --out make its tables and run.json of that part only "
    "(the other units stay stored).",
)
@LABELS
@click.option(
    "--backend", type=click.Choice(BACKENDS), default="loky", show_default=True,
    help="Where units compute: loky processes on this machine, or the dask cluster at --scheduler.",
)
@click.option(
    "--scheduler",
    default=None,
    metavar="ADDRESS",
    help="Address of a running dask scheduler (tcp://HOST:8786), for --backend dask.",
)
@click.option(
    "--no-shared-fits",
    "share_fits",
    is_flag=True,
    flag_value=False,
    default=True,
    help="Every method fits all its parts itself "
    "(default: reuse identical fits made by other methods on the same split).",
)
@click.option(
    "--reuse", "reuse_from", multiple=True, type=click.Path(file_okay=False),
    help="A run directory whose finished units with the same key are copied instead of computed (repeatable).",
)
@click.option("-v", "--verbose", is_flag=True, help="One line per finished unit.")
@click.option("-q", "--quiet", is_flag=True, help="Plain progress lines every 30 s instead of the live bar.")
@STATS
@CONTROL
@STD
@PRECISION
@HTML
@click.option(
    "--dry-run", is_flag=True, help="Print the plan (units to compute, units stored, expected cost) and run nothing."
)
@click.option(
    "--timeout", type=SECONDS, default=None, metavar="SECONDS",
    help="Stop a unit computing for longer and store it as failed with that reason; the run goes on.",
)
def run(**given):
    """Run every unit of a config not already stored, then write the tables.

    The config is a YAML file (--config), or the datasets and methods given as -d and -m (the
    same run a file listing them describes). Progress goes to stderr: a live bar on a terminal,
    plain periodic lines otherwise. Ctrl-C, SIGTERM or SIGHUP stops cleanly: finished units stay stored,
    and the same command resumes.
    """
    from mlhidden.cli.progress import RunProgress, announce
    from mlhidden.experiment.run_options import RunOptions
    from mlhidden.runs.provenance import read_run_json, stored_precision

    options = RunOptions(**given)  # the Python API's one object: what follows is what it offers a caller
    config = options.config()
    run_dir = options.run_dir(config)
    if options.control is not None:
        from mlhidden.report.significance_tests import check_control

        check_control(options.control, [method.label for method in config.methods])
    if options.dry_run:
        _print_plan(config, run_dir, options.fresh, options.backend, options.scheduler,
                    [Path(d) for d in options.reuse_from])
        return
    precision = options.precision
    if precision is None:
        precision = stored_precision({str(run_dir): read_run_json(run_dir)})
    stop = StopSignals()
    summary = None
    bar = False if options.quiet else None
    # Loading its datasets and drawing its splits comes before the first unit.
    announce("planning the run…", bar=bar)
    try:
        with stop:
            with RunProgress(bar=bar, verbose=options.verbose) as progress:
                summary = options.execute(config, run_dir, on_start=progress.start, on_unit=progress.unit)
            for name, reason in summary.unavailable.items():
                click.echo(f"{name}: {reason}", err=True)
            if not summary.interrupted:
                _end_run(
                    summary, run_dir, config.metrics, stats=options.stats, control=options.control, std=options.std,
                    precision=precision, html=options.html,
                )
                return
    except KeyboardInterrupt:
        pass
    stop.exit_interrupted(
        f"the units finished so far are stored in {run_dir}"
        if summary is None
        else f"{summary.n_skipped + summary.n_done} of {summary.n_units} units are stored in {run_dir}"
    )


def _end_run(summary, run_dir: Path, metrics, *, stats, control, std, precision, html) -> None:
    """After the units: what ran and what went wrong, then the tables; exit 1 if a unit failed or was not run.

    Called inside the command's :class:`StopSignals`, so Ctrl-C while the tables are written ends as
    an interrupted run too (the units are all stored; the same command writes the tables)."""
    copied = (
        f" ({sum(summary.reused_units.values())} copied from {', '.join(summary.reused_units)})"
        if summary.reused_units
        else ""
    )
    at_once = f", {summary.workers} unit(s) at once" if summary.n_done else ""
    click.echo(
        f"{summary.n_done} unit(s) run, {summary.n_skipped} already stored{copied}, {summary.n_failed} failed, "
        f"{summary.seconds:.1f} s{at_once}.",
        err=True,
    )
    for line in summary.problem_lines():
        click.echo(line, err=True)
    if summary.not_run:
        click.echo(
            f"{len(summary.not_run)} unit(s) not run: {summary.not_run_reason}; re-run the same command to run them.",
            err=True,
        )
    from mlhidden.runs.provenance import remember_precision

    remember_precision(run_dir, precision)
    write_and_print([run_dir], run_dir, stats=stats, control=control, std=std, precision=precision, html=html)
    if metrics:
        write_and_print([run_dir], None, metrics=metrics, std=std, precision=precision)
    if summary.n_failed or summary.not_run:
        sys.exit(1)


def _print_plan(config, run_dir: Path, fresh: bool, backend: str, scheduler, reuse_from: list[Path]) -> None:
    """``--dry-run``: what the run would compute and what it would cost, nothing written."""
    from mlhidden.cli.progress import format_duration
    from mlhidden.experiment.backends import ExecutionBackend, worker_count
    from mlhidden.experiment.costs import UNIT_OVERHEAD_SECONDS, wall_seconds
    from mlhidden.experiment.plan_preview import preview_plan
    from mlhidden.experiment.runner import plan_run
    from mlhidden.report.formats import listing

    preview = preview_plan(plan_run(config), run_dir, fresh=fresh, reuse_from=reuse_from)
    stored = preview.n_units - preview.n_to_compute
    click.echo(
        f"plan for {run_dir}: {preview.n_units} units, {preview.n_to_compute} to compute, {stored} already stored"
    )
    rows = [
        {**row, "s per unit": f"{row['s per unit']:.3g} s", "expected s": f"{row['expected s']:.3g} s"}
        for row in preview.rows
    ]
    click.echo(listing(rows, tablefmt="simple"))
    for name, reason in preview.unavailable.items():
        click.echo(f"{name}: {reason}")
    with ExecutionBackend(backend, scheduler) as executor:
        slots = executor.slots(config.n_jobs, config.n_jobs_origin)
    parallel = worker_count(config.n_jobs, slots, preview.n_to_compute)
    click.echo(
        f"expected compute time: {format_duration(preview.expected_seconds)} of unit time, about "
        f"{format_duration(wall_seconds(preview.expected_seconds, preview.n_to_compute, parallel))} "
        f"with {parallel} unit(s) at once (priors fitted on stored runs, rescaled to this machine's where there are "
        f"some, and {UNIT_OVERHEAD_SECONDS} s per unit to hand it out and store it; 'estimate' says what each rests on)"
    )
    click.echo("nothing was run (--dry-run)")


@click.command("splits")
@click.option("--config", "config_path", required=True, type=click.Path(dir_okay=False), help="Run config (YAML).")
@DATA_DIR
@LABELS
def splits_command(config_path, data_dir, labels):
    """Each dataset's test parts under the config's protocol, without running anything.

    Per part: its rows, the positives of the dataset's rarest label in it, and how many labels
    have no positive in it (per-label measures such as macro F1 and macro AUC are undefined there).
    """
    from mlhidden.experiment.config import load_config
    from mlhidden.experiment.runner import load_datasets
    from mlhidden.report.formats import listing
    from mlhidden.runs.splits import label_coverage

    config = load_config(config_path, labels=labels, data_dir=data_dir)
    plans, unavailable = load_datasets(config)
    for plan in plans:
        rows = label_coverage(plan.splits, plan.dataset.Y)
        rarest = rows[0]["rarest_label"]
        name = (
            "-"
            if rarest is None
            else f"{plan.dataset.label_names[rarest]} ({int(plan.dataset.Y[:, rarest].sum())} positives in all)"
        )
        counts = [row["rarest_label_positives"] for row in rows]
        click.echo(f"{plan.name}: {config.protocol.describe(config.train_fraction)}; rarest label {name}")
        click.echo(listing(rows))
        if rarest is not None:
            click.echo(
                f"rarest label per test part: min {min(counts)}, max {max(counts)}; "
                "parts where some label has no positive: "
                f"{sum(row['labels_without_positive'] > 0 for row in rows)} of {len(rows)}\n"
            )
    for name, reason in unavailable.items():
        click.echo(f"{name}: {reason}", err=True)


@click.command()
@click.argument("path", required=False, default=None, type=click.Path(dir_okay=False))
@click.option(
    "--from", "shipped", default=None, metavar="NAME",
    help="Write the shipped config NAME (paper, own_method, claims, ...) instead, to PATH (default NAME.yaml).",
)
def init(path, shipped):
    """Write a commented template run config to PATH (default mlhidden.yaml), or a shipped one (--from); it runs as
    written."""
    from mlhidden.experiment.template import DEFAULT_PATH, write_template

    written = write_template(path or (DEFAULT_PATH if shipped is None else f"{shipped}.yaml"), shipped)
    click.echo(f"wrote {written}: edit it, then run `mlhidden run --config {written}`")
