"""Time the report phase alone: what ``mlhidden reproduce`` writes after its last unit.

The phase (:func:`mlhidden.paper.reproduction.write_outputs`) runs on a fresh copy of a finished
reproduction, so every repetition starts from the same stores and rewrites the same files:

    python -m mlhidden reproduce --quick --out /tmp/rq --n-jobs 2 --quiet
    python -m benchmarks.report_phase /tmp/rq --n-jobs 2 --repeats 2

Wall seconds are the phase's; CPU seconds are user + system of this process and of its worker
processes (shut down and waited for before they are read), so they include starting the pool.
"""
import argparse
import resource
import shutil
import tempfile
import time
from pathlib import Path

from joblib.externals.loky import get_reusable_executor

from mlhidden.paper.reference import PAPER_CONFIGS
from mlhidden.paper.reproduction import write_outputs
from mlhidden.paper.sensitivity_section import SENSITIVITY_DIR
from mlhidden.paper.settings import load_sensitivity


def cpu_seconds() -> float:
    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def time_phase(source: Path, n_jobs: int, configs: Path) -> tuple:
    """Wall and CPU seconds of one report phase on a copy of ``source``, and the files it wrote."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / source.name
        shutil.copytree(source, out)
        settings = load_sensitivity(configs / "sensitivity.yaml").settings
        started_cpu, started = cpu_seconds(), time.perf_counter()
        paths = write_outputs(
            out, list(PAPER_CONFIGS), [out / SENSITIVITY_DIR / s.name for s in settings], n_jobs=n_jobs
        )
        wall = time.perf_counter() - started
        get_reusable_executor().shutdown(wait=True)
        return wall, cpu_seconds() - started_cpu, len(paths)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reproduction", type=Path, help="a finished reproduction's folder (mlhidden reproduce --out)")
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--configs", type=Path, default=Path("configs"))
    args = parser.parse_args()
    for repeat in range(1, args.repeats + 1):
        wall, cpu, files = time_phase(args.reproduction, args.n_jobs, args.configs)
        load = open("/proc/loadavg").read().split()[0]
        print(f"n_jobs {args.n_jobs}, repeat {repeat}: {files} files, wall {wall:.1f} s, cpu {cpu:.1f} s, load {load}")


if __name__ == "__main__":
    main()
