"""The project's own data folders (the paper's ``datasets/`` and ``configs/``), in a clone or in an installed wheel.

A clone (and an editable install of it) keeps them at the top of the repository, where the design
asks for them; a wheel carries the same files inside the package, as ``mlhidden/_shipped/NAME``
(``[tool.setuptools.package-dir]`` in pyproject.toml maps the one to the other), so that an
installed ``mlhidden`` finds them from any folder.
"""

from __future__ import annotations

import os
from pathlib import Path

from mlhidden.errors import UserError, did_you_mean

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


def shipped_configs() -> tuple[str, ...]:
    """The shipped configs' names (``paper`` for ``paper.yaml``), sorted."""
    return tuple(sorted(path.stem for path in shipped_folder("configs").glob("*.yaml")))


def config_file(given: str | os.PathLike[str]) -> Path:
    """The file ``--config GIVEN`` reads: ``given`` when a file is there, else the shipped config of that name.

    A wheel has no ``configs/`` folder to give a path into, so ``paper`` names the shipped ``paper.yaml``
    from any folder. A path that is neither is returned as it is, for the reader's "not found".
    """
    path = Path(given)
    shipped = shipped_folder("configs") / f"{path.name}.yaml"
    if path.exists() or path.name != str(given) or path.suffix or not shipped.is_file():
        return path
    return shipped


def config_not_found_hint(given: str | os.PathLike[str]) -> str:
    """What to give instead of a config that is neither a file nor a shipped config's name."""
    names = shipped_configs()
    return (f"{did_you_mean(Path(given).stem, names)}check the path given to --config, "
            f"or name a shipped config: {', '.join(names)}")


def shipped_config(name: str) -> Path:
    """The shipped config ``name`` (``init --from``); an unknown name is a ``UserError`` listing them."""
    path = shipped_folder("configs") / f"{name}.yaml"
    if Path(name).name != name or not path.is_file():
        names = shipped_configs()
        raise UserError(f"no shipped config named '{name}'",
                        hint=f"{did_you_mean(name, names)}use one of {', '.join(names)}")
    return path
