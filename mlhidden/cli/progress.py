"""A run's progress on stderr: a live bar on a terminal, plain periodic lines in logs.

On a terminal the bar shows units done / total, failures, elapsed time and the ETA, redrawn in
place. When the stream is not a terminal (CI logs, ``nohup``), or with ``--quiet``, redrawing
would fill the log with carriage returns, so a plain status line is printed at the start, every
``interval`` seconds and at the end instead. ``verbose`` adds one line per finished unit in
either mode.

The ETA is :class:`~mlhidden.experiment.eta.RunEstimate`'s: the remaining units replayed on the
run's workers at their expected costs, learned from the finished ones. Across the stages of
``reproduce``, one estimate runs through all of them, the line says ``stage k/n`` and one percentage
of the whole run, and the elapsed time counts from the first stage's start, so that elapsed and
ETA add up to the whole run. What comes before the first unit (loading datasets, planning) is
announced first (:func:`announce`), so that a line shows from the first second.
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mlhidden.experiment.cost_priors import own_seconds
from mlhidden.experiment.eta import RunEstimate

if TYPE_CHECKING:
    from mlhidden.runs.units import PlannedUnit, UnitResult

BAR_REFRESH_SECONDS = 0.5
PLAIN_INTERVAL_SECONDS = 30.0
BAR_WIDTH = 30
MIN_BAR_WIDTH = 10
CLEAR_LINE = "\r\x1b[K"
MIN_ETA_SECONDS = 1.0


def format_duration(seconds: float | None) -> str:
    """``m:ss`` or ``h:mm:ss``; ``?`` when unknown."""
    if seconds is None:
        return "?"
    minutes, secs = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def announce(text: str, stream=None, bar: bool | None = None) -> None:
    """TEXT on its own line before a run's units start (planning it: loading the study, its datasets and
    configs takes seconds), where a bar will be drawn (``bar``; by default when ``stream`` is a
    terminal): a person watching sees the command working at once. Plain progress lines (``--quiet``,
    a log) start with the first unit, so that a mistake found while planning is the output's one line."""
    stream = sys.stderr if stream is None else stream
    if _is_terminal(stream) if bar is None else bar:
        stream.write(f"{text}\n")
        stream.flush()


def unit_line(row: Mapping[str, Any], done: int, total: int) -> str:
    """``[ 3/40] Music · BR · split 2: ok (0.52 s)``, or the first line of the error."""
    status = "ok" if row["status"] == "ok" else "FAILED: " + row["error"].splitlines()[0]
    return (
        f"[{done:>{len(str(total))}}/{total}] {row['dataset']} · {row['label']} · split {row['split']}: "
        f"{status} ({own_seconds(row):.2f} s)"
    )


class RunProgress:
    """Shows a run's progress; give :meth:`start` to the runner as ``on_start`` and :meth:`unit` as ``on_unit``
    (a stage that is no run, such as ``reproduce``'s report phase, ends with :meth:`finished`).

    Use it as a context manager around the run: leaving it stops the refresh thread and ends
    the display with a final status.

    Parameters
    ----------
    stream : text stream, optional
        Where to write (default: ``sys.stderr``).
    bar : bool, optional
        Draw a live bar; by default exactly when ``stream`` is a terminal.
    verbose : bool, default=False
        Also write one line per finished unit.
    interval : float, default=30
        Seconds between plain status lines.
    clock : callable, default=time.monotonic
        Seconds since an arbitrary origin.
    estimate : RunEstimate, optional
        An estimate spanning several runs (stages); by default one for this run alone.
    stage : str, optional
        Shown before the status, e.g. ``stage 2/7``.

    Attributes
    ----------
    total, done, failed : int
        Units of the run, units finished (already stored ones included) and failed units.
    """

    def __init__(
        self, stream=None, *, bar=None, verbose=False, interval=PLAIN_INTERVAL_SECONDS, clock=time.monotonic,
        estimate: RunEstimate | None = None, stage: str | None = None,
    ):
        self.stream = sys.stderr if stream is None else stream
        self.bar = _is_terminal(self.stream) if bar is None else bar
        self.verbose = verbose
        self.interval = interval
        self.clock = clock
        self.total = self.done = self.failed = 0
        self.what = "units"
        self._skipped = 0
        self._shared_estimate = estimate
        self._estimate: RunEstimate | None = None
        self.stage = stage
        self._started: float | None = None
        self._last_line: float | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, *_):
        self.close(show_final=exc_type is None)

    def start(self, total: int, skipped: int, pending=None, workers: int = 1, what: str = "units") -> None:
        """The run has ``total`` units, ``skipped`` of them already stored; start the clock.

        ``pending`` lists the units to run in dispatch order as ``((dataset, method label),
        expected seconds)`` and ``workers`` says how many compute at once, for an ETA weighted
        by cost (see :class:`~mlhidden.experiment.eta.RunEstimate`); without it every unit counts the same.
        ``what`` names what is counted (a report phase counts its ``steps``, see :meth:`step`).
        """
        with self._lock:
            self.total, self.done, self._skipped, self.what = total, skipped, skipped, what
            self._started = self._last_line = self.clock()
            self._estimate = self._shared_estimate
            if pending is not None:
                self._estimate = self._estimate or RunEstimate([pending], workers)
                self._estimate.start_stage(pending, self._started, workers)
            self._show_status()
        thread = threading.Thread(target=self._refresh, name="mlhidden-progress", daemon=True)
        thread.start()  # under a memory limit it may not: the run then ends, and close() has no thread to join
        self._thread = thread

    def unit(self, unit: PlannedUnit, result: UnitResult, done: int, total: int) -> None:
        """The runner stored ``unit``, which gave ``result`` (``done`` counts every finished unit of the run,
        stored ones included)."""
        self.finished(result.row(unit.key), done, total)

    def finished(self, row: Mapping[str, Any], done: int, total: int) -> None:
        """One unit finished, as its row of the store's units table reads (``dataset``, ``label``, ``split``,
        ``status``, ``error``, the seconds): the line and the estimate read stored units' rows too."""
        with self._lock:
            self.done, self.total = done, total
            self.failed += row["status"] == "failed"
            if self._estimate is not None:
                cost = None if row["status"] == "failed" else own_seconds(row)
                self._estimate.finished((row["dataset"], row["label"]), cost, self.clock())
            if self.verbose:
                self._write_line(unit_line(row, done, total))
            if self.bar:
                self._draw_bar()

    def step(self, done: int, total: int, reached: float | None = None, upto: float | None = None) -> None:
        """``done`` of the ``total`` steps of the one unit running (a report phase) are finished, which is
        ``reached`` of its expected time (default: ``done / total``), the next step ending at ``upto``:
        the line counts the steps, and the estimate takes the rest to go at their pace."""
        with self._lock:
            self.done, self.total = done, total
            if self._estimate is not None:
                if reached is None:
                    reached = done / total if total else 1.0
                self._estimate.progressed(reached, self.clock(), reached if upto is None else upto)
            if self.bar:
                self._draw_bar()

    def tick(self) -> None:
        """Redraw the bar, or print a plain line if ``interval`` seconds passed since the last one."""
        with self._lock:
            if self._started is None:
                return
            if self.bar:
                self._draw_bar()
            elif self.clock() - self._last_line >= self.interval:
                self._show_status()

    def close(self, show_final: bool = True) -> None:
        """Stop refreshing; end the bar's line, or print the final plain line."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            if self._started is None:
                return
            if show_final:
                self._show_status()
            if self.bar:
                self.stream.write("\n")
                self.stream.flush()
            self._started = None

    def eta(self, now: float) -> float | None:
        """Seconds left: the estimate's with the pending units known, else at the pace of the
        units run so far (None before the first); at least a second while a unit of this run
        remains, so that the line never says 0:00 before the end."""
        if self._estimate is not None:
            left = self._estimate.remaining(now)
        else:
            ran = self.done - self._skipped
            if ran <= 0:
                return None
            left = self._elapsed(now) / ran * (self.total - self.done)
        return max(left, MIN_ETA_SECONDS) if self.done < self.total else left

    def status(self, now: float) -> str:
        """``12/40 units (30%), 1 failed, 0:12 elapsed, ETA 0:28``; across stages, ``stage 2/8: 12/40 units,
        34% overall, ...``: the share of the whole run's expected time gone by."""
        eta = self.eta(now)
        if self._shared_estimate is not None:
            percent = int(100 * self._shared_estimate.done_fraction(now))
            finished = eta is not None and eta <= 0 and self.done >= self.total
            counted = f"{self.done}/{self.total} {self.what}, {percent if finished else min(percent, 99)}% overall"
        else:
            percent = 100 * self.done // self.total if self.total else 100
            counted = f"{self.done}/{self.total} {self.what} ({percent}%)"
        return (
            (f"{self.stage}: " if self.stage else "") + f"{counted}, {self.failed} failed, "
            f"{format_duration(self._elapsed(now))} elapsed, ETA {format_duration(eta)}"
        )

    def bar_line(self, now: float, columns: int) -> str:
        """The status after a ``[####------]`` bar, fitted to ``columns - 1`` so the line never wraps.

        The bar keeps its width unless the terminal is too narrow for it and the status.
        """
        text = self.status(now)
        width = max(MIN_BAR_WIDTH, min(BAR_WIDTH, columns - len(text) - 4))
        filled = width * self.done // self.total if self.total else width
        return f"[{'#' * filled}{'-' * (width - filled)}] {text}"[: max(columns - 1, 1)]

    def _elapsed(self, now: float) -> float:
        """Seconds since this run started, or since the first stage did when the estimate spans several."""
        if self._started is None:
            return 0.0
        began = self._shared_estimate.began if self._shared_estimate is not None else None
        return now - (self._started if began is None else began)

    def _show_status(self):
        if self.bar:
            self._draw_bar()
        else:
            self._last_line = self.clock()
            self._write_line(f"progress: {self.status(self._last_line)}")

    def _draw_bar(self):
        columns = shutil.get_terminal_size(fallback=(80, 24)).columns
        self.stream.write(CLEAR_LINE + self.bar_line(self.clock(), columns))
        self.stream.flush()

    def _write_line(self, text: str):
        self.stream.write((CLEAR_LINE if self.bar else "") + text + "\n")
        self.stream.flush()

    def _refresh(self):
        period = BAR_REFRESH_SECONDS if self.bar else min(self.interval, 1.0)
        while not self._stop.wait(period):
            self.tick()


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
