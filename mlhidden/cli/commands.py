"""The command line: a thin layer over functions that are all callable from Python."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from mlhidden import __version__
from mlhidden.cli.endings import OneLineErrors, StopSignals
from mlhidden.errors import UserError
from mlhidden.experiment.backends import BACKENDS

_DATA_DIR = click.option("--data-dir", type=click.Path(file_okay=False), default=None, help="Dataset folder (else $MLHIDDEN_DATA, else ./datasets).")


@click.group(cls=OneLineErrors)
@click.version_option(__version__, prog_name="mlhidden")
def cli():
    """Run the experiments of 'Multi-label Classification using Labels as Hidden Nodes'."""


def _write_and_print(
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


def _print_metrics(run_dirs: list, metrics, std: bool) -> None:
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


_LABELS = click.option(
    "--labels", type=int, default=None, metavar="N",
    help="Label count of datasets given as ARFF paths: the first N attributes, or the last |N| if negative (supplies or overrides -C).",
)
_STATS = click.option("--stats", is_flag=True, help="Also write statistics.md/.json and critical-difference diagrams (Friedman, Nemenyi, Wilcoxon-Holm).")
_CONTROL = click.option("--control", default=None, help="Control method for the Wilcoxon tests (default: best average rank).")
_STD = click.option("--std", is_flag=True, help="Show cells as 'mean ± std rank' (standard deviation over the splits) in the text tables.")


@cli.command()
@click.option("--config", "config_path", default=None, type=click.Path(dir_okay=False), help="Run config (YAML); or give -d and -m instead.")
@click.option("-d", "--dataset", "datasets", multiple=True, metavar="NAME", help="A dataset (name or ARFF path), without --config; repeatable.")
@click.option("-m", "--method", "methods", multiple=True, metavar="NAME", help="A method (name or import path), without --config; repeatable.")
@click.option("--n-jobs", type=int, default=None, help="Parallel units (-1 = all cores; default from config, else all).")
@_DATA_DIR
@click.option("--out", type=click.Path(file_okay=False), default=None, help="Run directory (default results/<config name>).")
@click.option("--splits", type=int, default=None, help="Number of random 60/40 splits (overrides the config).")
@click.option("--seed", type=int, default=None, help="Run seed (overrides the config).")
@click.option("--fresh", is_flag=True, help="Discard stored units and start over (default: resume).")
@click.option(
    "--narrow", is_flag=True,
    help="Let a command asking for a part of the run stored in --out make its tables and run.json of that part only (the other units stay stored).",
)
@_LABELS
@click.option(
    "--backend", type=click.Choice(BACKENDS), default="loky", show_default=True,
    help="Where units compute: loky processes on this machine, or the dask cluster at --scheduler.",
)
@click.option("--scheduler", default=None, metavar="ADDRESS", help="Address of a running dask scheduler (tcp://HOST:8786), for --backend dask.")
@click.option(
    "--no-shared-fits", "share_fits", is_flag=True, flag_value=False, default=True,
    help="Every method fits all its parts itself (default: reuse identical fits made by other methods on the same split).",
)
@click.option(
    "--reuse", "reuse_from", multiple=True, type=click.Path(file_okay=False),
    help="A run directory whose finished units with the same key are copied instead of computed (repeatable).",
)
@click.option("-v", "--verbose", is_flag=True, help="One line per finished unit.")
@click.option("-q", "--quiet", is_flag=True, help="Plain progress lines every 30 s instead of the live bar.")
@_STATS
@_CONTROL
@_STD
def run(
    config_path, datasets, methods, n_jobs, data_dir, out, splits, seed, fresh, narrow, labels, backend, scheduler, share_fits, reuse_from, verbose,
    quiet, stats, control, std,
):
    """Run every unit of a config not already stored, then write the tables.

    The config is a YAML file (--config), or the datasets and methods given as -d and -m (the
    same run a file listing them describes). Progress goes to stderr: a live bar on a terminal,
    plain periodic lines otherwise. Ctrl-C or SIGTERM stops cleanly: finished units stay stored,
    and the same command resumes.
    """
    from mlhidden.cli.progress import RunProgress
    from mlhidden.experiment.config import config_from_options, load_config
    from mlhidden.experiment.runner import MAX_ATTEMPTS, run_experiment

    overrides = {"splits": splits, "seed": seed, "n_jobs": n_jobs, "labels": labels}
    if config_path is not None and (datasets or methods):
        raise UserError("give the datasets and methods either in --config FILE or as -d/-m, not both", hint="edit the config, or drop --config")
    if config_path is not None:
        config = load_config(config_path, **overrides)
    elif datasets and methods:
        config = config_from_options(datasets, methods, **overrides)
    else:
        raise UserError("nothing to run: give --config FILE, or at least one -d DATASET and one -m METHOD", hint="`mlhidden init` writes a template config")
    run_dir = Path(out) if out else Path("results") / config.name
    stop = StopSignals()
    try:
        with stop, RunProgress(bar=False if quiet else None, verbose=verbose) as progress:
            summary = run_experiment(
                config, run_dir, data_dir=data_dir, fresh=fresh, on_start=progress.start, on_unit=progress.unit,
                backend=backend, scheduler=scheduler, share_fits=share_fits, reuse_from=[Path(d) for d in reuse_from], narrow=narrow,
            )
    except KeyboardInterrupt:
        click.echo(f"interrupted: the units finished so far are stored in {run_dir}; re-run the same command to resume.", err=True)
        sys.exit(128 + stop.signum)
    for name, reason in summary.unavailable.items():
        click.echo(f"{name}: {reason}", err=True)
    if summary.interrupted:
        click.echo(
            f"interrupted: {summary.n_skipped + summary.n_done} of {summary.n_units} units are stored in {run_dir}; "
            "re-run the same command to resume.",
            err=True,
        )
        sys.exit(128 + stop.signum)
    copied = f" ({sum(summary.reused_units.values())} copied from {', '.join(summary.reused_units)})" if summary.reused_units else ""
    click.echo(
        f"{summary.n_done} unit(s) run, {summary.n_skipped} already stored{copied}, {summary.n_failed} failed, "
        f"{summary.seconds:.1f} s.",
        err=True,
    )
    for line in summary.problem_lines():
        click.echo(line, err=True)
    if summary.not_run:
        click.echo(
            f"{len(summary.not_run)} unit(s) not run: their workers were lost on {MAX_ATTEMPTS} attempts; "
            "re-run the same command to run them.",
            err=True,
        )
    _write_and_print([run_dir], run_dir, stats, control, std)
    if summary.n_failed or summary.not_run:
        sys.exit(1)


@cli.command()
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option("--out", type=click.Path(file_okay=False), default=None, help="Where to write the tables (default: the run directory; required to merge).")
@_STATS
@_CONTROL
@_STD
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
        _print_metrics([Path(d) for d in run_dirs], metrics, std)
        return
    if len(run_dirs) > 1 and out is None:
        raise UserError("merging several runs needs --out DIR for the merged tables", hint="each run directory keeps its own tables")
    _write_and_print([Path(d) for d in run_dirs], Path(out) if out else Path(run_dirs[0]), stats, control, std, html)


@cli.command("splits")
@click.option("--config", "config_path", required=True, type=click.Path(dir_okay=False), help="Run config (YAML).")
@_DATA_DIR
@_LABELS
def splits_command(config_path, data_dir, labels):
    """Each dataset's test parts under the config's protocol, without running anything.

    Per part: its rows, the positives of the dataset's rarest label in it, and how many labels
    have no positive in it (per-label measures such as macro F1 and macro AUC are undefined there).
    """
    from mlhidden.experiment.config import load_config
    from mlhidden.experiment.protocols import label_coverage
    from mlhidden.experiment.runner import load_datasets
    from mlhidden.report.formats import listing

    config = load_config(config_path, labels=labels)
    plans, unavailable = load_datasets(config, data_dir)
    for plan in plans:
        rows = label_coverage(plan.splits, plan.dataset.Y)
        rarest = rows[0]["rarest_label"]
        name = "-" if rarest is None else f"{plan.dataset.label_names[rarest]} ({int(plan.dataset.Y[:, rarest].sum())} positives in all)"
        counts = [row["rarest_label_positives"] for row in rows]
        click.echo(f"{plan.name}: {config.protocol.describe(config.train_fraction)}; rarest label {name}")
        click.echo(listing(rows))
        if rarest is not None:
            click.echo(f"rarest label per test part: min {min(counts)}, max {max(counts)}; parts where some label has no positive: "
                       f"{sum(row['labels_without_positive'] > 0 for row in rows)} of {len(rows)}\n")
    for name, reason in unavailable.items():
        click.echo(f"{name}: {reason}", err=True)


@cli.command()
@click.argument("path", required=False, default=None, type=click.Path(dir_okay=False))
def init(path):
    """Write a commented template run config to PATH (default mlhidden.yaml); it runs as written."""
    from mlhidden.experiment.template import DEFAULT_PATH, write_template

    written = write_template(path or DEFAULT_PATH)
    click.echo(f"wrote {written}: edit it, then run `mlhidden run --config {written}`")


@cli.command()
@click.option("--quick", is_flag=True, help="3 splits, datasets with N x D <= 1.5M, 10 synthetic datasets of each kind: minutes, not hours.")
@click.option("--out", type=click.Path(file_okay=False), default=None, help="Output folder (default results/, or results/quick/ with --quick).")
@_DATA_DIR
@click.option("--n-jobs", type=int, default=None, help="Parallel units (-1 = all cores; default from each config, else all).")
@click.option("--configs", "config_dir", type=click.Path(file_okay=False), default="configs", show_default=True, help="Folder holding the paper's configs.")
@click.option(
    "--setting", default=None,
    help="Make the main tables under this setting of sensitivity.yaml instead of the one the primary rule names (e.g. a faster one).",
)
@click.option("-q", "--quiet", is_flag=True, help="Plain progress lines every 30 s instead of the live bar.")
def reproduce(quick, out, data_dir, n_jobs, config_dir, setting, quiet):
    """Run every paper config, then write REPORT.md (tables next to the paper's, claims C1-C8), tables and figures.

    Each config runs into OUT/<config name>/ and resumes what is stored there, like `mlhidden run`.
    """
    from mlhidden.cli.progress import RunProgress
    from mlhidden.paper.reference import REPORT_FILE
    from mlhidden.paper.reproduction import reproduce as reproduce_paper

    def progress(name, stage, estimate):
        click.echo(f"== {stage}: {name}", err=True)
        return RunProgress(bar=False if quiet else None, estimate=estimate, stage=stage)

    out_dir = Path(out) if out else Path("results") / ("quick" if quick else "")
    stop = StopSignals()
    try:
        with stop:
            result = reproduce_paper(
                out_dir, quick=quick, data_dir=data_dir, n_jobs=n_jobs, config_dir=config_dir, setting=setting, progress=progress,
            )
    except KeyboardInterrupt:
        result = None
    if result is None or result.interrupted:
        click.echo(f"interrupted: the units finished so far are stored under {out_dir}; re-run the same command to resume.", err=True)
        sys.exit(128 + stop.signum)
    click.echo(f"wrote {out_dir / REPORT_FILE} and {len(result.paths) - 1} more files in {result.seconds:.0f} s")
    for name, summary in result.summaries.items():
        for line in summary.problem_lines():
            click.echo(f"{name}: {line}", err=True)
    if result.n_failed:
        click.echo(f"{result.n_failed} unit(s) failed or were not run: see the run tables; re-run the same command to retry them.", err=True)
        sys.exit(1)


@cli.command()
@click.option(
    "--config", "config_path", type=click.Path(dir_okay=False), default="configs/sensitivity.yaml", show_default=True,
    help="Sensitivity config (runs and settings).",
)
@click.option("--quick", is_flag=True, help="The config's quick slice: a few datasets, 2 splits.")
@click.option("--setting", "only", multiple=True, help="Run only this setting (repeatable; default: all).")
@click.option("--out", type=click.Path(file_okay=False), default=None, help="Output folder (default results/sensitivity/, quick: results/quick/sensitivity/).")
@_DATA_DIR
@click.option("--n-jobs", type=int, default=None, help="Parallel units (-1 = all cores; default from each config, else all).")
@click.option("--configs", "config_dir", type=click.Path(file_okay=False), default="configs", show_default=True, help="Folder holding the runs' configs.")
@click.option(
    "--reuse", "reuse_dir", type=click.Path(file_okay=False), default=None,
    help="Folder of the main runs whose identical units are copied, not recomputed (default results/, quick: results/quick/).",
)
@click.option("-q", "--quiet", is_flag=True, help="Plain progress lines every 30 s instead of the live bar.")
def sensitivity(config_path, quick, only, out, data_dir, n_jobs, config_dir, reuse_dir, quiet):
    """Run the paper's claim-bearing configs once per base-learner setting into OUT/<setting>/<run>/.

    Resumes what is stored, like `mlhidden run`; OUT/settings.json names each setting. Units
    identical to those of the main runs (REUSE/<run>/) or of another setting are copied.
    """
    from mlhidden.cli.progress import RunProgress
    from mlhidden.paper.settings import MANIFEST_FILE, load_sensitivity, run_sensitivity

    def progress(name):
        click.echo(f"== {name}", err=True)
        return RunProgress(bar=False if quiet else None)

    results = Path("results") / ("quick" if quick else "")
    out_dir = Path(out) if out else results / "sensitivity"
    stop = StopSignals()
    try:
        with stop:
            manifest = run_sensitivity(
                load_sensitivity(config_path), out_dir, config_dir=config_dir, quick=quick, only=only or None,
                data_dir=data_dir, n_jobs=n_jobs, progress=progress, reuse_dir=Path(reuse_dir) if reuse_dir else results,
            )
    except KeyboardInterrupt:
        manifest = None
    if manifest is None or manifest.get("interrupted"):
        click.echo(f"interrupted: the units finished so far are stored under {out_dir}; re-run the same command to resume.", err=True)
        sys.exit(128 + stop.signum)
    click.echo(f"wrote {len(manifest['settings'])} setting(s) under {out_dir} ({MANIFEST_FILE})")


@cli.group(cls=OneLineErrors)
def datasets():
    """The dataset registry: list, verify checksums, inspect, fetch from a mirror."""



@datasets.command("list")
@_DATA_DIR
def datasets_list(data_dir):
    """Every registered dataset with availability, N, L, D and label cardinality."""
    from mlhidden.data import dataset_table
    from mlhidden.report.formats import listing

    click.echo(listing(dataset_table(data_dir)))


@datasets.command("verify")
@click.argument("names", nargs=-1)
@_DATA_DIR
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
@_DATA_DIR
@_LABELS
def datasets_info(name, data_dir, labels):
    """Load one dataset (registry name, generator or ARFF path) and describe it."""
    from mlhidden.data import load_dataset
    from mlhidden.report.formats import listing

    data = load_dataset(name, data_dir=data_dir, params=None if labels is None else {"labels": labels})
    click.echo(listing(data.description(), tablefmt="plain"))


@datasets.command("fetch")
@click.argument("names", nargs=-1)
@click.option("--mirror", required=True, metavar="URL_OR_DIR", help="Folder or http(s) base URL holding the dataset files.")
@_DATA_DIR
def datasets_fetch(names, mirror, data_dir):
    """Copy or download dataset files from a mirror into the data path, refusing checksum mismatches.

    NAMES are registry datasets, or file names of your own ARFF files in the mirror (copied with
    their Mulan NAME.xml, their sha256 printed)."""
    from mlhidden.data import copy_from_mirror
    from mlhidden.report.formats import listing

    click.echo(listing(copy_from_mirror(mirror, data_dir, names or None)))


@cli.command()
def methods():
    """Every method known by name, where it comes from, its parameters and defaults."""
    from mlhidden.methods.base_learners import BASE_LEARNERS
    from mlhidden.methods.registry import method_table
    from mlhidden.report.formats import listing

    click.echo(listing(method_table()))
    click.echo("\nany other estimator with fit(X, Y) and predict(X) by import path, e.g. sklearn.neighbors.KNeighborsClassifier or mypkg.module:MyMethod")
    click.echo(f"base learners: {', '.join(BASE_LEARNERS)}, or any scikit-learn classifier by import path")


main = cli
