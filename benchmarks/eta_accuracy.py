"""How far the printed ETA was from the time a run really had left, read from its progress log.

``python -m benchmarks.eta_accuracy LOG [--min-remaining S] [--target PERCENT]`` reads the plain
status lines a run prints with ``--quiet`` (or when stderr is not a terminal), e.g.
``progress: stage 2/7: 40/180 units (22%), 0 failed, 1:10 elapsed, ETA 3:00``, and prints, for each
run in the log, a Markdown table of elapsed / printed ETA / true remaining / error, then the worst
error over the lines after 20 % of the run's time.

A run's end is its last line: in a stamped log, the last line of its command (``wrote N files``,
so that a report phase that prints no status still counts), else its last status line (the final
one, at 100 % of its last stage); the true time left at a line is that end less the line's
time. A line's time is the epoch seconds it starts with, if any (a log piped through a time
stamper: ``1795796817.9<TAB>progress: ...``), else its elapsed time; an elapsed time that goes
back within a run (each stage counting from 0) adds the stage that ended to the ones before,
which misses the gaps between stages. A new run starts where
the stage number goes back (``stage 1/7`` after ``stage 7/7``) or, in a log without stages, where
the elapsed time does.

``... 2>&1 | python -m benchmarks.eta_accuracy --stamp | tee LOG`` writes such a stamped log: each
line of the input prefixed by the epoch seconds it arrived at, so the gaps between stages count.

The error is (printed - true) / true: negative when the ETA promised too little. Lines with less
than ``--min-remaining`` seconds left (default 10) are listed but not judged: the ETA is printed to
the second, and an ETA of 0:03 for 0:01 left is no forecast failure.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

STATUS = re.compile(
    r"^(?:(?P<stamp>\d+(?:\.\d+)?)\t)?.*?progress: (?:stage (?P<stage>\d+)/(?P<stages>\d+): )?"
    r"(?P<done>\d+)/(?P<total>\d+) (?:units|steps)\b.*?, (?P<elapsed>[\d:]+) elapsed, ETA (?P<eta>[\d:]+|\?)\s*$"
)
STAMP = re.compile(r"^(\d+(?:\.\d+)?)\t")
JUDGED_AFTER = 0.2


@dataclass
class Sample:
    """One status line: when it was printed (seconds since the run began), its stage and its ETA."""

    time: float
    stage: str
    eta: float | None


@dataclass
class Run:
    """The status lines of one run, in order."""

    samples: list[Sample] = field(default_factory=list)
    end: float = 0.0

    @property
    def seconds(self) -> float:
        """When the run ended: its last line, status or not (a stamped log's lines after the last status
        line, such as ``wrote N files``, are the command still working)."""
        return max(self.end, self.samples[-1].time if self.samples else 0.0)

    def rows(self, min_remaining: float = 10.0) -> list[tuple[Sample, float, float | None, bool]]:
        """(sample, true seconds left, error, judged) for each line; error None without an ETA or time left."""
        rows = []
        for sample in self.samples:
            true = self.seconds - sample.time
            error = None if sample.eta is None or true <= 0 else (sample.eta - true) / true
            judged = error is not None and sample.time >= JUDGED_AFTER * self.seconds and true >= min_remaining
            rows.append((sample, true, error, judged))
        return rows

    def worst(self, min_remaining: float = 10.0) -> tuple[float, Sample] | None:
        """The judged line whose ETA was furthest off, with its error; None when no line is judged."""
        judged = [(error, sample) for sample, _, error, ok in self.rows(min_remaining) if ok and error is not None]
        return max(judged, key=lambda pair: abs(pair[0]), default=None)


def duration(text: str) -> float:
    """Seconds of ``m:ss`` or ``h:mm:ss``."""
    seconds = 0
    for part in text.split(":"):
        seconds = seconds * 60 + int(part)
    return float(seconds)


def read_runs(lines) -> list[Run]:
    """The runs of a progress log's ``lines`` (other lines are skipped)."""
    runs: list[Run] = []
    last_stage, last_elapsed, offset, origin = None, None, 0.0, None
    for line in lines:
        match = STATUS.match(line.rstrip("\n"))
        if not match:
            stamped = STAMP.match(line)
            if stamped and runs and origin is not None:
                runs[-1].end = float(stamped[1]) - origin
            continue
        stage = int(match["stage"]) if match["stage"] else None
        elapsed = duration(match["elapsed"])
        new_run = (
            not runs or (stage is None and last_elapsed is not None and elapsed < last_elapsed)
            or (stage is not None and (last_stage is None or stage < last_stage))
        )
        if new_run:
            runs.append(Run())
            offset, origin = 0.0, float(match["stamp"]) - elapsed if match["stamp"] else None
        elif elapsed < last_elapsed:  # a stage counting from 0 again
            offset += last_elapsed
        time = float(match["stamp"]) - origin if origin is not None else offset + elapsed
        label = f"stage {stage}/{match['stages']}" if stage is not None else ""
        runs[-1].samples.append(Sample(time, label, None if match["eta"] == "?" else duration(match["eta"])))
        last_stage, last_elapsed = stage, elapsed
    return runs


def table(run: Run, min_remaining: float = 10.0) -> list[str]:
    """The Markdown table of ``run`` and its worst judged error."""
    lines = ["| elapsed (s) | stage | printed ETA (s) | true remaining (s) | error |", "|---:|---|---:|---:|---:|"]
    for sample, true, error, judged in run.rows(min_remaining):
        shown = "" if error is None else f"{100 * error:+.0f} %" + ("" if judged else " (not judged)")
        eta = "?" if sample.eta is None else f"{sample.eta:.0f}"
        lines.append(f"| {sample.time:.0f} | {sample.stage} | {eta} | {true:.0f} | {shown} |")
    worst = run.worst(min_remaining)
    verdict = "no line judged" if worst is None else f"{100 * worst[0]:+.0f} % at {worst[1].time:.0f} s"
    lines += ["", f"Worst error after {100 * JUDGED_AFTER:.0f} % of the {run.seconds:.0f} s "
                  f"(true remaining >= {min_remaining:g} s): {verdict}."]
    return lines


def stamp(source, sink) -> None:
    """Copy ``source`` to ``sink`` line by line, each prefixed by the epoch seconds it was read at and a tab."""
    for line in source:
        sink.write(f"{time.time():.1f}\t{line}")
        sink.flush()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "log", type=Path, nargs="?", help="a progress log (plain status lines, optionally time-stamped)"
    )
    parser.add_argument("--stamp", action="store_true", help="stamp the lines of stdin onto stdout instead")
    parser.add_argument(
        "--min-remaining", type=float, default=10.0, help="judge only lines with this many seconds left"
    )
    parser.add_argument(
        "--target", type=float, default=None, help="exit 1 when a run's worst judged error exceeds this %%"
    )
    args = parser.parse_args(argv)
    if args.stamp:
        stamp(sys.stdin, sys.stdout)
        return 0
    if args.log is None:
        parser.error("give a LOG to read, or --stamp")
    runs = read_runs(args.log.read_text(errors="replace").splitlines())
    if not runs:
        print(f"{args.log}: no progress lines (run with --quiet, or with stderr not a terminal)", file=sys.stderr)
        return 1
    failed = False
    for number, run in enumerate(runs, start=1):
        if len(runs) > 1:
            print(f"\nRun {number} of {len(runs)}:\n")
        print("\n".join(table(run, args.min_remaining)))
        worst = run.worst(args.min_remaining)
        failed |= args.target is not None and worst is not None and abs(worst[0]) * 100 > args.target
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
