"""A method's full identity once resolved from a config entry: :class:`ResolvedMethod`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ResolvedMethod:
    """What a configured method is, every default filled in: the store keys its units on it (:meth:`as_dict`,
    hashed), so that writing a default explicitly in a config does not make a new method.

    ``name``: the registry name; ``params``: every parameter's value; ``base``: the resolved base learner
    (``{name, params}``; None for a method that takes none); ``preprocess``: its input preprocessing steps
    (``[{name, params}, ...]``; None without, :mod:`~mlhidden.methods.preprocessing`).
    """

    name: str
    params: dict[str, Any]
    base: dict[str, Any] | None = None
    preprocess: list[dict[str, Any]] | None = None

    def as_dict(self) -> dict[str, Any]:
        """Its plain form, as the store's ``params_json`` and a run's record hold it: the parts it has."""
        plain: dict[str, Any] = {"name": self.name, "params": self.params}
        if self.base is not None:
            plain["base"] = self.base
        if self.preprocess is not None:
            plain["preprocess"] = self.preprocess
        return plain

    @classmethod
    def from_dict(cls, plain: Mapping[str, Any]) -> ResolvedMethod:
        """Read back :meth:`as_dict`'s form (a stored run's record)."""
        return cls(plain["name"], plain["params"], plain.get("base"), plain.get("preprocess"))
