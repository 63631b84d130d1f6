"""Everything ``mlhidden run`` is told, in one typed object: :class:`RunOptions`.

The command line builds it once from its options and hands it on; a Python caller builds the same
object to run what the command runs (``RunOptions(datasets=("Logical",), methods=("BR",)).run()``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

from mlhidden.errors import UserError
from mlhidden.experiment.config import RunConfig, config_from_options, load_config
from mlhidden.experiment.run_directory import check_run_path
from mlhidden.experiment.run_summary import RunSummary, UnitCallback
from mlhidden.experiment.runner import StartCallback, run_experiment
from mlhidden.io import PathLike


@dataclass(frozen=True)
class RunOptions:
    """The options of ``mlhidden run``, each with the command's default (``mlhidden run --help`` says what each does).

    The config is ``config_path``'s, or the one ``datasets`` and ``methods`` (with their ``method_labels``)
    describe; ``splits``, ``seed``, ``n_jobs``, ``labels``, ``protocol`` and ``data_dir`` override it, and
    ``timeout`` is its units' time limit (:meth:`config`). ``out`` is the run directory (:meth:`run_dir`).
    ``fresh``, ``narrow``, ``backend``, ``scheduler``, ``share_fits`` and ``reuse_from`` go to the runner
    (:meth:`execute`). The rest say what the command shows and writes around the run: its progress
    (``verbose``, ``quiet``), its tables (``stats``, ``control``, ``std``, ``precision``, ``html``), or only
    the plan (``dry_run``).
    """

    config_path: PathLike | None = None
    datasets: tuple[PathLike, ...] = ()
    methods: tuple[str, ...] = ()
    method_labels: tuple[str, ...] = ()
    protocol: str | None = None
    n_jobs: int | None = None
    data_dir: PathLike | None = None
    out: PathLike | None = None
    splits: int | None = None
    seed: int | None = None
    fresh: bool = False
    narrow: bool = False
    labels: int | None = None
    backend: str = "loky"
    scheduler: str | None = None
    share_fits: bool = True
    reuse_from: tuple[PathLike, ...] = ()
    verbose: bool = False
    quiet: bool = False
    stats: bool = False
    control: str | None = None
    std: bool = False
    precision: int | None = None
    html: bool = False
    dry_run: bool = False
    timeout: float | None = None

    def config(self) -> RunConfig:
        """The run's config: ``config_path``'s, or the one of ``datasets`` and ``methods``, named after the ``out``
        folder where one is given (so that run.json names the folder it is in); the overrides applied."""
        if self.config_path is not None and (self.datasets or self.methods):
            raise UserError(
                "give the datasets and methods either in --config FILE or as -d/-m, not both",
                hint="edit the config, or drop --config",
            )
        if self.config_path is not None and self.method_labels:
            raise UserError(
                "--label names the -m methods; with --config, set 'label' in the file", hint="drop --label"
            )
        if self.config_path is not None:
            config = load_config(
                self.config_path, splits=self.splits, seed=self.seed, n_jobs=self.n_jobs, labels=self.labels,
                protocol=self.protocol, data_dir=self.data_dir,
            )
        elif self.datasets and self.methods:
            folder = Path(os.path.abspath(self.out)).name if self.out else None
            config = config_from_options(
                self.datasets, self.methods, method_labels=self.method_labels, name=folder or None, splits=self.splits,
                seed=self.seed, n_jobs=self.n_jobs, labels=self.labels, protocol=self.protocol, data_dir=self.data_dir,
            )
        else:
            raise UserError(
                "nothing to run: give --config FILE, or at least one -d DATASET and one -m METHOD",
                hint="`mlhidden init` writes a template config",
            )
        return replace(config, unit_timeout=self.timeout)

    def run_dir(self, config: RunConfig) -> Path:
        """The run directory, ``out`` or ``results/<config name>``, checked before anything is computed there."""
        run_dir = Path(self.out) if self.out else Path("results") / config.name
        if self.out:
            hint = "give a shorter --out"
        elif config.source is None:
            hint = "give --out DIR"
        else:
            hint = f"shorten 'name' in {config.source}, or give --out DIR"
        check_run_path(run_dir, hint)
        return run_dir

    def execute(
        self, config: RunConfig, run_dir: Path, *, on_start: StartCallback | None = None,
        on_unit: UnitCallback | None = None,
    ) -> RunSummary:
        """Run ``config``'s units into ``run_dir`` (:func:`~mlhidden.experiment.runner.run_experiment`) with these
        options' runner settings."""
        return run_experiment(
            config, run_dir, fresh=self.fresh, on_start=on_start, on_unit=on_unit, backend=self.backend,
            scheduler=self.scheduler, share_fits=self.share_fits, reuse_from=[Path(d) for d in self.reuse_from],
            narrow=self.narrow,
        )

    def run(self, *, on_start: StartCallback | None = None, on_unit: UnitCallback | None = None) -> RunSummary:
        """What ``mlhidden run`` computes for these options, from Python: the units, stored in :meth:`run_dir`.
        The command's tables are then the report's of that folder (``mlhidden report``)."""
        config = self.config()
        return self.execute(config, self.run_dir(config), on_start=on_start, on_unit=on_unit)
