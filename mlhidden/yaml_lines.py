"""Config YAML read with the line of every key, so that a wrong value is reported at its line.

Run configs, the sensitivity config and claims files read their files here. A config is plain data:
text, numbers, true/false, dates, lists and mappings with plain keys. Anything else (a python or
binary tag, a list as a key, a key given twice, an alias inside itself), and anything that expands
far beyond what is written (nested deeper than ``MAX_NESTING``, aliases adding more than
``MAX_VALUES`` values), is one ``UserError`` at its line, found before any value is built. Only a
regular file is read: a pipe or a device could block or never end.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NoReturn, Protocol

import yaml

from mlhidden.errors import UserError, did_you_mean
from mlhidden.io import file_kind

MAX_NESTING = 50
"""The deepest a config's lists and mappings may nest (aliases expanded); real configs use 5."""
MAX_VALUES = 100_000
"""The most values (scalars, lists, mappings) a config's aliases may add to what it writes out.

What is written costs its size to read whatever it is, so only what aliases repeat is bounded."""

_CORE = "tag:yaml.org,2002:"
_SCALAR_TAGS = frozenset(_CORE + name for name in ("null", "bool", "int", "float", "str", "timestamp"))
_PLAIN_TAGS = {yaml.ScalarNode: _SCALAR_TAGS, yaml.SequenceNode: {_CORE + "seq"}, yaml.MappingNode: {_CORE + "map"}}
PLAIN_DATA = "a config holds plain values: text, numbers, true/false, lists and mappings"
TOO_BIG = f"aliases may add at most {MAX_VALUES:,} values: use fewer or smaller aliases *name"
TOO_DEEP = f"a config nests at most {MAX_NESTING} deep: flatten it"
KeyPath = tuple[Any, ...]
"""Where a value is in a config: its keys and list positions from the top, e.g. ``("methods", 0, "name")``."""


class Fail(Protocol):
    """What :func:`failure_at` returns: raises a UserError at the config line of ``where`` (None: an option)."""

    def __call__(self, message: str, where: KeyPath | None = (), hint: str | None = None) -> NoReturn: ...


def _line(node: Any) -> int:
    return int(node.start_mark.line) + 1


class _LineTracker:
    """Builds plain Python values from a checked YAML node tree, remembering the line of every path."""

    def __init__(self, path: Path):
        self.path = path
        self.lines: dict[KeyPath, int] = {}
        self._constructor = yaml.constructor.SafeConstructor()
        self._extent: dict[int, tuple[int, int]] = {}
        self._repeated = 0

    def fail(self, message: str, node: Any, hint: str | None = None) -> NoReturn:
        raise UserError(message, path=self.path, line=_line(node), hint=hint)

    def check(self, node: Any, open_nodes: frozenset[int] = frozenset()) -> tuple[int, int]:
        """``node``'s (values, depth) with its aliases expanded, refusing what a config cannot hold.

        Each node is checked once (an alias reuses its anchor's count), so a billion-laughs
        document costs its written size, not its expanded size. The values aliases repeat are
        summed, and refused beyond ``MAX_VALUES`` at the list or mapping holding the alias that passed it.
        """
        if id(node) in self._extent:  # an alias: the node itself, so its line is its anchor's
            self._repeated += self._extent[id(node)][0]
            return self._extent[id(node)]
        if id(node) in open_nodes:
            self.fail(
                "an alias refers to the list or mapping that contains it",
                node,
                hint="a config cannot hold a value inside itself",
            )
        if node.tag not in _PLAIN_TAGS[type(node)]:
            self._refuse_tag(node)
        children = node.value if isinstance(node, yaml.SequenceNode) else []
        if isinstance(node, yaml.MappingNode):
            for key, _ in node.value:
                if not isinstance(key, yaml.ScalarNode):
                    self.fail(
                        f"a {'list' if isinstance(key, yaml.SequenceNode) else 'mapping'} used as a key",
                        key,
                        hint="keys are plain names",
                    )
            children = [item for pair in node.value for item in pair]
        inner = open_nodes | {id(node)}
        extents = [self.check(child, inner) for child in children]
        if self._repeated > MAX_VALUES:
            self.fail(f"aliases expand this file by more than {MAX_VALUES:,} values", node, hint=TOO_BIG)
        values, depth = (
            1 + sum(v for v, _ in extents),
            max((d for _, d in extents), default=0) + (not isinstance(node, yaml.ScalarNode)),
        )
        if depth > MAX_NESTING:
            self.fail(
                f"lists and mappings nested more than {MAX_NESTING} deep once aliases are expanded", node, hint=TOO_DEEP
            )
        self._extent[id(node)] = values, depth
        return values, depth

    def _refuse_tag(self, node: Any) -> NoReturn:
        if node.tag == _CORE + "merge":
            self.fail(
                "merge keys (<<) are not supported",
                node,
                hint="write the keys out, or give an alias *name as a whole value",
            )
        shown = node.tag.replace(_CORE, "!!")
        self.fail(f"the YAML tag {shown} is not allowed", node, hint=f"{PLAIN_DATA}; remove the tag")

    def build(self, node: Any, path: KeyPath = ()) -> Any:
        self.lines.setdefault(path, _line(node))
        if isinstance(node, yaml.MappingNode):
            result: dict[Any, Any] = {}
            for key_node, value_node in node.value:
                key = self._scalar(key_node)
                if key in result:
                    first = self.lines[path + (key,)]
                    self.fail(
                        f"key '{key}' appears twice, at lines {first} and {_line(key_node)}",
                        key_node,
                        hint="keep one of them",
                    )
                self.lines[path + (key,)] = _line(key_node)
                result[key] = self.build(value_node, path + (key,))
            return result
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, path + (i,)) for i, item in enumerate(node.value)]
        return self._scalar(node)

    def _scalar(self, node: Any) -> Any:
        try:
            return self._constructor.construct_object(node)
        except Exception:  # an explicit tag on text it cannot read (!!int abc): the user's to fix
            self.fail(
                f"cannot read {node.value!r} as {node.tag.replace(_CORE, '!!')}",
                node,
                hint="remove the tag or correct the value",
            )


def _too_deep(text: str) -> int | None:
    """The line where ``text`` nests deeper than ``MAX_NESTING``, found by the parser's events (which,
    unlike composing the node tree, do not recurse), else None."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > MAX_NESTING:
                return int(event.start_mark.line) + 1
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1
    return None


def _read_text(path: Path, what: str, missing: str) -> str:
    """The text of the regular file ``path``; ``what`` names it in errors, ``missing`` is the hint when it is absent."""
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            raise UserError(f"the {what} is {file_kind(mode)}, not a regular file", path=path,
                            hint=f"give the path of a {what}")
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"{what} not found", path=path, hint=missing) from None
    except UnicodeDecodeError as exc:
        raise UserError(f"cannot read the {what} as UTF-8 ({exc.reason} at byte {exc.start})", path=path,
                        hint="save it as UTF-8") from None
    except OSError as exc:
        raise UserError(f"cannot read the {what} ({exc.strerror or exc})", path=path) from None


def read_yaml_with_lines(
    path: Path, what: str = "config file", missing: str = "check the path given to --config"
) -> tuple[Any, dict[KeyPath, int]]:
    """The YAML file's value and the line of every key path in it, e.g. ``("methods", 0, "name")``.

    ``what`` names the file in errors; ``missing`` is the hint when there is none at ``path``.
    """
    text = _read_text(path, what, missing)
    try:
        deep = _too_deep(text)
        if deep is not None:
            raise UserError(
                f"lists and mappings nested more than {MAX_NESTING} deep", path=path, line=deep, hint=TOO_DEEP
            )
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        raise UserError(f"invalid YAML: {problem}", path=path, line=mark.line + 1 if mark else None) from None
    tracker = _LineTracker(path)
    if node is None:
        return None, tracker.lines
    tracker.check(node)
    return tracker.build(node), tracker.lines


def failure_at(source: str | os.PathLike[str] | None, lines: Mapping[KeyPath, int]) -> Fail:
    """``fail(message, where, hint)``: raise a UserError at the config line of the key path ``where``.

    ``where=None`` blames a command-line option (no line); a path without a line of its own takes
    the line of its nearest parent.
    """

    def fail(message: str, where: KeyPath | None = (), hint: str | None = None) -> NoReturn:
        if where is None:
            raise UserError(message, hint=hint)
        raise UserError(message, path=source, line=line_of(lines, where), hint=hint)

    return fail


def refuse_unknown_keys(
    mapping: Mapping[str, Any], keys: tuple[str, ...], where: KeyPath, fail: Fail, within: str = ""
) -> None:
    """Fail at the first key of ``mapping`` (at ``where``) that is not one of ``keys``, with a did-you-mean
    and the valid keys; ``within`` names what holds them ("in method entry")."""
    unknown = [key for key in mapping if key not in keys]
    if unknown:
        fail(
            f"unknown key '{unknown[0]}'" + (f" {within}" if within else ""),
            where + (unknown[0],),
            hint=f"{did_you_mean(unknown[0], keys)}valid keys: {', '.join(keys)}",
        )


def line_of(lines: Mapping[KeyPath, int], where: KeyPath) -> int | None:
    """The config line of the key path ``where``, or of its nearest parent that has one."""
    return next((lines[where[:i]] for i in range(len(where), -1, -1) if where[:i] in lines), None)
