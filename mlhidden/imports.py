"""Objects named by import path (``pkg.module:Name``), the entry points of installed packages, and
the installed package that provides an object: how users plug their own methods, base learners,
dataset loaders and metrics into mlhidden.

The working folder is importable, as pytest makes a project's rootdir importable: the installed
``mlhidden`` is a console script, whose own folder, not the one it is run from, is on ``sys.path``,
so ``-m mymethods.wrap:MyBR`` would otherwise need ``PYTHONPATH=.``.
"""

from __future__ import annotations

import importlib
import os
import sys
from importlib import metadata
from typing import Any

from mlhidden.errors import UserError


def is_import_path(name: str) -> bool:
    """Whether ``name`` is written as an import path (``pkg.module.Name`` or ``pkg.module:Name``)."""
    return ":" in name or "." in name


def working_folder_importable() -> None:
    """Put the working folder first on ``sys.path`` (as ``python -m`` does), once.

    Worker processes started after this inherit ``sys.path``, so they import the user's modules too.
    """
    folder = os.getcwd()
    if folder not in sys.path and "" not in sys.path:
        sys.path.insert(0, folder)


def import_object(path: str, what: str) -> Any:
    """The object at ``pkg.module.Name`` or ``pkg.module:Name``, or a one-line ``UserError``.

    The module may be in the working folder. Whatever importing it raises (a missing package, an
    error in the user's own module) is reported in one line naming ``what`` the path was for.
    """
    module_name, _, attr = path.partition(":") if ":" in path else path.rpartition(".")
    if not module_name or not attr:
        raise UserError(
            f"{what} '{path}' is not an import path", hint="write package.module.Name or package.module:Name"
        )
    working_folder_importable()
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # the user's module: any error in it is theirs to fix
        message = f"cannot import {what} '{path}': {type(exc).__name__}: {exc}".splitlines()[0]
        raise UserError(message, hint="is its package installed in this environment?") from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise UserError(f"cannot import {what} '{path}': module '{module_name}' has no attribute '{attr}'") from None


def load_entry_points(group: str, what: str) -> dict[str, tuple[Any, str]]:
    """``{name: (loaded object, source)}`` for every entry point of ``group``; ``source`` names the
    providing package and version. A plug-in that fails to load is a one-line ``UserError`` naming it."""
    found: dict[str, tuple[Any, str]] = {}
    for point in metadata.entry_points(group=group):
        source = f"{point.dist.name} {point.dist.version} (entry point)" if point.dist else "entry point"
        try:
            loaded = point.load()
        except Exception as exc:  # a broken plugin is its author's to fix; say which one
            message = f"cannot load {what} '{point.name}' from {source}: {type(exc).__name__}: {exc}"
            raise UserError(message.splitlines()[0]) from None
        found[point.name] = (loaded, source)
    return found


def provider(obj: object) -> dict[str, str | None]:
    """The installed distribution that provides ``obj``'s top-level package, and its version.

    A module outside any installed distribution (a script's folder on ``sys.path``) has package
    and version None; its module name is still recorded.
    """
    module = obj.__module__
    top = module.partition(".")[0]
    names = metadata.packages_distributions().get(top, [])
    if not names:
        return {"module": module, "package": None, "version": None}
    return {"module": module, "package": names[0], "version": metadata.version(names[0])}
