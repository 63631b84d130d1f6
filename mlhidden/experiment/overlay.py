"""An overlay on a config: base learners replaced by name, and input preprocessing for the methods re-based.

A study that runs one config under several base-learner settings (the paper's sensitivity
settings, :mod:`mlhidden.paper.settings`) hands :func:`~mlhidden.experiment.config.load_config`
a :class:`BaseOverlay`. The config parser applies it to each method entry before resolving it,
so every method is resolved, built and checked once, by the checks of any config, and its
problems are reported at the line of its entry.

A method whose base learner is named in ``base`` gets the replacement and the overlay's
``preprocess`` (None: none); the others are unchanged. A method that fits one multi-class model
(LP) on a binary-only replacement (liblinear) gets it wrapped in one-vs-rest, as scikit-learn's
liblinear did itself before 1.8; the config lists each such adjustment.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mlhidden.methods.base_learners import binary_only, parse_base_spec
from mlhidden.methods.preprocessing import method_of
from mlhidden.methods.registry import MethodEntry

ONE_VS_REST = "sklearn.multiclass.OneVsRestClassifier"


@dataclass(frozen=True)
class BaseOverlay:
    """Replacement base-learner specs by the name of the base learner they replace, and preprocessing."""

    base: Mapping[str, Any] = field(default_factory=dict)
    preprocess: list[Any] | None = None

    def replacement(self, entry: MethodEntry, base: object) -> Any:
        """The base-learner spec replacing a method's ``base`` (None: its entry's default), or None to keep it."""
        if not entry.takes_base:
            return None
        return self.base.get(parse_base_spec(entry.base if base is None else base)[0])


def needs_one_vs_rest(estimator: Any) -> bool:
    """Whether a method fits one multi-class model on a base learner that refuses more than two classes."""
    method = method_of(estimator)
    return bool(method._needs_multiclass()) and binary_only(method.estimator)


def one_vs_rest(base: object) -> dict[str, Any]:
    """``base`` wrapped so that it fits a multi-class problem one class at a time."""
    return {"name": ONE_VS_REST, "params": {"estimator": base}}
