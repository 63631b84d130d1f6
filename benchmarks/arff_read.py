"""The ARFF reader against the row-by-row path it replaced and against pandas' C parser, on a cold cache.

Run with ``make bench`` or ``python -m benchmarks.arff_read [--quick]``. ``read_arff`` never consults the parse
cache (:mod:`mlhidden.data.cache` wraps it), so every read here parses the file; the dense case goes through
``load_arff_file`` with an empty ``MLHIDDEN_CACHE``, as a first run does.

- Sparse (the shipped sparse files, and a Delicious-shaped file of 16,105 rows, 500 words and 983 labels written
  by ``write_arff``, and the same with its values spelled ``1`` as Mulan's files spell them): ``read_arff`` with
  the plain sparse blocks (:func:`mlhidden.data.arff.plain.sparse_values`) against the same reader with them switched
  off, which is the path every sparse row took before; the whole read and the data section alone (the blocks already
  decompressed), and the data section's tokens one a line read by ``pandas.read_csv`` as the C parser's peer. CPU
  seconds, medians of interleaved repetitions in one process.
- Dense: the 25 MB file of 6.5 million rows that ``tests/data/test_arff_limits.py`` makes, read into an empty
  cache, against ``pandas.read_csv`` of its data section from the same bz2 file; each in a child process, for
  its CPU seconds (imports excluded) and peak memory (VmHWM, the same imports in both), the two
  alternating.
- Whole reads against the earlier readers (``--whole`` alone): the row path's reader (main before the plain sparse
  blocks), main's and this tree's, each read in its own child process, the three in turn for each file; Bibtex also
  decompressed, as a user's own file often comes.
"""

from __future__ import annotations

import argparse
import bz2
import dataclasses
import io
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from benchmarks.arff_identity import ROOT, extract, merge_base
from benchmarks.generated import make_delicious_like
from benchmarks.results_file import results_path, write_section
from benchmarks.run import machine_info
from mlhidden.data import read_arff, write_arff
from mlhidden.data.arff import read as arff_read
from mlhidden.data.arff import rows as arff_rows
from mlhidden.data.arff.stream import TextStream
from mlhidden.shipped import shipped_folder

SPARSE = ["Bibtex", "Corel5k", "Enron", "Medical", "OHSUMED", "Reuters-K500"]
QUICK_SPARSE = ["Medical"]
WHOLE = ["Bibtex", "Corel5k", "OHSUMED", "Enron"]
DENSE_HEADER = "@relation 'Bomb: -C 1'\n@attribute y {0,1}\n@attribute x numeric\n@data\n1,0.5\n"
DENSE_CHILD = """
import resource, sys, time
import numpy as np, pandas as pd
from mlhidden.data.cache import load_arff_file
from mlhidden.io import sha256_of
kind, path = sys.argv[1:]
start = resource.getrusage(resource.RUSAGE_SELF)
if kind == "ours":
    X = load_arff_file(path, sha256_of(path), None, None).X
else:
    X = pd.read_csv(path, skiprows=4, header=None, dtype=np.float64, engine="c").to_numpy()
end = resource.getrusage(resource.RUSAGE_SELF)
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(end.ru_utime + end.ru_stime - start.ru_utime - start.ru_stime, peak >> 10, X.shape[0])
"""

WHOLE_CHILD = """
import sys, time
sys.meta_path = [finder for finder in sys.meta_path if "editable" not in repr(finder).lower()]  # PYTHONPATH wins
sys.path.insert(0, sys.argv[1])
import mlhidden
from mlhidden.data import read_arff
assert mlhidden.__file__.startswith(sys.argv[1]), mlhidden.__file__
start = time.process_time()
read_arff(sys.argv[2])
print(time.process_time() - start)
"""
ROW_PATH_REF = "43c5749"
"""main before the plain sparse blocks (c216bd6) were merged: every sparse row read line by line, as when issue 55
asked for 5x."""


def cpu_seconds(work: Callable[[], object]) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


def without_plain_sparse(work: Callable[[], object]) -> Callable[[], object]:
    """``work`` run with the plain sparse blocks switched off: the row-by-row path alone."""

    def run() -> object:
        kept, arff_rows.sparse_values = arff_rows.sparse_values, lambda *_: None
        try:
            return work()
        finally:
            arff_rows.sparse_values = kept

    return run


def data_section(path: Path) -> Callable[[], object]:
    """Parsing the data rows of ``path`` alone, the text decompressed and the header read beforehand."""
    with TextStream(path) as stream:
        layout, _, attributes = arff_read._read_header(path, stream)
        blocks = list(stream.blocks())
    return lambda: arff_rows.read_rows(path, blocks, attributes, layout.data_line or 0)


def pandas_tokens(path: Path) -> Callable[[], object]:
    """``pandas.read_csv`` of the data section's tokens, one a line, as float64: the C parser's peer."""
    text = (bz2.open(path) if path.suffix == ".bz2" else open(path, "rb")).read()
    section = text[text.lower().index(b"\n@data") + 6:]
    one_a_line = b"\n".join(section.translate(bytes.maketrans(b"{},\t\r", b"     ")).split())
    return lambda: pd.read_csv(io.BytesIO(one_a_line), header=None, dtype="float64", engine="c")


def bench_sparse(path: Path, repeats: int) -> list[str]:
    read = lambda: read_arff(path)  # noqa: E731
    section = data_section(path)
    cases = {
        "read before": without_plain_sparse(read), "read after": read,
        "rows before": without_plain_sparse(section), "rows after": section, "pandas": pandas_tokens(path),
    }
    seconds: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(repeats):
        for name, work in cases.items():
            seconds[name].append(cpu_seconds(work))
    median = {name: statistics.median(values) for name, values in seconds.items()}
    return [
        f"| {path.name} | {median['read before']:.3f} | {median['read after']:.3f} | "
        f"{median['read before'] / median['read after']:.1f}x | {median['rows before']:.3f} | "
        f"{median['rows after']:.3f} | {median['rows before'] / median['rows after']:.1f}x | {median['pandas']:.3f} | "
        f"{median['rows after'] / median['pandas']:.2f} |"
    ]


def bench_whole(paths: list[Path], repeats: int, before: str) -> list[str]:
    """Whole reads (``read_arff``, which never consults the parse cache) by the row path's reader, ``before``'s (main's)
    and this tree's, each in its own child process (CPU s without the imports), the three in turn for every file."""
    readers = {"row path": ROW_PATH_REF, "main": before}
    seconds: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        sources = {"this": ROOT}
        for name, ref in readers.items():
            sources[name] = Path(scratch) / name
            sources[name].mkdir()
            extract(ref, sources[name])
        for _ in range(repeats):
            for path in paths:
                for name, source in sources.items():
                    env = {"PYTHONPATH": str(source), "PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "1"}
                    result = subprocess.run(
                        [sys.executable, "-c", WHOLE_CHILD, str(source), str(path)], capture_output=True, text=True,
                        check=True, env=env,
                    )
                    seconds.setdefault((path.name, name), []).append(float(result.stdout))
    lines = [
        f"Whole reads, each in a child process (CPU s of `read_arff`, imports excluded; medians of {repeats} rounds, "
        f"the three readers in turn for each file): the row path = {ROW_PATH_REF} (main before the plain sparse "
        f"blocks), main = {readers['main'][:10]}, this = this tree.",
        "",
        "| file | row path | main | this | this vs main | this vs row path |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for path in paths:
        row, main, this = (statistics.median(seconds[path.name, name]) for name in ("row path", "main", "this"))
        lines.append(f"| {path.name} | {row:.3f} | {main:.3f} | {this:.3f} | {main / this:.2f}x | {row / this:.2f}x |")
    return lines


def bench_dense(folder: Path, rows: int, repeats: int) -> list[str]:
    path = folder / "rows.arff.bz2"
    path.write_bytes(bz2.compress((DENSE_HEADER + "0,0\n" * (rows - 1)).encode(), 9))
    measured: dict[str, list[tuple[float, int]]] = {"ours": [], "pandas": []}
    for attempt in range(repeats):
        for kind in measured:
            cache = folder / f"cache-{kind}-{attempt}"
            cache.mkdir()
            result = subprocess.run(
                [sys.executable, "-c", DENSE_CHILD, kind, str(path)], capture_output=True, text=True, check=True,
                env={"MLHIDDEN_CACHE": str(cache), "OPENBLAS_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"},
            )
            seconds, peak, count = result.stdout.split()
            assert int(count) == rows, result.stdout
            measured[kind].append((float(seconds), int(peak)))
    ours, peer = ({name: statistics.median(v[i] for v in measured[kind]) for i, name in enumerate(("s", "mib"))}
                  for kind in ("ours", "pandas"))
    size = len(DENSE_HEADER) + 4 * (rows - 1)
    return [
        f"Dense: {rows:,} rows, {size / 1e6:.0f} MB of text, {path.stat().st_size:,} B as bz2, read into an empty "
        f"cache (medians of {repeats} alternating child processes, CPU s of the read, VmHWM with the imports):",
        "",
        "| reader | CPU s | peak MiB |",
        "|---|---:|---:|",
        f"| mlhidden (load_arff_file, cold cache) | {ours['s']:.2f} | {ours['mib']:.0f} |",
        f"| pandas.read_csv, data section | {peer['s']:.2f} | {peer['mib']:.0f} |",
        f"| ratio | {ours['s'] / peer['s']:.2f}x | {ours['mib'] / peer['mib']:.2f}x |",
    ]


def delicious_shaped(folder: Path, quick: bool) -> list[Path]:
    """Files of Delicious' shape (16,105 rows, 500 words, 983 labels): as ``write_arff`` writes it (a word's value
    ``1.0``), and with every value spelled ``1``, as in the Mulan files shipped (Bibtex, Corel5k, Enron, Medical,
    OHSUMED: each sparse value is the token ``1``)."""
    path = folder / "Delicious-shaped.arff"
    shaped = make_delicious_like(n_samples=2000 if quick else 16105, n_labels=983)
    names = {"feature_names": tuple(f"word{i}" for i in range(shaped.n_features)),
             "label_names": tuple(f"tag{j}" for j in range(shaped.n_labels))}
    write_arff(dataclasses.replace(shaped, **names), path)
    mulan = folder / "Delicious-shaped-as-Mulan.arff"
    mulan.write_bytes(path.read_bytes().replace(b" 1.0,", b" 1,").replace(b" 1.0}", b" 1}"))
    assert b"1.0" not in mulan.read_bytes().split(b"@data")[1]
    return [path, mulan]


def decompressed(path: Path, folder: Path) -> Path:
    """``path`` (a ``.bz2``) decompressed into ``folder``, as a user's own data often comes."""
    plain = folder / path.stem
    plain.write_bytes(bz2.decompress(path.read_bytes()))
    return plain


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a check that it runs: one small file, fewer rows")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--whole", action="store_true", help="only the whole reads against the earlier readers")
    parser.add_argument("--before", default=None, help="the earlier reader of the whole reads (default: main)")
    args = parser.parse_args(argv)
    repeats = args.repeats or (1 if args.quick else 5)
    data = shipped_folder("datasets")
    lines = ["## ARFF reader: plain sparse blocks and the dense path against pandas (benchmarks/arff_read.py)", ""]
    lines += machine_info("benchmarks.arff_read") + [""]
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        delicious = delicious_shaped(folder, args.quick)
        if not args.whole:
            lines += [
                f"Sparse: CPU s, medians of {repeats} interleaved repetitions in one process; before = the row-by-row "
                "path (plain sparse blocks switched off), after = this reader; rows = the data section alone "
                "(decompressed beforehand); pandas = read_csv of the same tokens one a line as float64, without "
                "building that text or any check (after / pandas in the last column).",
                "",
                "| file | read before | read after | speed-up | rows before | rows after | speed-up | pandas tokens | "
                "rows / pandas |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
            ]
            for path in [*(data / f"{name}.arff.bz2" for name in (QUICK_SPARSE if args.quick else SPARSE)), *delicious]:
                lines += bench_sparse(path, repeats)
                print(lines[-1], flush=True)
            lines.append("")
        whole = QUICK_SPARSE if args.quick else WHOLE
        files = [*(data / f"{name}.arff.bz2" for name in whole), decompressed(data / f"{whole[0]}.arff.bz2", folder)]
        lines += bench_whole([*files, *delicious], repeats, args.before or merge_base())
        print("\n".join(lines[-len(files) - len(delicious):]), flush=True)
        if not args.whole:
            lines += [""] + bench_dense(folder, 650_000 if args.quick else 6_500_000, 1 if args.quick else 3)
            print("\n".join(lines[-7:]))
    write_section("arff_whole" if args.whole else "arff_read", "\n".join(lines), results_path(args.quick))


if __name__ == "__main__":
    main()
