"""The run estimate behind the ETA: remaining units replayed on the workers at their expected wall times."""

import io
import os

import pytest

from mlhidden.cli.progress import RunProgress
from mlhidden.experiment.costs import UNIT_OVERHEAD_SECONDS
from mlhidden.experiment.eta import NICE_0_WEIGHT, RunEstimate, machine_slowdown, runnable_weights, worker_share


def tiny_units(n, dataset="Logical"):
    return [((f"{dataset} [random_state={k}]", "BR"), 1e-4) for k in range(n)]


def test_many_tiny_units_cost_their_overhead_not_their_next_to_nothing_compute():
    estimate = RunEstimate([tiny_units(1000)], workers=2)
    estimate.start_stage(tiny_units(1000), now=0.0)
    assert estimate.remaining(0.0) >= 1000 * UNIT_OVERHEAD_SECONDS / 2


def test_a_later_stage_adds_the_setup_its_planning_took():
    without = RunEstimate([tiny_units(2), tiny_units(2, "Music")], workers=1)
    with_setup = RunEstimate([tiny_units(2), tiny_units(2, "Music")], workers=1, setup=[0.0, 30.0])
    for estimate in (without, with_setup):
        estimate.start_stage(tiny_units(2), now=0.0)
    assert with_setup.remaining(0.0) == pytest.approx(without.remaining(0.0) + 30.0)


def test_the_time_between_stages_beyond_their_setup_is_learned_for_the_stages_left():
    stages = [tiny_units(1, f"S{k}") for k in range(4)]
    estimate = RunEstimate(stages, workers=1, setup=[0.0, 5.0, 5.0, 5.0])
    estimate.start_stage(stages[0], now=0.0)
    estimate.finished(stages[0][0][0], 1e-4, now=1.0)
    before = estimate.remaining(1.0)
    estimate.start_stage(stages[1], now=1.0 + 5.0 + 20.0)  # 20 s of tables and refits after the first stage
    estimate.finished(stages[1][0][0], 1e-4, now=27.0)
    assert estimate.remaining(27.0) > before  # two stages left, each now expected to wait about 10 s more


def test_units_slower_on_the_wall_than_their_compute_slow_the_rest():
    units = [((f"D{k}", "BR"), 1.0) for k in range(40)]
    estimate = RunEstimate([units], workers=1)
    estimate.start_stage(units, now=0.0)
    for k in range(20):  # each took 1 s of compute and 2 s of wall time
        estimate.finished((f"D{k}", "BR"), 1.0, now=2.0 * (k + 1))
    assert 30.0 < estimate.remaining(40.0) < 45.0


def test_with_stages_the_elapsed_time_counts_from_the_first_stage_start():
    class Clock:
        now = 0.0

        def __call__(self):
            return self.now

    clock, stream = Clock(), io.StringIO()
    stages = [tiny_units(1, "A"), tiny_units(1, "B")]
    estimate = RunEstimate(stages, workers=1)
    for stage, units in enumerate(stages, start=1):
        with RunProgress(stream, bar=False, clock=clock, estimate=estimate, stage=f"stage {stage}/2") as progress:
            progress.start(1, 0, units)
            clock.now += 65.0
            progress.finished({"dataset": units[0][0][0], "label": "BR", "split": 0, "status": "ok", "error": "",
                           "train_seconds": 65.0, "test_seconds": 0.0}, 1, 1)
    lines = stream.getvalue().splitlines()
    assert lines[2].startswith("progress: stage 2/2: 0/1 units, 99% overall, 0 failed, 1:05 elapsed")
    assert lines[3].startswith("progress: stage 2/2: 1/1 units, 100% overall, 0 failed, 2:10 elapsed")


def test_a_unit_that_reused_fits_teaches_the_estimate_its_own_work():
    """A stored unit's train time is already its own work (the fits it reused are recorded apart,
    ``reused_seconds``): the estimate learns train + test, not that less what it reused."""
    units = [(("Bibtex", "CCASL"), 10.0), (("Bibtex", "CCASL"), 10.0)]
    clock = iter([0.0, 5.0, 5.0, 5.0])
    progress = RunProgress(io.StringIO(), bar=False, interval=1e9, clock=lambda: next(clock))
    progress.start(total=2, skipped=0, pending=units, workers=1)
    row = {"dataset": "Bibtex", "label": "CCASL", "status": "ok", "train_seconds": 0.3, "test_seconds": 0.2,
           "reused_seconds": 4.5}
    progress.finished(row, done=1, total=2)
    progress.close(show_final=False)
    assert progress._estimate is not None
    assert progress._estimate.model.expected(("Bibtex", "CCASL")) == pytest.approx(0.5)


def test_a_measured_report_phase_is_its_own_wall_time_however_slow_the_units_were():
    units, report = [(("D0", "BR"), 1.0), (("D1", "BR"), 1.0)], (("report", "report"), 40.0)
    estimate = RunEstimate([units, [report]], workers=1, measured=[report[0]])
    estimate.start_stage(units, now=0.0)
    estimate.finished(("D0", "BR"), 10.0, now=10.0)  # ten times its prior: a loaded machine
    assert 1.5 < estimate.remaining(10.0) - 40.0 < 11.0  # D1 learns the slower pace, the report does not
    estimate.start_stage([report], now=20.0, workers=1)
    assert estimate.remaining(30.0) == pytest.approx(30.0)


class ProbeClock:
    """A wall clock for :func:`machine_slowdown`'s probe that moves one second a reading."""

    wall = 0.0

    def tick(self) -> float:
        self.wall += 1.0
        return self.wall


def test_the_probe_reads_the_share_of_a_core_it_got_and_counts_the_workers_joining():
    """Wall time that runs twice as fast as the thread's CPU time: half a core, on 2 cores 4 busy threads,
    the probe and 3 others; 2 workers joining the 3 get 2/5 of a core each."""
    half, idle = ProbeClock(), ProbeClock()
    unread = {"load": lambda: 0, "runnable": lambda: None}
    slowdown = machine_slowdown(2, cores=2, seconds=1000, wall=half.tick, cpu=lambda: half.wall / 2, **unread)
    assert slowdown == pytest.approx(2.5, rel=0.01)
    assert machine_slowdown(2, cores=2, seconds=3, wall=idle.tick, cpu=lambda: idle.wall, **unread) == 1.0
    assert machine_slowdown(4, cores=2, seconds=3, wall=idle.tick, cpu=lambda: idle.wall, **unread) == 2.0


def test_a_probe_given_a_hair_under_a_whole_core_counts_no_others():
    """An idle machine leaves the probe's thread 0.9999 of a core, which read as one other thread: 1.5 for 2
    workers on 2 cores with nothing else running."""
    idle = ProbeClock()
    unread = {"load": lambda: 0, "runnable": lambda: None}
    assert machine_slowdown(2, cores=2, seconds=3, wall=idle.tick, cpu=lambda: idle.wall * 0.9999, **unread) == 1.0


def test_the_load_average_counts_the_others_a_probe_given_a_whole_core_missed():
    """A load average of 12 on 2 cores: 12 others, whom 2 workers join, get a seventh of a core each."""
    idle = ProbeClock()
    slowdown = machine_slowdown(
        2, cores=2, seconds=3, wall=idle.tick, cpu=lambda: idle.wall, load=lambda: 12.0, runnable=lambda: None
    )
    assert slowdown == 7.0


def test_a_share_of_the_cores_goes_by_the_threads_weights_each_taking_at_most_one_core():
    nice_minus_10 = NICE_0_WEIGHT * 1.25**10
    assert worker_share([], 2, cores=2) == worker_share([NICE_0_WEIGHT], 1, cores=2) == 1.0
    assert worker_share([NICE_0_WEIGHT] * 12, 2, cores=2) == pytest.approx(1 / 7)
    # A nice -10 job beside 4 others would take 1.2 cores by weight: it gets one, the 4 and 2 workers share the other.
    assert worker_share([nice_minus_10] + [NICE_0_WEIGHT] * 4, 2, cores=2) == pytest.approx(1 / 6)
    # Beside 12 others it gets 0.8 of a core, and the 14 share the other 1.2 cores.
    assert worker_share([nice_minus_10] + [NICE_0_WEIGHT] * 12, 2, cores=2) == pytest.approx(1.2 / 14, rel=0.01)


def test_the_first_estimate_counts_the_threads_that_want_a_core_now_and_their_weights():
    """A background job at nice -10 and 4 others: each worker gets a sixth of a core, where the probe, given
    a whole core for its first moments, and a load average of 5 said (5 + 2) / 2 = 3.5."""
    idle = ProbeClock()
    others = [NICE_0_WEIGHT * 1.25**10] + [NICE_0_WEIGHT] * 4
    slowdown = machine_slowdown(
        2, cores=2, seconds=3, wall=idle.tick, cpu=lambda: idle.wall, load=lambda: 5.0, runnable=lambda: others
    )
    assert slowdown == pytest.approx(6.0)


def test_the_load_average_counts_as_far_as_the_probe_still_finds_the_load_running():
    """CI's quick reproduction started as ``make smoke`` ended, a load average near 2 on 2 cores, and its first
    ETA was 1.87 times its length: (2 + 2) / 2. The load average counts by the share of the probe's readings
    that found another thread wanting a core: none, a quarter (a kernel thread now and then), all of them."""
    idle = ProbeClock()
    probe = {"cores": 2, "seconds": 3, "wall": idle.tick, "cpu": lambda: idle.wall, "load": lambda: 2.0}
    assert machine_slowdown(2, runnable=lambda: [], **probe) == 1.0
    readings = iter([[], [NICE_0_WEIGHT / 1.25**5], [], []])  # the probe's clock gives it four readings
    slowdown = machine_slowdown(2, runnable=lambda: next(readings), **{**probe, "seconds": 5})
    assert slowdown == pytest.approx((2 * 1 / 4 + 2) / 2)
    niced = [NICE_0_WEIGHT / 1.25**5] * 2  # a steady load at nice 5: the load average's count, unweighed
    assert machine_slowdown(2, runnable=lambda: niced, **probe) == 2.0
    # Where nothing names the threads (not Linux), the load average counts whole.
    assert machine_slowdown(2, runnable=lambda: None, **probe) == 2.0


def test_the_runnable_threads_are_read_with_their_nice_levels_and_this_process_left_out(tmp_path):
    def thread(pid: int, tid: int, state: str, nice: int) -> None:
        stat = tmp_path / str(pid) / "task" / str(tid) / "stat"
        stat.parent.mkdir(parents=True)
        fields = [state, *["0"] * 15, str(nice), "1"]
        stat.write_text(f"{tid} (a (b) c) {' '.join(fields)}\n")

    (tmp_path / "self").mkdir()
    (tmp_path / "self" / "stat").write_text("1 (x) R\n")
    thread(10, 10, "R", -10)
    thread(10, 11, "S", 0)
    thread(11, 11, "R", 0)
    thread(os.getpid(), os.getpid(), "R", 0)  # the probe itself
    assert sorted(runnable_weights(str(tmp_path))) == pytest.approx([NICE_0_WEIGHT, NICE_0_WEIGHT * 1.25**10])
    assert runnable_weights(str(tmp_path / "none")) is None


def test_the_first_estimate_is_the_priors_at_the_measured_slowdown_and_the_units_correct_it():
    units = [((f"D{k}", "BR"), 1.0) for k in range(10)]
    report = (("report", "report"), 10.0)
    idle = RunEstimate([units, [report]], workers=1)
    loaded = RunEstimate([units, [report]], workers=1, slowdown=4.0)
    for estimate in (idle, loaded):
        estimate.start_stage(units, now=0.0)  # the runner hands over its unscaled priors
    assert loaded.remaining(0.0) == pytest.approx(4 * idle.remaining(0.0), rel=0.05)
    for k in range(5):  # the units take twice their idle time, not four times
        loaded.finished((f"D{k}", "BR"), 2.0, now=2.0 * (k + 1))
    assert 5 * 2 + 10 * 2 * 0.7 < loaded.remaining(10.0) < 5 * 4 + 10 * 4


def test_a_loaded_machine_slows_the_units_overhead_as_it_slows_their_compute():
    """A thousand units of a millisecond each: their idle overhead (handing out, storing) is most of their time."""
    units = [((f"D{k}", "BR"), 0.001) for k in range(1000)]
    idle, loaded = RunEstimate([units], workers=2), RunEstimate([units], workers=2, slowdown=3.0)
    for estimate in (idle, loaded):
        estimate.start_stage(units, now=0.0)
    assert loaded.remaining(0.0) == pytest.approx(3 * idle.remaining(0.0))
    assert idle.remaining(0.0) == pytest.approx(1000 * (0.001 + UNIT_OVERHEAD_SECONDS) / 2)


def test_one_percentage_runs_over_every_stage_and_never_goes_back():
    clock, stream = FakeClock(), io.StringIO()
    stages = [[(("A", "BR"), 10.0)], [(("B", "BR"), 10.0)]]
    estimate = RunEstimate(stages, workers=1)
    percents = []
    for stage, units in enumerate(stages, start=1):
        with RunProgress(stream, bar=False, clock=clock, estimate=estimate, stage=f"stage {stage}/2") as progress:
            progress.start(1, 0, units)
            percents.append(progress.status(clock.now))
            clock.now += 30.0  # three times its prior: the estimate grows, the percentage holds
            percents.append(progress.status(clock.now))
            progress.finished({"dataset": units[0][0][0], "label": "BR", "split": 0, "status": "ok", "error": "",
                           "train_seconds": 30.0, "test_seconds": 0.0}, 1, 1)
            percents.append(progress.status(clock.now))
    shown = [int(line.split(" units, ")[1].split("%")[0]) for line in percents]
    assert shown == sorted(shown) and shown[0] == 0 and shown[-1] == 100
    assert 50 <= shown[3] < 100, "the first stage took more than half the time expected of both"
    assert max(shown[:-1]) < 100


def test_a_report_stage_counts_its_steps_and_runs_late_steps_at_their_pace():
    clock, stream = FakeClock(), io.StringIO()
    report = (("report", "report"), 20.0)
    estimate = RunEstimate([[report]], workers=1)
    with RunProgress(stream, bar=False, clock=clock, estimate=estimate, stage="stage 1/1") as progress:
        progress.start(1, 0, pending=[report], workers=1, what="steps")
        clock.now = 30.0  # past its prior, a quarter of its steps done
        progress.step(5, 20)
        status = progress.status(clock.now)
    assert status.startswith("stage 1/1: 5/20 steps, ")
    assert estimate.remaining(30.0) == pytest.approx(90.0)  # 30 s for 5 steps: 90 s for the other 15


def test_a_report_stage_goes_at_the_pace_of_its_weighed_steps_not_its_prior():
    """A loaded machine's report prior can be twice its time: once a third of the phase's weight is done
    in 30 s, 60 s are left, whatever the prior said; while its longest step runs, no less than the share
    that step ends at allows."""
    clock, stream = FakeClock(), io.StringIO()
    report = (("report", "report"), 200.0)
    estimate = RunEstimate([[report]], workers=1)
    with RunProgress(stream, bar=False, clock=clock, estimate=estimate, stage="stage 1/1") as progress:
        progress.start(1, 0, pending=[report], workers=1, what="steps")
        clock.now = 30.0
        progress.step(32, 55, reached=1 / 3, upto=0.8)
        assert estimate.remaining(30.0) == pytest.approx(60.0)
        assert estimate.remaining(80.0) == pytest.approx(20.0)  # 80 s for 0.8 of it at least: 100 s in all
        assert estimate.remaining(120.0) == pytest.approx(30.0)


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now
