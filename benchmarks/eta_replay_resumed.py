"""The ETA of one resumed run replayed at its units' real finish times, from its store alone.

``python -m benchmarks.eta_replay_resumed RUN_DIR SETTING [CONFIG]`` (e.g. a copy of a sensitivity
run's ``paper`` folder, ``g_forest_10_trees``) rebuilds the store as the run found it (the units
that finished before its ``run.json`` ``started_at``), plans the rest in dispatch order, and feeds
:class:`~mlhidden.experiment.eta.RunEstimate` each unit the run computed at the second it was
stored (``finished_at``), with its own seconds, as ``RunProgress`` does; the ETA is sampled every
``--every`` seconds into the :mod:`benchmarks.eta_accuracy` table. It reads ``RUN_DIR`` only.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import tempfile
from datetime import datetime
from pathlib import Path

from benchmarks.eta_accuracy import Run, Sample, table
from mlhidden.experiment.eta import RunEstimate, planned_stage
from mlhidden.paper.cost_table import paper_cost_priors
from mlhidden.paper.reproduction import paper_configs
from mlhidden.paper.settings import load_sensitivity

WORKERS = 2


def replay(run_dir: Path, setting_name: str, config_name: str, every: float) -> Run:
    started = json.loads((run_dir / "run.json").read_text())["started_at"]
    began = datetime.fromisoformat(started)
    setting = next(s for s in load_sensitivity("configs/sensitivity.yaml").settings if s.name == setting_name)
    config = next(c for c in paper_configs("configs", setting=setting) if c.name == config_name)
    with sqlite3.connect(run_dir / "store.sqlite") as db:
        rows = db.execute(
            "SELECT dataset, label, train_seconds + test_seconds, finished_at FROM units"
            " WHERE finished_at >= ? ORDER BY finished_at, rowid", (started,)
        ).fetchall()
    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(run_dir / "run.json", folder)
        shutil.copy(run_dir / "store.sqlite", folder)
        with sqlite3.connect(Path(folder) / "store.sqlite") as db:
            db.execute("DELETE FROM units WHERE finished_at >= ?", (started,))
        units = planned_stage(config, folder, priors=paper_cost_priors())
    estimate = RunEstimate([units], WORKERS)
    estimate.start_stage(units, 0.0, WORKERS)
    samples, tick, end = [Sample(0.0, "", estimate.remaining(0.0))], 0.0, 0.0
    for dataset, label, seconds, finished_at in rows:
        end = (datetime.fromisoformat(finished_at) - began).total_seconds()
        while tick + every < end:
            tick += every
            samples.append(Sample(tick, "", estimate.remaining(tick)))
        estimate.finished((dataset, label), seconds, end)
    samples.append(Sample(end, "", estimate.remaining(end)))
    return Run(samples)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path, help="a run folder (store.sqlite, run.json); read only")
    parser.add_argument("setting", help="the sensitivity setting it ran under")
    parser.add_argument("config", nargs="?", default="paper", help="the paper config it ran (default paper)")
    parser.add_argument("--every", type=float, default=30.0, help="seconds between samples (default 30)")
    args = parser.parse_args(argv)
    print("\n".join(table(replay(args.run_dir, args.setting, args.config, args.every))))


if __name__ == "__main__":
    main()
