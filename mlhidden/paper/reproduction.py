"""Reproduce the paper in one call: run its configs, refit what the report needs, write the report.

:func:`reproduce` runs ``configs/<name>.yaml`` for every name in
:data:`~mlhidden.paper.reference.PAPER_CONFIGS` into ``<out>/<name>/`` (resuming what is already
stored), under the base-learner setting of ``configs/sensitivity.yaml`` that the primary rule
(:mod:`mlhidden.paper.primary_setting`) names (units
the sensitivity study already computed under it are copied from ``<out>/sensitivity/``). After the
last unit, :func:`write_outputs` refits the few units whose per-label accuracies the report needs
(:mod:`mlhidden.paper.refits`), then writes each run's own tables, REPORT.md
(:func:`~mlhidden.paper.report_md.report_job`) and index.html, on the same workers as the units.
"""

from __future__ import annotations

import json
import platform
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mlhidden import RunSummary, load_config, run_experiment
from mlhidden.errors import UserError
from mlhidden.experiment import (
    ExecutionBackend,
    RunEstimate,
    check_run_path,
    machine_slowdown,
    planned_stage,
    worker_count,
)
from mlhidden.io import write_text
from mlhidden.paper.claims import DecidedClaims
from mlhidden.paper.cost_table import paper_cost_priors
from mlhidden.paper.html_page import index_html_job
from mlhidden.paper.parallel_jobs import FINISH_SECONDS, STEP_SECONDS, Job, run_jobs, step_times
from mlhidden.paper.primary_setting import primary_by_rule
from mlhidden.paper.reference import (
    LABEL_ACCURACY_FILE,
    LABEL_ACCURACY_REFITS,
    PAPER_CONFIGS,
    QUICK,
    RUN_LOG_FILE,
    read_run_log,
)
from mlhidden.paper.refits import label_accuracy_job
from mlhidden.paper.report_md import Findings, report_job
from mlhidden.paper.setting_folders import claim_folders
from mlhidden.paper.settings import SENSITIVITY_DIR, Setting, load_sensitivity
from mlhidden.report import write_reports, write_score_metric_tables
from mlhidden.runs import load_results, machine, now, package_versions, provenance_lines, read_run_json

SENSITIVITY_CONFIG = "sensitivity.yaml"
REPORT_STAGE = ("report", "report")
"""The report phase's one "unit" in the run's estimate (its cell: a dataset and a method label)."""
REPORT_PRIOR_SECONDS = {True: 16.0, False: 46.0}
"""The report phase's expected wall seconds, quick or not, before a folder has timed its own (reproduction.json's
``report_seconds``): as a 2-core machine timed them, the quick one idle, the full one at the end of a whole
reproduction. Like the units' priors, it is rescaled by the pace the units show (a loaded machine slows the
report too); a phase the folder has timed is this machine's own wall time, and is not."""
UNIT_PHASE_TIMES = ("unit_phase_seconds", "worker_start_seconds")
"""The :class:`~mlhidden.experiment.runner.RunSummary` times each run's entry in reproduction.json keeps."""


@dataclass
class Reproduction:
    """What :func:`reproduce` did: the run summaries by config name, the files written, the time taken."""

    out_dir: Path
    summaries: dict = field(default_factory=dict)
    paths: list = field(default_factory=list)
    seconds: float = 0.0
    interrupted: bool = False

    @property
    def n_failed(self) -> int:
        return sum(summary.n_failed + len(summary.not_run) for summary in self.summaries.values())


def paper_configs(
    config_dir="configs", names=PAPER_CONFIGS, quick: bool = False, setting: Setting | None = None, **options
) -> list:
    """Load and validate the paper's configs (all of them, before anything runs), shrunk for ``quick``,
    under ``setting`` if given (``options``: ``data_dir`` and ``n_jobs``, as for :func:`load_config`)."""
    config_dir = Path(config_dir)
    configs = []
    for name in names:
        path = config_dir / f"{name}.yaml"
        if not path.is_file():
            raise UserError("paper config not found", path=path, hint="run from the project root or pass --configs DIR")
        config = load_config(path, **options) if setting is None else setting.load(path, **options)
        configs.append(QUICK.shrink(config) if quick else config)
    return configs


def reproduce(
    out_dir="results",
    *,
    quick: bool = False,
    data_dir=None,
    n_jobs=None,
    config_dir="configs",
    names=PAPER_CONFIGS,
    setting: str | None = None,
    progress: Callable | None = None,
) -> Reproduction:
    """Run the paper's configs into ``out_dir/<name>/``, then write the report, tables and figures.

    Parameters
    ----------
    out_dir : str or os.PathLike
        Where the run directories, REPORT.md, ``tables/`` and ``figures/`` go.
    quick : bool
        Shrink every config with :data:`~mlhidden.paper.reference.QUICK` (3 splits, small datasets,
        fewer synthetic datasets).
    data_dir : str or os.PathLike, optional
        The dataset folder (see :func:`mlhidden.data.resolve_data_dir`).
    n_jobs : int, optional
        Parallel units, default from each config, else all cores; then the workers that compute the
        report's pieces (:func:`write_outputs`), default all cores.
    config_dir : str or os.PathLike
        The folder holding ``<name>.yaml`` for each of ``names``, and ``sensitivity.yaml``
        whose setting named by the primary rule, if any, is applied to each of them.
    names : sequence of str
        The configs to run, by file name without ``.yaml``.
    setting : str, optional
        A setting of ``sensitivity.yaml`` to make the main tables under instead of the one the
        primary rule names (e.g. a faster one); the report says it was asked for.
    progress : callable, optional
        ``progress(config_name, stage, estimate)`` returns a context manager whose value has the
        runner's ``start`` and ``unit`` callbacks (e.g. :class:`~mlhidden.cli.progress.RunProgress`);
        ``stage`` reads ``stage k/n``, and ``estimate`` is one
        :class:`~mlhidden.experiment.eta.RunEstimate` over every config's units, for one ETA.

    Returns
    -------
    Reproduction
        With ``interrupted`` set (and no report written) when a run was interrupted.
    """
    out_dir = Path(out_dir)
    main_setting, primary, setting_dirs = _main_setting(Path(config_dir) / SENSITIVITY_CONFIG, setting, out_dir)
    configs = paper_configs(config_dir, names, quick, main_setting, data_dir=data_dir, n_jobs=n_jobs)
    for config in configs:
        check_run_path(out_dir / config.name, "give a shorter --out")
    result = Reproduction(out_dir)
    started, started_at = time.perf_counter(), now()
    earlier = read_run_log(out_dir)
    earlier_runs = earlier["runs"] if earlier and earlier["quick"] == quick else {}
    setting_log = _setting_log(main_setting, primary, configs)
    log: dict[str, Any] = {"quick": quick, "started_at": started_at, "runs": {}, "setting": setting_log}
    timed = earlier.get("report_seconds") if earlier and earlier["quick"] == quick else None
    report_prior = float(timed or REPORT_PRIOR_SECONDS[quick])
    estimate = None
    if progress is not None:
        estimate = _run_estimate(configs, out_dir, setting_dirs, n_jobs, report_prior, timed is not None)
    n_stages = len(configs) + 1  # the report phase is the last
    if not _run_stages(configs, out_dir, setting_dirs, progress, estimate, earlier_runs, result, log):
        result.interrupted = True
        result.seconds = time.perf_counter() - started
        return result
    result.seconds = time.perf_counter() - started
    log.update(_runs_end(log, result.seconds))
    write_text(out_dir / RUN_LOG_FILE, json.dumps(log, indent=2, sort_keys=True) + "\n")
    with _shown(progress, "report", f"stage {n_stages}/{n_stages}", estimate) as shown:
        result.paths += _report_phase(
            out_dir, [config.name for config in configs], setting_dirs, shown, report_prior, log,
            data_dir=data_dir, n_jobs=n_jobs,
        )
    write_text(out_dir / RUN_LOG_FILE, json.dumps(log, indent=2, sort_keys=True) + "\n")  # its report time too
    result.seconds = time.perf_counter() - started  # the report phase included
    return result


def _setting_log(main_setting: Setting | None, primary: Setting | None, configs: list) -> dict[str, Any] | None:
    """reproduction.json's entry for the setting the runs are made under: the manifest's entry, what it adjusted
    in the configs, and whether the primary rule names it; None without one."""
    if main_setting is None:
        return None
    adjustments = [note for config in configs for note in config.adjustments]
    return {**main_setting.manifest_entry(), "adjustments": adjustments, "is_primary": main_setting == primary}


def _runs_end(log: dict[str, Any], seconds: float) -> dict[str, Any]:
    """What reproduction.json adds once the runs are done: their end, times, and the machine and packages."""
    return {
        "finished_at": now(),
        "invocation_seconds": seconds,
        "wall_seconds": sum(r["wall_seconds"] for r in log["runs"].values()),
        "machine": machine(),
        "packages": package_versions(),
        "python": platform.python_version(),
    }


def _run_stages(
    configs: list, out_dir: Path, setting_dirs: list[Path], progress: Callable | None, estimate: RunEstimate | None,
    earlier_runs: dict[str, Any], result: Reproduction, log: dict[str, Any],
) -> bool:
    """Run each config into ``out_dir/<name>/``, one stage each, its summary kept in ``result`` and its entry in
    ``log``; False as soon as one is interrupted."""
    n_stages = len(configs) + 1  # the report phase is the last
    for stage, config in enumerate(configs, start=1):
        run_started = time.perf_counter()
        with _shown(progress, config.name, f"stage {stage}/{n_stages}", estimate) as shown:
            summary = run_experiment(
                config, out_dir / config.name, reuse_from=[folder / config.name for folder in setting_dirs],
                on_start=getattr(shown, "start", None), on_unit=getattr(shown, "unit", None),
                priors=paper_cost_priors(),
            )
        result.summaries[config.name] = summary
        if summary.interrupted:
            return False
        wall = time.perf_counter() - run_started if summary.n_done else 0.0
        earlier_run = earlier_runs.get(config.name, {}) if summary.n_skipped else {}
        log["runs"][config.name] = _run_entry(summary, wall, earlier_run)
    return True


def _shown(progress: Callable | None, name: str, stage: str, estimate: RunEstimate | None) -> Any:
    """The progress display of one stage, as a context manager (one whose value is None without ``progress``)."""
    return progress(name, stage, estimate) if progress is not None else nullcontext()


def _main_setting(
    sensitivity_path: Path, setting: str | None, out_dir: Path
) -> tuple[Setting | None, Setting | None, list[Path]]:
    """The setting the main runs are made under (``setting`` if asked for, else the one the primary rule
    names), the primary one, and each setting's folder under ``out_dir``; None, None, [] without a
    sensitivity config."""
    sensitivity = load_sensitivity(sensitivity_path) if sensitivity_path.is_file() else None
    if sensitivity is None:
        if setting is not None:
            raise UserError(
                f"setting '{setting}' asked for, but there is no sensitivity config", path=sensitivity_path,
                hint="pass --configs DIR holding sensitivity.yaml",
            )
        return None, None, []
    primary = primary_by_rule(sensitivity.settings)
    main_setting = sensitivity.setting(setting) if setting is not None else primary
    return main_setting, primary, [out_dir / SENSITIVITY_DIR / s.name for s in sensitivity.settings]


def _run_estimate(
    configs: list, out_dir: Path, setting_dirs: list[Path], n_jobs: int | None, report_prior: float, timed: bool
) -> RunEstimate:
    """One estimate over every config's units and the report phase (``timed``: by this folder before), for one
    ETA across the stages."""
    stages, setup = [], []
    for config in configs:
        planning = time.perf_counter()
        donors = [folder / config.name for folder in setting_dirs]
        stages.append(planned_stage(config, out_dir / config.name, paper_cost_priors(), donors))
        setup.append(time.perf_counter() - planning)  # the runner plans each stage again before its first unit
    stages.append([(REPORT_STAGE, report_prior)])
    slots = ExecutionBackend().slots()
    workers = worker_count(n_jobs, slots, sum(map(len, stages)))
    slowdown = machine_slowdown(workers, slots)
    return RunEstimate(stages, workers, setup, measured=[REPORT_STAGE] if timed else [], slowdown=slowdown)


def _report_phase(
    out_dir: Path, run_names: list, setting_dirs: list[Path], shown: Any, report_prior: float,
    log: dict[str, Any], *, data_dir: Any, n_jobs: int | None,
) -> list:
    """:func:`write_outputs`, shown as the one unit of the last stage (``shown``: the progress display, or
    None), its wall time kept in ``log``; returns the files written."""
    report_started = time.perf_counter()
    if shown is not None:
        shown.start(1, 0, pending=[(REPORT_STAGE, report_prior)], workers=1, what="steps")
    on_step = getattr(shown, "step", None)
    paths = write_outputs(out_dir, run_names, setting_dirs, data_dir=data_dir, n_jobs=n_jobs, on_step=on_step)
    log["report_seconds"] = round(time.perf_counter() - report_started, 1)
    if shown is not None:
        dataset, label = REPORT_STAGE
        row = {"dataset": dataset, "label": label, "split": 0, "status": "ok", "error": ""}
        shown.finished({**row, "train_seconds": log["report_seconds"]}, shown.total, shown.total)
    return paths


def _run_entry(summary: RunSummary, wall_seconds: float, earlier: dict[str, Any]) -> dict[str, Any]:
    """A run's entry in reproduction.json: its units, its ``wall_seconds`` (this invocation's, planning and
    setup included), its ``unit_phase_seconds`` (from the first unit handed out to the last stored) and
    ``worker_start_seconds`` (until the workers took the first; both: see
    :class:`~mlhidden.experiment.runner.RunSummary`), each with ``earlier``'s added: the entry of the
    invocations that computed the units this one skipped. Those an earlier entry lacks are left out, unknown."""
    entry: dict[str, Any] = {"wall_seconds": wall_seconds + earlier.get("wall_seconds", 0.0)}
    for name in UNIT_PHASE_TIMES:
        if not earlier or name in earlier:
            entry[name] = getattr(summary, name) + earlier.get(name, 0.0)
    return {**entry, "units": summary.unit_counts()}


def write_outputs(out_dir, names, setting_dirs=(), *, data_dir=None, n_jobs=None, on_step=None) -> list:
    """What :func:`reproduce` writes after its last unit, its pieces computed on ``n_jobs`` workers
    (:func:`~mlhidden.paper.parallel_jobs.run_jobs`): the refits first, since the report reads them;
    then the tables of each run in ``names``, REPORT.md with its tables and figures, and index.html.
    The claims of ``out_dir``'s runs and of each finished setting's are decided once
    (:class:`~mlhidden.paper.claims.DecidedClaims`), and REPORT.md and the page are handed the same; the
    page is handed REPORT.md's audit and diagnoses too (:class:`~mlhidden.paper.report_md.Findings`).

    ``on_step(done, total, reached, upto)`` is called as each piece is done: the refits' calls, reading
    the runs for the report, each run folder's claims, the report's sections, the page's views, each
    run's tables and each job's finish; ``reached`` is the share of the phase's expected time gone when that step ends,
    ``upto`` when the next one does (:func:`~mlhidden.paper.parallel_jobs.step_times`: the steps are
    weighed by their kinds). Until the runs are read, the report's pieces count as two steps a job and
    weigh what the quick report's did.

    Returns the files written, in the order a sequential pass writes them; their bytes do not depend on ``n_jobs``.
    """
    out_dir = Path(out_dir)
    refitted = [name for name in names if name in LABEL_ACCURACY_REFITS]
    refits = [label_accuracy_job(out_dir / name, *LABEL_ACCURACY_REFITS[name], data_dir) for name in refitted]
    setting_refits = setting_refit_jobs(setting_dirs, data_dir)
    times = step_times(refits + setting_refits, n_jobs)
    unread = sum(seconds for kind, seconds in STEP_SECONDS.items() if kind != "_refit_rows")
    times += [times[-1] if times else 0.0] * (1 + 2 * (len(names) + 3))
    times[-1] += unread + (len(names) - 1) * STEP_SECONDS["_write_run_tables"]
    done = [0]

    def step() -> None:
        done[0] += 1
        if on_step is not None:
            reached, upto = times[done[0] - 1] / times[-1], times[min(done[0], len(times) - 1)] / times[-1]
            on_step(done[0], len(times), reached, upto)

    accuracy_paths = run_jobs(refits + setting_refits, n_jobs, step)
    tables = [_run_tables_job(out_dir / name) for name in names]
    # The claims go first (the report and the page read them in their finishes), then the report's long
    # sections; the run tables fill in after them.
    jobs = [*report_and_page_jobs(out_dir, data_dir), *tables]
    built = times[done[0] - 1] if done[0] else 0.0
    times[done[0]:] = [built + FINISH_SECONDS, *step_times(jobs, n_jobs, built + FINISH_SECONDS)]
    step()
    _, report_paths, html_path, *table_paths = run_jobs(jobs, n_jobs, step)
    by_run = {name: [path] for name, path in zip(refitted, accuracy_paths)}
    paths = [path for name, run_paths in zip(names, table_paths) for path in [*run_paths, *by_run.get(name, [])]]
    return paths + accuracy_paths[len(refitted):] + report_paths + [html_path]


def report_and_page_jobs(out_dir, data_dir=None) -> list[Job]:
    """The job deciding the claims of ``out_dir``'s runs and of each finished setting's (once), REPORT.md's
    job and index.html's, in the order they must run: the report and the page read the claims in their
    finishes, and the page is handed the report's findings (:class:`~mlhidden.paper.report_md.Findings`)."""
    claims = DecidedClaims(claim_folders(out_dir))
    findings: list[Findings] = []
    report = report_job(out_dir, claims, data_dir, findings.append)
    return [claims.job(), report, index_html_job(out_dir, claims, findings)]


def setting_refit_jobs(setting_dirs, data_dir=None) -> list:
    """The refits of :data:`~mlhidden.paper.reference.LABEL_ACCURACY_REFITS` for each sensitivity
    setting's finished runs that lack them, as jobs, so the claims they decide (C8) are decided under
    every setting too. A run still running, or refitted before, is left as it is."""
    jobs = []
    for folder in setting_dirs:
        for name, (groups, methods) in LABEL_ACCURACY_REFITS.items():
            run_dir = Path(folder) / name
            run_json = read_run_json(run_dir)
            if (
                run_json is not None
                and run_json.get("status") == "finished"
                and not (run_dir / LABEL_ACCURACY_FILE).is_file()
            ):
                jobs.append(label_accuracy_job(run_dir, groups, methods, data_dir=data_dir))
    return jobs


def _run_tables_job(run_dir) -> Job:
    """A run's own tables (:func:`_write_run_tables`) and, for the paper run, its ranking and
    probability measures (:func:`~mlhidden.report.stored_metrics.write_score_metric_tables`)."""
    run_dir = Path(run_dir)
    calls: list = [(_write_run_tables, run_dir)]
    if run_dir.name == "paper":
        calls.append((_listed, write_score_metric_tables, run_dir))
    return Job(calls)


def _listed(function, *args) -> list:
    return [function(*args)]


def _write_run_tables(run_dir) -> list:
    """A run's own tables (CSV, LaTeX, Markdown; see :func:`~mlhidden.report.write_reports`)."""
    results = load_results(run_dir)
    return write_reports(
        results.units, run_dir, results.datasets, results.methods, results.unavailable,
        provenance=provenance_lines(results.provenance), notes=results.note_lines(),
    )
