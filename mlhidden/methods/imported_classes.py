"""Classes named by import path, checked for the scikit-learn methods a config entry needs."""

from __future__ import annotations

import inspect
from typing import Any

from mlhidden.errors import UserError
from mlhidden.imports import import_object, is_import_path


def named_class(name: str, what: str, kind: str, needs: tuple[str, ...], hint: str) -> Any:
    """The class at import path ``name``, with the methods ``needs``, or a one-line ``UserError``.

    ``what`` names the config entry (``base learner``), ``kind`` the scikit-learn kind of class
    expected (``estimator``); ``hint`` says what to write instead of a name that is not a path.
    """
    if not is_import_path(name):
        raise UserError(f"unknown {what} '{name}'", hint=hint)
    cls = import_object(name, what)
    if not (inspect.isclass(cls) and all(callable(getattr(cls, method, None)) for method in needs)):
        raise UserError(
            f"{what} '{name}' is not a scikit-learn {kind} class", hint=f"name a class with {' and '.join(needs)}"
        )
    return cls
