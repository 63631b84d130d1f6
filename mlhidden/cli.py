"""The command line: a thin layer over functions that are all callable from Python."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from tabulate import tabulate

from mlhidden import __version__
from mlhidden.errors import UserError


class _Group(click.Group):
    """Turns a ``UserError`` into one line on stderr and exit code 2 — never a traceback."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except UserError as exc:
            click.echo(f"error: {exc}", err=True)
            ctx.exit(2)


@click.group(cls=_Group)
@click.version_option(__version__, prog_name="mlhidden")
def cli():
    """Run the experiments of 'Multi-label Classification using Labels as Hidden Nodes'."""


def _progress(quiet: bool):
    def report(row, done, total):
        if quiet:
            return
        status = "ok" if row["status"] == "ok" else "FAILED: " + row["error"].splitlines()[0]
        seconds = (row.get("train_seconds") or 0) + (row.get("test_seconds") or 0)
        click.echo(f"[{done:>{len(str(total))}}/{total}] {row['dataset']} · {row['label']} · split {row['split']}: {status} ({seconds:.2f} s)", err=True)

    return report


def _write_and_print(run_dir: Path, stats: bool = False, control: str | None = None) -> None:
    from mlhidden.experiment.store import load_results
    from mlhidden.report import render_terminal_summary, write_reports, write_statistics

    results = load_results(run_dir)
    tables = (results.units, run_dir, results.datasets, results.methods, results.unavailable)
    paths = write_reports(*tables)
    if stats:
        paths += write_statistics(*tables, control=control)
    click.echo(render_terminal_summary(results.units, results.datasets, results.methods, results.unavailable))
    if results.missing:
        click.echo(f"{results.missing} unit(s) of this config are not in the store yet: re-run the same command to finish them.")
    click.echo(f"wrote {len(paths)} files to {run_dir}/")


_STATS = click.option("--stats", is_flag=True, help="Also write statistics.md/.json and critical-difference diagrams (Friedman, Nemenyi, Wilcoxon-Holm).")
_CONTROL = click.option("--control", default=None, help="Control method for the Wilcoxon tests (default: best average rank).")


@cli.command()
@click.option("--config", "config_path", required=True, type=click.Path(dir_okay=False), help="Run config (YAML).")
@click.option("--n-jobs", type=int, default=None, help="Parallel units (-1 = all cores; default from config, else all).")
@click.option("--data-dir", type=click.Path(file_okay=False), default=None, help="Dataset folder (else $MLHIDDEN_DATA, else ./datasets).")
@click.option("--out", type=click.Path(file_okay=False), default=None, help="Run directory (default results/<config name>).")
@click.option("--splits", type=int, default=None, help="Number of random 60/40 splits (overrides the config).")
@click.option("--seed", type=int, default=None, help="Run seed (overrides the config).")
@click.option("--fresh", is_flag=True, help="Discard stored units and start over (default: resume).")
@click.option("-q", "--quiet", is_flag=True, help="No per-unit progress lines.")
@_STATS
@_CONTROL
def run(config_path, n_jobs, data_dir, out, splits, seed, fresh, quiet, stats, control):
    """Run every unit of a config not already stored, then write the tables."""
    from mlhidden.experiment.config import load_config
    from mlhidden.experiment.runner import run_experiment

    config = load_config(config_path, splits=splits, seed=seed, n_jobs=n_jobs)
    run_dir = Path(out) if out else Path("results") / config.name
    summary = run_experiment(config, run_dir, data_dir=data_dir, fresh=fresh, on_unit=_progress(quiet))
    for name, reason in summary.unavailable.items():
        click.echo(f"{name}: {reason}", err=True)
    if summary.interrupted:
        click.echo(
            f"interrupted: {summary.n_skipped + summary.n_done} of {summary.n_units} units are stored in {run_dir}; "
            "re-run the same command to resume.",
            err=True,
        )
        sys.exit(130)
    click.echo(
        f"{summary.n_done} unit(s) run, {summary.n_skipped} already stored, {summary.n_failed} failed, "
        f"{summary.seconds:.1f} s.",
        err=True,
    )
    _write_and_print(run_dir, stats, control)
    if summary.n_failed:
        sys.exit(1)


@cli.command()
@click.argument("run_dir", type=click.Path(file_okay=False))
@_STATS
@_CONTROL
def report(run_dir, stats, control):
    """Rebuild every table of a run from its results store alone."""
    _write_and_print(Path(run_dir), stats, control)


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
def datasets_info(name, data_dir):
    """Load one dataset (registry name, generator or ARFF path) and describe it."""
    from mlhidden.data import load_dataset

    data = load_dataset(name, data_dir=data_dir)
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
@click.option("--mirror", required=True, type=click.Path(file_okay=False), help="Folder holding the dataset files.")
@_DATA_DIR
def datasets_fetch(names, mirror, data_dir):
    """Copy dataset files from a mirror folder into the data path, verifying checksums."""
    from mlhidden.data import copy_from_mirror

    click.echo(tabulate(copy_from_mirror(mirror, data_dir, names or None), headers="keys", tablefmt="github"))


@cli.command()
def methods():
    """Every registered method with its parameters and defaults."""
    from mlhidden.methods.registry import METHODS
    from mlhidden.methods.base_learners import BASE_LEARNERS

    rows = []
    for name, entry in METHODS.items():
        params = ", ".join(f"{k}={v!r}" for k, v in entry.defaults().items()) or "-"
        rows.append((name, entry.summary, params, entry.base if entry.takes_base else "-"))
    click.echo(tabulate(rows, headers=("method", "what it is", "parameters (defaults)", "base learner"), tablefmt="github"))
    click.echo(f"\nbase learners: {', '.join(BASE_LEARNERS)}, or any scikit-learn classifier by import path")


main = cli
