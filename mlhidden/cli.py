"""The command line: a thin layer over functions that are all callable from Python."""

from __future__ import annotations

import signal
import sys
import warnings
from pathlib import Path

import click
from tabulate import tabulate

from mlhidden import __version__
from mlhidden.errors import InputWarning, UserError
from mlhidden.experiment.backends import BACKENDS


class _Group(click.Group):
    """Turns a ``UserError`` into one line on stderr and exit code 2 — never a traceback — and a
    warning about the user's input into one ``warning:`` line."""

    def invoke(self, ctx):
        with warnings.catch_warnings():
            default_show = warnings.showwarning

            def show(message, category, *args, **kwargs):
                if issubclass(category, InputWarning):
                    click.echo(f"warning: {message}", err=True)
                else:
                    default_show(message, category, *args, **kwargs)

            warnings.showwarning = show
            try:
                return super().invoke(ctx)
            except UserError as exc:
                click.echo(f"error: {exc}", err=True)
                ctx.exit(2)


@click.group(cls=_Group)
@click.version_option(__version__, prog_name="mlhidden")
def cli():
    """Run the experiments of 'Multi-label Classification using Labels as Hidden Nodes'."""


def _write_and_print(run_dirs: list, out_dir: Path, stats: bool = False, control: str | None = None, std: bool = False) -> None:
    """Write the tables of one run, or of several merged, into ``out_dir`` and print them with a provenance footer."""
    from mlhidden.experiment.provenance import provenance_lines
    from mlhidden.experiment.store import load_results
    from mlhidden.report import render_terminal_summary, write_reports, write_statistics

    results = load_results(run_dirs)
    footer = provenance_lines(results.provenance)
    tables = (results.units, out_dir, results.datasets, results.methods, results.unavailable)
    paths = write_reports(*tables, provenance=footer, std=std)
    if stats:
        paths += write_statistics(*tables, control=control)
    click.echo(render_terminal_summary(results.units, results.datasets, results.methods, results.unavailable, std=std))
    if results.missing:
        click.echo(f"{results.missing} unit(s) of this config are not in the store yet: re-run the same command to finish them.")
    for line in footer:
        click.echo(f"provenance: {line}")
    click.echo(f"wrote {len(paths)} files to {out_dir}/")


class _StopSignals:
    """While active, SIGTERM stops a run the way Ctrl-C does: both raise ``KeyboardInterrupt``.

    The runner answers that by keeping every stored unit and returning, so a job scheduler's
    SIGTERM loses no finished work either. ``signum`` is the signal that arrived (exit code 128 + it).
    """

    def __init__(self):
        self.signum = signal.SIGINT
        self._previous = {}

    def _stop(self, signum, frame):
        self.signum = signum
        raise KeyboardInterrupt

    def __enter__(self):
        self._previous = {s: signal.signal(s, self._stop) for s in (signal.SIGINT, signal.SIGTERM)}
        return self

    def __exit__(self, *exc_info):
        for s, handler in self._previous.items():
            signal.signal(s, handler)


_LABELS = click.option(
    "--labels", type=int, default=None, metavar="N",
    help="Label count of datasets given as ARFF paths: the first N attributes, or the last |N| if negative (supplies or overrides -C).",
)
_STATS = click.option("--stats", is_flag=True, help="Also write statistics.md/.json and critical-difference diagrams (Friedman, Nemenyi, Wilcoxon-Holm).")
_CONTROL = click.option("--control", default=None, help="Control method for the Wilcoxon tests (default: best average rank).")
_STD = click.option("--std", is_flag=True, help="Show cells as 'mean ± std rank' (standard deviation over the splits) in the text tables.")


@cli.command()
@click.option("--config", "config_path", required=True, type=click.Path(dir_okay=False), help="Run config (YAML).")
@click.option("--n-jobs", type=int, default=None, help="Parallel units (-1 = all cores; default from config, else all).")
@click.option("--data-dir", type=click.Path(file_okay=False), default=None, help="Dataset folder (else $MLHIDDEN_DATA, else ./datasets).")
@click.option("--out", type=click.Path(file_okay=False), default=None, help="Run directory (default results/<config name>).")
@click.option("--splits", type=int, default=None, help="Number of random 60/40 splits (overrides the config).")
@click.option("--seed", type=int, default=None, help="Run seed (overrides the config).")
@click.option("--fresh", is_flag=True, help="Discard stored units and start over (default: resume).")
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
@click.option("-v", "--verbose", is_flag=True, help="One line per finished unit.")
@click.option("-q", "--quiet", is_flag=True, help="Plain progress lines every 30 s instead of the live bar.")
@_STATS
@_CONTROL
@_STD
def run(config_path, n_jobs, data_dir, out, splits, seed, fresh, labels, backend, scheduler, share_fits, verbose, quiet, stats, control, std):
    """Run every unit of a config not already stored, then write the tables.

    Progress goes to stderr: a live bar on a terminal, plain periodic lines otherwise. Ctrl-C or
    SIGTERM stops cleanly: finished units stay stored, and the same command resumes.
    """
    from mlhidden.experiment.config import load_config
    from mlhidden.experiment.progress import RunProgress
    from mlhidden.experiment.runner import MAX_ATTEMPTS, run_experiment

    config = load_config(config_path, splits=splits, seed=seed, n_jobs=n_jobs, labels=labels)
    run_dir = Path(out) if out else Path("results") / config.name
    stop = _StopSignals()
    try:
        with stop, RunProgress(bar=False if quiet else None, verbose=verbose) as progress:
            summary = run_experiment(
                config, run_dir, data_dir=data_dir, fresh=fresh, on_start=progress.start, on_unit=progress.unit,
                backend=backend, scheduler=scheduler, share_fits=share_fits,
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
    click.echo(
        f"{summary.n_done} unit(s) run, {summary.n_skipped} already stored, {summary.n_failed} failed, "
        f"{summary.seconds:.1f} s.",
        err=True,
    )
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
def report(run_dirs, out, stats, control, std):
    """Rebuild every table of a run from its results store alone; several RUN_DIRS merge into one table.

    Merging puts methods run on different days or clusters side by side. Runs that split a
    shared dataset differently (run seed, splits, train fraction or data) are refused.
    """
    if len(run_dirs) > 1 and out is None:
        raise UserError("merging several runs needs --out DIR for the merged tables", hint="each run directory keeps its own tables")
    _write_and_print([Path(d) for d in run_dirs], Path(out) if out else Path(run_dirs[0]), stats, control, std)


@cli.command()
@click.option("--quick", is_flag=True, help="3 splits, datasets with N x D <= 1.5M, 10 synthetic datasets of each kind: minutes, not hours.")
@click.option("--out", type=click.Path(file_okay=False), default=None, help="Output folder (default results/, or results/quick/ with --quick).")
@click.option("--data-dir", type=click.Path(file_okay=False), default=None, help="Dataset folder (else $MLHIDDEN_DATA, else ./datasets).")
@click.option("--n-jobs", type=int, default=None, help="Parallel units (-1 = all cores; default from each config, else all).")
@click.option("--configs", "config_dir", type=click.Path(file_okay=False), default="configs", show_default=True, help="Folder holding the paper's configs.")
@click.option("-q", "--quiet", is_flag=True, help="Plain progress lines every 30 s instead of the live bar.")
def reproduce(quick, out, data_dir, n_jobs, config_dir, quiet):
    """Run every paper config, then write REPORT.md (tables next to the paper's, claims C1-C8), tables and figures.

    Each config runs into OUT/<config name>/ and resumes what is stored there, like `mlhidden run`.
    """
    from mlhidden.experiment.progress import RunProgress
    from mlhidden.report.paper import REPORT_FILE
    from mlhidden.report.reproduction import reproduce as reproduce_paper

    def progress(name):
        click.echo(f"== {name}", err=True)
        return RunProgress(bar=False if quiet else None)

    out_dir = Path(out) if out else Path("results") / ("quick" if quick else "")
    stop = _StopSignals()
    try:
        with stop:
            result = reproduce_paper(out_dir, quick=quick, data_dir=data_dir, n_jobs=n_jobs, config_dir=config_dir, progress=progress)
    except KeyboardInterrupt:
        result = None
    if result is None or result.interrupted:
        click.echo(f"interrupted: the units finished so far are stored under {out_dir}; re-run the same command to resume.", err=True)
        sys.exit(128 + stop.signum)
    click.echo(f"wrote {out_dir / REPORT_FILE} and {len(result.paths) - 1} more files in {result.seconds:.0f} s")
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
@click.option("--data-dir", type=click.Path(file_okay=False), default=None, help="Dataset folder (else $MLHIDDEN_DATA, else ./datasets).")
@click.option("--n-jobs", type=int, default=None, help="Parallel units (-1 = all cores; default from each config, else all).")
@click.option("--configs", "config_dir", type=click.Path(file_okay=False), default="configs", show_default=True, help="Folder holding the runs' configs.")
@click.option("-q", "--quiet", is_flag=True, help="Plain progress lines every 30 s instead of the live bar.")
def sensitivity(config_path, quick, only, out, data_dir, n_jobs, config_dir, quiet):
    """Run the paper's claim-bearing configs once per base-learner setting into OUT/<setting>/<run>/.

    Resumes what is stored, like `mlhidden run`; OUT/settings.json names each setting.
    """
    from mlhidden.experiment.progress import RunProgress
    from mlhidden.experiment.sensitivity import MANIFEST_FILE, load_sensitivity, run_sensitivity

    def progress(name):
        click.echo(f"== {name}", err=True)
        return RunProgress(bar=False if quiet else None)

    out_dir = Path(out) if out else Path("results") / ("quick" if quick else "") / "sensitivity"
    stop = _StopSignals()
    try:
        with stop:
            manifest = run_sensitivity(
                load_sensitivity(config_path), out_dir, config_dir=config_dir, quick=quick, only=only or None,
                data_dir=data_dir, n_jobs=n_jobs, progress=progress,
            )
    except KeyboardInterrupt:
        manifest = None
    if manifest is None or manifest.get("interrupted"):
        click.echo(f"interrupted: the units finished so far are stored under {out_dir}; re-run the same command to resume.", err=True)
        sys.exit(128 + stop.signum)
    click.echo(f"wrote {len(manifest['settings'])} setting(s) under {out_dir} ({MANIFEST_FILE})")


@cli.group(cls=_Group)
def datasets():
    """The dataset registry: list, verify checksums, inspect, fetch from a mirror."""


_DATA_DIR = click.option("--data-dir", type=click.Path(file_okay=False), default=None, help="Dataset folder (else $MLHIDDEN_DATA, else ./datasets).")


@datasets.command("list")
@_DATA_DIR
def datasets_list(data_dir):
    """Every registered dataset with availability, N, L, D and label cardinality."""
    from mlhidden.data import dataset_table

    click.echo(tabulate(dataset_table(data_dir), headers="keys", tablefmt="github", floatfmt=".2f"))


@datasets.command("verify")
@click.argument("names", nargs=-1)
@_DATA_DIR
def datasets_verify(names, data_dir):
    """Check the sha256 of every dataset file present; exit 1 on a mismatch."""
    from mlhidden.data import verify_datasets

    rows = verify_datasets(data_dir, names or None)
    click.echo(tabulate(rows, headers="keys", tablefmt="github"))
    if any(r["status"] == "checksum mismatch" for r in rows):
        sys.exit(1)


@datasets.command("info")
@click.argument("name")
@_DATA_DIR
@_LABELS
def datasets_info(name, data_dir, labels):
    """Load one dataset (registry name, generator or ARFF path) and describe it."""
    from mlhidden.data import load_dataset

    data = load_dataset(name, data_dir=data_dir, params=None if labels is None else {"labels": labels})
    density = data.X.nnz / max(data.X.shape[0] * data.X.shape[1], 1) if data.is_sparse else None
    rows = [
        ("name", data.name), ("source", data.source or "generated"), ("sha256", data.checksum),
        ("N", data.n_samples), ("L", data.n_labels), ("D", data.n_features),
        ("label cardinality", f"{data.label_cardinality:.2f}"),
        ("X", f"sparse CSR, density {density:.4f}" if data.is_sparse else "dense"),
        ("distinct label vectors", len({row.tobytes() for row in data.Y})),
        ("labels", ", ".join(data.label_names)),
    ]
    click.echo(tabulate(rows, tablefmt="plain"))


@datasets.command("fetch")
@click.argument("names", nargs=-1)
@click.option("--mirror", required=True, metavar="URL_OR_DIR", help="Folder or http(s) base URL holding the dataset files.")
@_DATA_DIR
def datasets_fetch(names, mirror, data_dir):
    """Copy or download dataset files from a mirror into the data path, refusing checksum mismatches."""
    from mlhidden.data import copy_from_mirror

    click.echo(tabulate(copy_from_mirror(mirror, data_dir, names or None), headers="keys", tablefmt="github"))


@cli.command()
def methods():
    """Every method known by name, where it comes from, its parameters and defaults."""
    from mlhidden.methods.base_learners import BASE_LEARNERS
    from mlhidden.methods.registry import registered_methods

    rows = []
    for name, entry in registered_methods().items():
        params = ", ".join(f"{k}={v!r}" for k, v in entry.defaults().items()) or "-"
        rows.append((name, entry.source, entry.summary, params, entry.base if entry.takes_base else "-"))
    click.echo(tabulate(rows, headers=("method", "source", "what it is", "parameters (defaults)", "base learner"), tablefmt="github"))
    click.echo("\nany other estimator with fit(X, Y) and predict(X) by import path, e.g. sklearn.neighbors.KNeighborsClassifier or mypkg.module:MyMethod")
    click.echo(f"base learners: {', '.join(BASE_LEARNERS)}, or any scikit-learn classifier by import path")


main = cli
