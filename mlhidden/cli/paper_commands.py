"""The commands that run the paper's study: ``reproduce`` (every paper config, then REPORT.md),
``sensitivity`` (the claim-bearing configs once per base-learner setting) and ``multiverse`` (once per
distinct setting and split seed).

They run configs as ``mlhidden run`` does (:mod:`mlhidden.cli.run_commands`), through
:mod:`mlhidden.paper`, and stop on Ctrl-C or SIGTERM the same way.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from mlhidden.cli.endings import StopSignals
from mlhidden.cli.options import DATA_DIR
from mlhidden.shipped import config_folder

CONFIGS_HELP = (
    "Folder holding the paper's configs (default: ./configs if there is one, else those shipped with mlhidden)."
)


@click.command()
@click.option(
    "--quick",
    is_flag=True,
    help="3 splits, datasets with N x D <= 1.5M, 10 synthetic datasets of each kind: minutes, not hours.",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    help="Output folder (default results/, or results/quick/ with --quick).",
)
@DATA_DIR
@click.option(
    "--n-jobs",
    type=int,
    default=None,
    help="Parallel units, then refits, tables and figures (-1 = all cores; default from each config, else all).",
)
@click.option("--configs", "config_dir", type=click.Path(file_okay=False), default=None, help=CONFIGS_HELP)
@click.option(
    "--setting",
    default=None,
    help="Make the main tables under this setting of sensitivity.yaml instead of the one the primary rule names "
    "(e.g. a faster one).",
)
@click.option("-q", "--quiet", is_flag=True, help="Plain progress lines every 30 s instead of the live bar.")
def reproduce(quick, out, data_dir, n_jobs, config_dir, setting, quiet):
    """Run every paper config, then write REPORT.md (tables next to the paper's, claims C1-C11), tables and figures.

    Each config runs into OUT/<config name>/ and resumes what is stored there, like `mlhidden run`.
    """
    from mlhidden.cli.progress import RunProgress, announce

    # Loading the study, its datasets and configs takes seconds before the first line of a stage.
    announce("planning the paper's runs…", bar=False if quiet else None)
    from mlhidden.paper.reference import REPORT_FILE
    from mlhidden.paper.reproduction import reproduce as reproduce_paper
    from mlhidden.report.html import HTML_FILE

    def progress(name, stage, estimate):
        click.echo(f"== {stage}: {name}", err=True)
        return RunProgress(bar=False if quiet else None, estimate=estimate, stage=stage)

    out_dir = Path(out) if out else Path("results") / ("quick" if quick else "")
    config_dir = config_folder(config_dir)
    stop = StopSignals()
    try:
        with stop:
            result = reproduce_paper(
                out_dir,
                quick=quick,
                data_dir=data_dir,
                n_jobs=n_jobs,
                config_dir=config_dir,
                setting=setting,
                progress=progress,
            )
    except KeyboardInterrupt:
        result = None
    if result is None or result.interrupted:
        stop.exit_interrupted(f"the units finished so far are stored under {out_dir}")
    for name, summary in result.summaries.items():
        for line in summary.problem_lines():
            click.echo(f"{name}: {line}", err=True)
    if result.n_failed:
        click.echo(
            f"{result.n_failed} unit(s) failed or were not run: see the run tables; "
            "re-run the same command to retry them.",
            err=True,
        )
    click.echo(f"wrote {len(result.paths)} files under {out_dir}/ in {result.seconds:.0f} s")
    click.echo(f"report: {out_dir / REPORT_FILE}")
    click.echo(f"results page: {out_dir / HTML_FILE}")
    if result.n_failed:
        sys.exit(1)


@click.command()
@click.option(
    "--config", "config_path", type=click.Path(dir_okay=False), default=None,
    help="Sensitivity config (runs and settings; default: sensitivity.yaml in the configs folder).",
)
@click.option("--quick", is_flag=True, help="The config's quick slice: a few datasets, 2 splits.")
@click.option("--setting", "only", multiple=True, help="Run only this setting (repeatable; default: all).")
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    help="Output folder (default results/sensitivity/, quick: results/quick/sensitivity/).",
)
@DATA_DIR
@click.option(
    "--n-jobs", type=int, default=None, help="Parallel units (-1 = all cores; default from each config, else all)."
)
@click.option("--configs", "config_dir", type=click.Path(file_okay=False), default=None, help=CONFIGS_HELP)
@click.option(
    "--reuse",
    "reuse_dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Folder of the main runs whose identical units are copied, not recomputed "
    "(default results/, quick: results/quick/).",
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
    config_dir = config_folder(config_dir)
    config_path = config_path or config_dir / "sensitivity.yaml"
    stop = StopSignals()
    try:
        with stop:
            manifest = run_sensitivity(
                load_sensitivity(config_path),
                out_dir,
                config_dir=config_dir,
                quick=quick,
                only=only or None,
                data_dir=data_dir,
                n_jobs=n_jobs,
                progress=progress,
                reuse_dir=Path(reuse_dir) if reuse_dir else results,
            )
    except KeyboardInterrupt:
        manifest = None
    if manifest is None or manifest.get("interrupted"):
        stop.exit_interrupted(f"the units finished so far are stored under {out_dir}")
    click.echo(f"wrote {len(manifest['settings'])} setting(s) under {out_dir} ({MANIFEST_FILE})")


@click.command()
@click.option(
    "--config", "config_path", type=click.Path(dir_okay=False), default=None,
    help="Multiverse config (blocks of runs x settings x seeds; default: multiverse.yaml in the configs folder).",
)
@click.option("--quick", is_flag=True, help="The sensitivity config's quick slice: a few datasets, 2 splits.")
@click.option("--dry-run", is_flag=True, help="Say what each piece and the whole multiverse cost in CPU-hours.")
@click.option(
    "--only", multiple=True,
    help="Only the pieces of this setting, run or seed (e.g. seed1; repeatable: kinds combine, names of one kind add).",
)
@click.option(
    "--out", type=click.Path(file_okay=False), default=None,
    help="Output folder (default results/multiverse/, quick: results/quick/multiverse/).",
)
@DATA_DIR
@click.option(
    "--n-jobs", type=int, default=None, help="Parallel units (-1 = all cores; default from each config, else all)."
)
@click.option("--configs", "config_dir", type=click.Path(file_okay=False), default=None, help=CONFIGS_HELP)
@click.option(
    "--reuse", "reuse_dir", type=click.Path(file_okay=False), default=None,
    help="Folder of the main runs and sensitivity/ whose identical seed-0 units are copied "
    "(default results/, quick: results/quick/).",
)
@click.option("-q", "--quiet", is_flag=True, help="Plain progress lines every 30 s instead of the live bar.")
def multiverse(config_path, quick, dry_run, only, out, data_dir, n_jobs, config_dir, reuse_dir, quiet):
    """Run the claim-bearing configs once per distinct setting and split seed into OUT/<setting>/seed<k>/<run>/.

    Settings under which a run is the same computation are one piece (OUT/multiverse.json names what
    each stands for). A finished piece is skipped, an interrupted one resumes; each writes its units.csv.
    """
    from mlhidden.cli.progress import RunProgress
    from mlhidden.paper.multiverse_claims import write_multiverse_claims
    from mlhidden.paper.multiverse_runs import (
        MANIFEST_FILE,
        load_multiverse,
        merge_lines,
        plan_pieces,
        run_multiverse,
        select_pieces,
    )
    from mlhidden.paper.primary_setting import primary_by_rule

    results = Path("results") / ("quick" if quick else "")
    out_dir = Path(out) if out else results / "multiverse"
    reuse = Path(reuse_dir) if reuse_dir else results
    config_dir = config_folder(config_dir)
    study = load_multiverse(config_path or config_dir / "multiverse.yaml")
    if dry_run:
        from mlhidden.paper.multiverse_cost import cost_summary, cost_table, multiverse_cost

        everything = plan_pieces(study, config_dir, quick, data_dir=data_dir, n_jobs=n_jobs)
        pieces = select_pieces(everything, only, study)
        settings = [setting.name for setting in study.sensitivity.settings]
        costs = multiverse_cost(pieces, out_dir, settings, reuse, everything)
        click.echo(cost_table(costs).to_string(index=False))
        for line in merge_lines(pieces):
            click.echo(f"merged: {line}")
        click.echo(cost_summary(costs))
        return

    def progress(name):
        click.echo(f"== {name}", err=True)
        return RunProgress(bar=False if quiet else None)

    stop = StopSignals()
    try:
        with stop:
            manifest = run_multiverse(
                study, out_dir, config_dir=config_dir, quick=quick, only=only, data_dir=data_dir, n_jobs=n_jobs,
                progress=progress, reuse_dir=reuse,
            )
    except KeyboardInterrupt:
        manifest = None
    if manifest is None or manifest.get("interrupted"):
        stop.exit_interrupted(f"the units finished so far are stored under {out_dir}")
    finished = sum(entry["status"] == "finished" for entry in manifest["pieces"])
    click.echo(f"{finished} of {len(manifest['pieces'])} piece(s) finished under {out_dir} ({MANIFEST_FILE})")
    primary = primary_by_rule(study.sensitivity.settings)
    written = write_multiverse_claims(out_dir, primary.name if primary is not None else None)
    if written:
        click.echo(f"the claims over the multiverse: {written[0]} and {len(written) - 1} figure file(s)")
