"""The report phase on the runner's worker pool: the same files, byte for byte, whatever n_jobs.

The pool's order and warnings are checked with calls whose durations reverse their completion
order; the report phase on a small reproduction of real runs (the Logical problem and a 2-D
synthetic dataset, with refits and figures) run once sequentially and once on two workers.
"""

from __future__ import annotations

import os
import time
import warnings

import pytest

from mlhidden.paper.parallel_jobs import STEP_SECONDS, Job, run_jobs, step_times
from mlhidden.paper.reproduction import reproduce, write_outputs


def _after(seconds: float, value):
    time.sleep(seconds)
    return value, os.getpid()


def _warn_after(seconds: float, text: str):
    time.sleep(seconds)
    warnings.warn(text, UserWarning, stacklevel=1)
    return text


def test_results_come_back_in_call_order_from_worker_processes():
    first = Job([(_after, 0.6, "a"), (_after, 0.0, "b")], list)
    second = Job([(_after, 0.0, "c")], lambda results: [value for value, _ in results])
    firsts, seconds = run_jobs([first, second], n_jobs=2)
    assert [value for value, _ in firsts] == ["a", "b"] and seconds == ["c"]
    assert {pid for _, pid in firsts} - {os.getpid()}, "the calls ran in worker processes"


def test_warnings_are_raised_again_in_call_order_whatever_finishes_first():
    calls = [(_warn_after, 0.6, "slow one"), (_warn_after, 0.0, "fast one")]
    for n_jobs in (1, 2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert run_jobs([Job(calls, list)], n_jobs=n_jobs) == [["slow one", "fast one"]]
        assert [str(w.message) for w in caught] == ["slow one", "fast one"], n_jobs


LOGICAL = """name: logical
datasets: [Logical]
methods:
  - BR
  - {name: CC, label: CC (b), params: {order: [0, 1, 2]}}
splits: 2
seed: 0
shuffle_labels: false
"""

SYNTHETIC_2D = """name: synthetic_2d
datasets:
  - name: SyntheticComplex
    label: complex 2-D
    params: {n_samples: 200, n_features: 2, n_labels: 2, n_hidden: 10, random_state: 0}
methods:
  - BR
  - {name: CC, label: "CC (1,2)", params: {order: [0, 1]}}
  - {name: CC, label: "CC (2,1)", params: {order: [1, 0]}}
splits: 2
train_fraction: 0.5
seed: 0
shuffle_labels: false
"""


def test_the_report_phase_writes_the_same_bytes_on_two_workers_as_in_one_process(tmp_path):
    configs = tmp_path / "configs"
    configs.mkdir()
    (configs / "logical.yaml").write_text(LOGICAL)
    (configs / "synthetic_2d.yaml").write_text(SYNTHETIC_2D)
    names = ("logical", "synthetic_2d")
    out = tmp_path / "out"
    result = reproduce(out, config_dir=configs, names=names, n_jobs=1)
    assert result.n_failed == 0
    sequential = {path: path.read_bytes() for path in result.paths}
    assert {out / "synthetic_2d" / "label_accuracy.csv", out / "figures" / "synthetic_2d.png"} <= set(sequential)
    for path in result.paths:
        path.unlink()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        paths = write_outputs(out, names, n_jobs=2)
    assert paths == result.paths
    for path in paths:
        assert path.read_bytes() == sequential[path], path
    assert not caught


@pytest.mark.parametrize("n_jobs", [None, -1, 99])
def test_any_n_jobs_runs_on_at_most_the_cores(n_jobs):
    (results,) = run_jobs([Job([(_after, 0.0, i) for i in range(3)], list)], n_jobs=n_jobs)
    assert [value for value, _ in results] == [0, 1, 2]


def _variants_section():
    """Named as the report's dearest kind of call."""


def _refit_rows():
    """Named as the report's cheapest kind of call."""


def test_the_steps_are_weighed_by_kind_and_a_cheap_one_behind_a_dear_one_comes_back_with_it(monkeypatch):
    """On two workers the refits run beside the long section, but their results come back after it: the
    three calls are reported together, when the section ends; the finish a moment later."""
    import mlhidden.paper.parallel_jobs as parallel_jobs

    monkeypatch.setattr(parallel_jobs.ExecutionBackend, "slots", lambda self: 2)
    job = Job([(_variants_section,), (_refit_rows,), (_refit_rows,)])
    dear = STEP_SECONDS["_variants_section"]
    assert step_times([job], n_jobs=2) == pytest.approx([dear, dear, dear, dear + parallel_jobs.FINISH_SECONDS])
    one = step_times([job], n_jobs=1)
    assert one[:3] == pytest.approx([dear, dear + STEP_SECONDS["_refit_rows"], dear + 2 * STEP_SECONDS["_refit_rows"]])
