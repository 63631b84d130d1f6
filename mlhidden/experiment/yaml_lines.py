"""Config YAML read with the line of every key, so that a wrong value is reported at its line.

Run configs and the sensitivity config both read their files here.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from mlhidden.errors import UserError


class _LineTracker:
    """Builds plain Python values from a YAML node tree, remembering the line of every path."""

    def __init__(self):
        self.lines: dict[tuple, int] = {}

    def build(self, node, path=()):
        self.lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            result = {}
            for key_node, value_node in node.value:
                key = yaml.safe_load(yaml.serialize(key_node))
                self.lines[path + (key,)] = key_node.start_mark.line + 1
                result[key] = self.build(value_node, path + (key,))
            return result
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, path + (i,)) for i, item in enumerate(node.value)]
        return yaml.safe_load(yaml.serialize(node))


def read_yaml_with_lines(path: Path) -> tuple:
    """The YAML file's value and the line of every key path in it, e.g. ``("methods", 0, "name")``."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError("config file not found", path=path, hint="check the path given to --config") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read config: {exc}", path=path) from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        raise UserError(f"invalid YAML: {problem}", path=path, line=mark.line + 1 if mark else None) from None
    tracker = _LineTracker()
    return (tracker.build(node) if node is not None else None), tracker.lines


def failure_at(source, lines: dict):
    """``fail(message, where, hint)``: raise a UserError at the config line of the key path ``where``.

    ``where=None`` blames a command-line option (no line); a path without a line of its own takes
    the line of its nearest parent.
    """

    def fail(message, where=(), hint=None):
        if where is None:
            raise UserError(message, hint=hint)
        line = next((lines[where[:i]] for i in range(len(where), -1, -1) if where[:i] in lines), None)
        raise UserError(message, path=source, line=line, hint=hint)

    return fail
