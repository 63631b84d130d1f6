"""The project's own data folders (the paper's ``datasets/`` and ``configs/``), in a clone or in an installed wheel.

A clone (and an editable install of it) keeps them at the top of the repository, where the design
asks for them; a wheel carries the same files inside the package, as ``mlhidden/_shipped/NAME``
(``[tool.setuptools.package-dir]`` in pyproject.toml maps the one to the other), so that an
installed ``mlhidden`` finds them from any folder.
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
SHIPPED_NAMES = ("datasets", "configs")


def shipped_folder(name: str) -> Path:
    """The folder ``name`` (``datasets`` or ``configs``): the wheel's copy inside the package when
    there is one, else the clone's top-level folder (which may be missing in a damaged checkout)."""
    if name not in SHIPPED_NAMES:
        raise ValueError(f"no shipped folder {name!r}; there are {', '.join(SHIPPED_NAMES)}")
    inside = PACKAGE_DIR / "_shipped" / name
    return inside if inside.is_dir() else PACKAGE_DIR.parent / name


def config_folder(given: str | os.PathLike[str] | None = None) -> Path:
    """Where the paper's configs are read from: ``given`` (``--configs DIR``), else ``./configs`` when
    the current folder has one (a clone's root), else the shipped configs (an installed wheel, any folder)."""
    if given is not None:
        return Path(given)
    return Path("configs") if Path("configs").is_dir() else shipped_folder("configs")
