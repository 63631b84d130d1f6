"""A package's public names, each imported from its module on first use (a module ``__getattr__``, PEP 562).

A package re-exports its public names this way so that importing it, or any one of its modules,
loads none of the modules behind those names until one is used: ``import mlhidden`` stays cheap,
and the command line, which imports a few modules of each layer, loads no others.
This module imports nothing but the standard library, as the package root loads it before numpy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_names(package: str, exports: Mapping[str, str]) -> tuple[Callable[[str], Any], list[str]]:
    """``package``'s ``__getattr__`` and ``__all__``: each name of ``exports`` imported from the module it gives.

    ``__getattr__`` raises ``AttributeError`` for any other name, as a module does.
    """

    def attribute(name: str) -> Any:
        if name not in exports:
            raise AttributeError(f"module '{package}' has no attribute '{name}'")
        return getattr(import_module(exports[name]), name)

    return attribute, list(exports)
