"""``benchmarks/results.md`` holds one section per generator, each between its own markers, so a
generator rewrites its section and leaves the others as they are.

A ``--quick`` run checks that the benchmarks run, on a slice too small to measure anything: it
writes ``results/quick/benchmarks.md``, which git ignores, and leaves the committed figures as
they are."""

from __future__ import annotations

from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results.md"
QUICK_RESULTS = Path(__file__).resolve().parents[1] / "results" / "quick" / "benchmarks.md"


def results_path(quick: bool) -> Path:
    """The file a run writes: ``QUICK_RESULTS`` for a ``--quick`` one, else ``RESULTS``."""
    return QUICK_RESULTS if quick else RESULTS


def write_section(name: str, body: str, path: Path = RESULTS) -> str:
    """Put ``body`` between the ``name`` markers of ``path`` (appended when it has none); the section."""
    begin, end = f"<!-- {name}: begin -->", f"<!-- {name}: end -->"
    section = f"{begin}\n{body.rstrip()}\n{end}\n"
    text = path.read_text() if path.exists() else ""
    if begin in text:
        text = text[: text.index(begin)] + section + text[text.index(end) + len(end) + 1:]
    else:
        text += "\n" + section
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return section
