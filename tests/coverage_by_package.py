"""Print the line coverage of each package of mlhidden from the ``.coverage`` file pytest-cov wrote.

``make test`` runs it after the suite; a package below the 85 % the project aims for is marked.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

import coverage

TARGET = 85.0


def package_of(path: Path, root: Path) -> str:
    """``mlhidden.<package>`` for a module in a subpackage, ``mlhidden`` for the top-level modules."""
    parts = path.relative_to(root).parts
    return "mlhidden" if len(parts) == 1 else f"mlhidden.{parts[0]}"


def main(data_file: str = ".coverage") -> int:
    data = coverage.Coverage(data_file=data_file)
    data.load()
    root = Path("mlhidden").resolve()
    statements, missing = defaultdict(int), defaultdict(int)
    for name in data.get_data().measured_files():
        path = Path(name).resolve()
        if root not in path.parents:
            continue
        _, lines, _, missed, _ = data.analysis2(str(path))
        package = package_of(path, root)
        statements[package] += len(lines)
        missing[package] += len(missed)
    print(f"{'package':<22} {'statements':>10} {'missed':>7} {'cover':>7}")
    for package in sorted(statements):
        percent = 100.0 * (statements[package] - missing[package]) / max(statements[package], 1)
        mark = "" if percent >= TARGET else f"  (below {TARGET:.0f} %)"
        print(f"{package:<22} {statements[package]:>10} {missing[package]:>7} {percent:>6.1f}%{mark}")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
