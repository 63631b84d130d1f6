"""Every real ARFF file and every bad one read by an earlier reader and by this one: the same matrices (X, Y, names,
dtypes, dense or CSR) and the same one-line errors, compared by hash.

    python -m benchmarks.arff_identity [--before REF]

The files: the shipped ``datasets/`` (and their upstream Mulan pairs, ARFF + XML), the mirror
``../shared/datasets/`` and its ``upstream/`` pairs where they exist, and the bad-input corpus
``tests/fixtures/bad/``. The earlier reader is ``mlhidden/`` at ``REF`` (default: where this branch left
``main``), taken with ``git archive`` and run in a child process; this one runs in another.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import hashlib, json, sys
sys.meta_path = [finder for finder in sys.meta_path if "editable" not in repr(finder).lower()]  # PYTHONPATH wins
sys.path.insert(0, sys.argv[1])
import mlhidden
from mlhidden.data import read_arff
from mlhidden.errors import UserError
assert mlhidden.__file__.startswith(sys.argv[1]), mlhidden.__file__
for path, xml in json.loads(sys.stdin.read()):
    try:
        data = read_arff(path, labels_xml=xml)
    except UserError as error:
        print(json.dumps([path, "error: " + str(error)]))
        continue
    X = data.X
    parts = [X.data, X.indices, X.indptr] if data.is_sparse else [X]
    digest = hashlib.sha256(repr((data.name, data.is_sparse, X.shape, str(X.dtype), str(data.Y.dtype), data.Y.shape,
                                  data.feature_names, data.label_names)).encode())
    for part in [*parts, data.Y]:
        digest.update(part.tobytes())
    print(json.dumps([path, digest.hexdigest()]))
"""


def files() -> list[tuple[str, str | None]]:
    """(ARFF file, its Mulan XML or None) for every file compared."""
    found: list[tuple[str, str | None]] = []
    for folder in (ROOT / "datasets", ROOT.parent / "shared" / "datasets", Path("/work/shared/datasets")):
        if not folder.is_dir():
            continue
        found += [(str(path), None) for path in sorted(folder.glob("*.arff*"))]
        for path in sorted((folder / "upstream").glob("*.arff*")):
            xml = path.parent / (path.name.split(".arff")[0].replace("-sparse", "") + ".xml")
            found.append((str(path), str(xml) if xml.is_file() else None))
    bad = ROOT / "tests" / "fixtures" / "bad"
    found += [(str(path), None) for path in sorted(bad.iterdir()) if ".arff" in path.name]
    return list(dict.fromkeys(found))


def merge_base() -> str:
    """Where this branch left ``main``: the earlier reader by default."""
    return subprocess.run(
        ["git", "merge-base", "HEAD", "main"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()


def extract(ref: str, folder: Path) -> None:
    """``mlhidden/`` at ``ref`` into ``folder``, for a child process's PYTHONPATH."""
    archive = subprocess.run(["git", "archive", ref, "mlhidden"], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)


def outcomes(source: Path, specs: list[tuple[str, str | None]]) -> dict[str, str]:
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(source)], input=json.dumps(specs), capture_output=True, text=True,
        env={"PYTHONPATH": str(source), "PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "1"},
    )
    if result.returncode:
        raise SystemExit(f"the reader in {source} failed:\n{result.stderr[-3000:]}")
    return dict(json.loads(line) for line in result.stdout.splitlines())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=None, help="the earlier reader (default: merge-base with main)")
    args = parser.parse_args(argv)
    before = args.before or merge_base()
    specs = files()
    with tempfile.TemporaryDirectory() as scratch:
        extract(before, Path(scratch))
        old = outcomes(Path(scratch), specs)
    new = outcomes(ROOT, specs)
    differ = [path for path, _ in specs if old.get(path) != new.get(path)]
    errors = sum(value.startswith("error: ") for value in new.values())
    print(f"{len(specs) - len(differ)} of {len(specs)} files read the same by {before[:10]} and this tree "
          f"({len(specs) - errors} datasets, {errors} refusals)")
    for path in differ:
        print(f"DIFFERENT: {path}\n  before: {old.get(path)}\n  after:  {new.get(path)}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
