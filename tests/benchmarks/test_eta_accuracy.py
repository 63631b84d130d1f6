"""benchmarks/eta_accuracy.py: the printed ETA of a progress log against the time the run really had left."""

import pytest

from benchmarks.eta_accuracy import main, read_runs

# Two runs of a reproduction in one log: the first counts each stage's elapsed time from 0, the
# second was piped through a time stamper and counts from the run's start.
LOG = """\
== stage 1/2: paper
progress: stage 1/2: 0/10 units (0%), 0 failed, 0:00 elapsed, ETA 1:00
progress: stage 1/2: 5/10 units (50%), 0 failed, 0:30 elapsed, ETA 0:50
progress: stage 1/2: 10/10 units (100%), 0 failed, 1:00 elapsed, ETA 0:30
== stage 2/2: logical
progress: stage 2/2: 0/4 units (0%), 0 failed, 0:00 elapsed, ETA 0:30
progress: stage 2/2: 4/4 units (100%), 1 failed, 0:40 elapsed, ETA 0:00
wrote /tmp/q/REPORT.md and 12 more files in 101 s
1000.0\t== stage 1/2: paper
1000.5\tprogress: stage 1/2: 0/10 units (0%), 0 failed, 0:00 elapsed, ETA ?
1030.5\tprogress: stage 1/2: 6/10 units (60%), 0 failed, 0:30 elapsed, ETA 1:30
1070.5\tprogress: stage 2/2: 1/4 units (25%), 0 failed, 1:10 elapsed, ETA 0:30
1100.5\tprogress: stage 2/2: 4/4 units (100%), 0 failed, 1:40 elapsed, ETA 0:00
"""


def test_runs_stages_and_true_remaining_are_read_from_a_plain_and_a_stamped_log():
    first, second = read_runs(LOG.splitlines())
    assert [s.time for s in first.samples] == [0, 30, 60, 60, 100]  # stage 2 counts on from stage 1's end
    assert [s.stage for s in first.samples] == ["stage 1/2"] * 3 + ["stage 2/2"] * 2
    assert [s.eta for s in first.samples] == [60, 50, 30, 30, 0]
    assert [s.time for s in second.samples] == [0, 30, 70, 100]
    assert second.samples[0].eta is None
    rows = first.rows()
    assert [true for _, true, _, _ in rows] == [100, 70, 40, 40, 0]
    assert [error for _, _, error, _ in rows][:3] == [
        pytest.approx(-0.4),
        pytest.approx(50 / 70 - 1),
        pytest.approx(-0.25),
    ]
    assert [judged for *_, judged in rows] == [False, True, True, True, False]  # 20 % of 100 s; nothing left at the end


def test_the_worst_error_counts_only_lines_after_a_fifth_of_the_run_with_time_left():
    first, second = read_runs(LOG.splitlines())
    error, sample = first.worst()
    assert (sample.time, error) == (30, pytest.approx(50 / 70 - 1))
    error, sample = second.worst()
    assert (sample.time, error) == (30, pytest.approx(20 / 70))  # 90 s promised, 70 s left
    assert second.worst(min_remaining=80) is None


def test_the_command_prints_a_table_per_run_and_fails_a_target_it_misses(tmp_path, capsys):
    log = tmp_path / "progress.log"
    log.write_text(LOG)
    assert main([str(log), "--target", "35"]) == 0
    out = capsys.readouterr().out
    assert "Run 2 of 2:" in out and "| 30 | stage 1/2 | 50 | 70 | -29 % |" in out
    assert "Worst error after 20 % of the 100 s (true remaining >= 10 s): +29 % at 30 s." in out
    assert main([str(log), "--target", "28"]) == 1
    (tmp_path / "empty.log").write_text("nothing here\n")
    assert main([str(tmp_path / "empty.log")]) == 1
    assert "no progress lines" in capsys.readouterr().err


def test_stamped_lines_read_back_with_their_arrival_times():
    import io

    from benchmarks.eta_accuracy import stamp

    out = io.StringIO()
    stamp(io.StringIO("progress: 0/2 units (0%), 0 failed, 0:00 elapsed, ETA 0:10\nother\n"), out)
    lines = out.getvalue().splitlines()
    assert [line.split("\t", 1)[1] for line in lines] == [
        "progress: 0/2 units (0%), 0 failed, 0:00 elapsed, ETA 0:10",
        "other",
    ]
    (run,) = read_runs(lines)
    assert [(s.time, s.eta) for s in run.samples] == [(0.0, 10.0)]


def test_a_stamped_run_ends_with_its_command_not_its_last_status_line():
    """A report phase that prints no status after the last unit is time the ETA had to cover."""
    (_, second) = read_runs([*LOG.splitlines(), "1130.5\twrote 12 files under /tmp/q/ in 130 s"])
    assert second.seconds == 130
    assert [true for _, true, _, _ in second.rows()] == [130, 100, 60, 30]
