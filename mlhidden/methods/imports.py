"""Classes named by import path, and the installed package that provides them."""

from __future__ import annotations

import importlib
import inspect
from importlib import metadata

from mlhidden.errors import UserError


def is_import_path(name: str) -> bool:
    """Whether ``name`` is written as an import path (``pkg.module.Name`` or ``pkg.module:Name``)."""
    return ":" in name or "." in name


def import_object(path: str, what: str):
    """The object at ``pkg.module.Name`` or ``pkg.module:Name``, or a one-line ``UserError``.

    Whatever importing the module raises (a missing package, an error in the user's own module)
    is reported in one line naming ``what`` the path was for.
    """
    module_name, _, attr = path.partition(":") if ":" in path else path.rpartition(".")
    if not module_name or not attr:
        raise UserError(f"{what} '{path}' is not an import path", hint="write package.module.Name or package.module:Name")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # the user's module: any error in it is theirs to fix
        message = f"cannot import {what} '{path}': {type(exc).__name__}: {exc}".splitlines()[0]
        raise UserError(message, hint="is its package installed in this environment?") from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise UserError(f"cannot import {what} '{path}': module '{module_name}' has no attribute '{attr}'") from None


def named_class(name: str, what: str, kind: str, needs: tuple, hint: str):
    """The class at import path ``name``, with the methods ``needs``, or a one-line ``UserError``.

    ``what`` names the config entry (``base learner``), ``kind`` the scikit-learn kind of class
    expected (``estimator``); ``hint`` says what to write instead of a name that is not a path.
    """
    if not is_import_path(name):
        raise UserError(f"unknown {what} '{name}'", hint=hint)
    cls = import_object(name, what)
    if not (inspect.isclass(cls) and all(callable(getattr(cls, method, None)) for method in needs)):
        raise UserError(f"{what} '{name}' is not a scikit-learn {kind} class", hint=f"name a class with {' and '.join(needs)}")
    return cls


def provider(obj) -> dict:
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
