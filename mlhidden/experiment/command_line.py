"""Config entries written on the command line: ``-m "NAME[param=value,...]"`` and ``--protocol KIND:FOLDS``.

They become the same entries a YAML config holds, so every check of a config applies to them
and a method written inline is the method a config file would describe. Values are YAML scalars
(``4``, ``0.5``, ``true``, ``lbfgs``, ``[2, 1, 0]``), as in a config file; exponent numbers
without a dot (``1e-3``) are numbers too, as in YAML 1.2.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import yaml

from mlhidden.errors import UserError, did_you_mean
from mlhidden.experiment.sweeps import point_label
from mlhidden.imports import is_import_path
from mlhidden.methods.registry import method_name, registered_methods
from mlhidden.runs.specs import canonical_hash
from mlhidden.runs.splits import HOLDOUT, PROTOCOL_KINDS

_INLINE = re.compile(r"(?P<name>[^\[\]]+)\[(?P<body>.*)\]", re.DOTALL)
_INLINE_FORM = "write NAME[param=value,...], e.g. CCASL[n_synthetic=4], BR[base.C=10] or BR[base=random_forest]"
_OPENING, _CLOSING = "[{", "]}"
_OTHER_BRACKETS = re.compile(r"(?P<name>[^\[\](){}]+)[({](?P<body>.*)[)}]", re.DOTALL)
"""``NAME(param=value)`` or ``NAME{...}``: parameters in the wrong brackets (no method or import path has them)."""
RUN_NAME_CHARACTERS = 40
"""The longest name :func:`run_name` spells out in full; a longer one is abbreviated."""
_FIRST_CHARACTERS = 12


def run_name(datasets: Sequence[object], methods: Sequence[str]) -> str:
    """The name of the run ``-d``/``-m`` give, which names its folder ``results/NAME``.

    The datasets' file stems and the methods as written (``birds-mine_BR-CCASL+AML``) while that
    is short enough to read; past :data:`RUN_NAME_CHARACTERS`, the first dataset and method with
    how many more, and a digest of every value as given (``birds+4_BR+11_3f2a1c``), so that a long
    run's folder stays readable and two different runs never share one.
    """
    stems = [Path(str(d)).name.split(".")[0] for d in datasets]
    spelled = _folder_safe("-".join(stems) + "_" + "-".join(map(str, methods)))
    if len(spelled) <= RUN_NAME_CHARACTERS:
        return spelled
    digest = canonical_hash([[str(d) for d in datasets], [str(m) for m in methods]])[:6]
    return _folder_safe(f"{_first_and_count(stems)}_{_first_and_count(methods)}_{digest}")


def _first_and_count(values: Sequence[object]) -> str:
    more = f"+{len(values) - 1}" if len(values) > 1 else ""
    return str(values[0])[:_FIRST_CHARACTERS] + more


def _folder_safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9+._-]+", "_", text)


def method_option(text: str) -> dict[str, Any]:
    """A ``-m`` value as a config's method entry: ``{"name": ...}`` plus ``"params"`` when it has any.

    ``base=NAME`` chooses the base learner (a config entry's ``base``), and ``base.NAME=value``
    sets its parameter ``NAME`` (see the ``params`` of a method entry in a config).
    """
    text = str(text).strip()
    other = _OTHER_BRACKETS.fullmatch(text)
    if other is not None and "=" in other["body"]:
        raise UserError(f"-m {text!r}: parameters go in square brackets, -m '{other['name']}[{other['body']}]'",
                        hint=_INLINE_FORM)
    if "[" not in text and "]" not in text:
        return {"name": text}
    match = _INLINE.fullmatch(text)
    if match is None or not match["name"].strip():
        raise UserError(f"-m {text!r}: {_INLINE_FORM}")
    params = {}
    for item in _top_level_items(match["body"], text):
        key, equals, value = item.partition("=")
        if not equals or not key.strip():
            raise UserError(f"-m {text!r}: {_INLINE_FORM}", hint=f"'{item.strip()}' has no '=value'")
        params[key.strip()] = _scalar(value.strip(), text)
    entry: dict[str, Any] = {"name": match["name"].strip()}
    if "base" in params:
        entry["base"] = params.pop("base")
    return {**entry, "params": params} if params else entry


def _inline_settings(entry: dict[str, Any]) -> dict[str, Any]:
    """What the brackets of a ``-m`` value set: its base learner, then its parameters, as written."""
    return {**({"base": entry["base"]} if "base" in entry else {}), **entry.get("params", {})}


def _top_level_items(body: str, text: str) -> list[str]:
    """``body`` split at the commas outside brackets, so that list values keep theirs."""
    items, depth, start = [], 0, 0
    for i, char in enumerate(body):
        depth += (char in _OPENING) - (char in _CLOSING)
        if depth < 0:
            raise UserError(f"-m {text!r}: {_INLINE_FORM}", hint="a bracket closes that was not opened")
        if char == "," and depth == 0:
            items.append(body[start:i])
            start = i + 1
    if depth:
        raise UserError(f"-m {text!r}: {_INLINE_FORM}", hint="a bracket is not closed")
    items.append(body[start:])
    return [item for item in items if item.strip()]


def _scalar(value: str, text: str) -> Any:
    try:
        parsed = yaml.safe_load(value) if value else None
    except yaml.YAMLError as exc:
        problem = str(getattr(exc, "problem", None) or exc).splitlines()[0]
        raise UserError(f"-m {text!r}: the value {value!r} is not YAML ({problem})", hint="quote text values") from None
    if isinstance(parsed, str) and re.fullmatch(r"[-+]?\d+[eE][-+]?\d+", parsed):
        return float(parsed)
    return parsed


def protocol_option(text: str) -> dict[str, Any]:
    """A ``--protocol`` value, ``holdout``, ``kfold:K`` or ``stratified_kfold:K``, as a config's ``protocol`` entry."""
    kind, colon, folds = str(text).strip().partition(":")
    folds_given = folds.strip().isdigit() if kind != HOLDOUT else not colon
    if kind not in PROTOCOL_KINDS or (colon and not folds_given):
        raise UserError(
            f"--protocol {text!r}: write holdout, kfold:K or stratified_kfold:K",
            hint=f"{did_you_mean(kind, PROTOCOL_KINDS)}K is the number of folds, e.g. kfold:5",
        )
    return {"kind": kind, **({"folds": int(folds)} if colon else {})}


def default_label(name: str) -> str:
    """A method's column when its entry has no label: its name, or an import path's class name."""
    return re.split(r"[.:]", name)[-1] if is_import_path(name) and name not in registered_methods() else name


def method_entries(methods: Iterable[str], labels: Iterable[str] = ()) -> list[dict[str, Any]]:
    """The config entries of ``-m`` values (:func:`method_option`), labelled by ``--label`` in order.

    A method with parameters is labelled ``NAME [param=value]``, as a sweep point is, so that one
    method with several settings gets distinct columns; an empty ``--label`` keeps that default.
    """
    entries = [method_option(text) for text in methods]
    entries = [
        {**entry, "label": point_label(default_label(method_name(entry["name"])), _inline_settings(entry))}
        if _inline_settings(entry) else entry
        for entry in entries
    ]
    labels = list(labels)
    if len(labels) > len(entries):
        raise UserError(
            f"{len(labels)} --label for {len(entries)} -m: each --label names the -m at its position",
            hint="give at most one --label per -m, '' to keep a method's default label",
        )
    labelled = [{**entry, "label": label} if label else entry for entry, label in zip(entries, labels)]
    return labelled + entries[len(labels):]
