"""Run a command and report its wall time and the peak memory of its whole process tree.

``/usr/bin/time`` reports the largest single process, but a joblib run spreads its memory over
worker processes, so the figure that matters for "does it fit on a laptop" is the sum over the
tree, sampled here from ``/proc`` once a second: RSS (pages shared between processes, such as
memory-mapped arrays, count once per process) and PSS (shared pages split between the processes
that map them, so the sum is the memory really used).

    python -m benchmarks.peak_rss [--log FILE] -- make reproduce

:class:`PeakRSS` is the in-process figure: this process's peak RSS while a block runs.
"""
import argparse
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil

PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


def _children_by_parent():
    children = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    return children


def _pss_bytes(pid) -> int:
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) * 1024
    return 0


def tree_memory_bytes(root_pid) -> tuple[int, int]:
    """(RSS, PSS) summed over ``root_pid`` and all its descendants."""
    children = _children_by_parent()
    rss = pss = 0
    pending = [root_pid]
    while pending:
        pid = pending.pop()
        pending.extend(children.get(pid, ()))
        try:
            rss += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE_SIZE
            pss += _pss_bytes(pid)
        except OSError:
            continue
    return rss, pss


class PeakRSS:
    """The process's peak resident memory while the block runs, sampled every few milliseconds."""

    def __enter__(self):
        self._process = psutil.Process()
        self.peak = self._process.memory_info().rss
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self):
        while not self._stop.wait(0.005):
            self.peak = max(self.peak, self._process.memory_info().rss)

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._process.memory_info().rss)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", help="append the summary line to this file")
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    start = time.monotonic()
    process = subprocess.Popen(command)
    peak_rss = peak_pss = 0
    while process.poll() is None:
        rss, pss = tree_memory_bytes(process.pid)
        peak_rss, peak_pss = max(peak_rss, rss), max(peak_pss, pss)
        time.sleep(args.interval)
    wall = time.monotonic() - start
    summary = (f"command: {' '.join(command)}\nexit code: {process.returncode}\n"
               f"wall time: {wall:.0f} s ({wall / 60:.1f} min)\n"
               f"peak tree RSS: {peak_rss / 2**30:.2f} GiB\npeak tree PSS: {peak_pss / 2**30:.2f} GiB\n")
    sys.stderr.write(summary)
    if args.log:
        with open(args.log, "a") as log:
            log.write(summary)
    return process.returncode


if __name__ == "__main__":
    sys.exit(main())
