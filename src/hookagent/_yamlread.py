"""YAML read by PyYAML (its C parser where built), with the line of every key and item kept
for error messages that name them.

`CoreLoader` gives YAML 1.2's core scalars, as Claude Code's JavaScript reader sees them:
`true`/`false`, numbers and nulls are typed; YAML 1.1's `yes`, `on` and dates stay text.
`TextLoader` types nothing but nulls: every other scalar stays the text it was written as.
"""

from __future__ import annotations

import re
from typing import Any, TypeAlias

import yaml

from hookagent._errors import ConfigError

try:
    from yaml import CSafeLoader as _Base
except ImportError:  # PyYAML built without libyaml
    from yaml import SafeLoader as _Base  # type: ignore[assignment]

__all__ = ["CoreLoader", "NodePath", "TextLoader", "load_with_lines", "mark_line", "problem_of"]

NodePath: TypeAlias = tuple[str | int, ...]
"""Where a value sits in a document: map keys and list indexes from the top."""

_NULL = ("null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""])
_CORE = (
    _NULL,
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    ("int", r"^(?:[-+]?(?:0|[1-9][0-9]*)|0x[0-9a-fA-F]+|0o[0-7]+)$", list("-+0123456789")),
    (
        "float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        list("-+0123456789."),
    ),
)


class CoreLoader(_Base):
    """Safe loading with YAML 1.2 core scalars."""


class TextLoader(_Base):
    """Safe loading where scalars stay text, nulls aside."""


for _loader, _resolvers in ((CoreLoader, _CORE), (TextLoader, (_NULL,))):
    _loader.yaml_implicit_resolvers = {}  # none of YAML 1.1's: only those added here
    for _tag, _pattern, _first in _resolvers:
        _loader.add_implicit_resolver(f"tag:yaml.org,2002:{_tag}", re.compile(_pattern), _first)


def mark_line(exc: yaml.YAMLError, first: int) -> int:
    """The file line of the error, the text's first line being `first`."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return first + (mark.line if mark is not None else 0)


def problem_of(exc: yaml.YAMLError) -> str:
    """PyYAML's account of the error, without its marks."""
    problem = getattr(exc, "problem", None)
    context = getattr(exc, "context", None)
    text = str(problem or exc).strip()
    return f"{text} ({context})" if context and problem else text


def load_with_lines(
    text: str, source: str, loader: type[_Base] = TextLoader
) -> tuple[Any, dict[NodePath, int]]:
    """(the document's value, the 1-based line of each key and list item). Not YAML, a key
    given twice or a key that is not text is a `ConfigError` naming the file and line."""
    reader = loader(text)
    try:
        root = reader.get_single_node()
        if root is None:
            return None, {}
        lines: dict[NodePath, int] = {}
        _walk(root, (), lines, source)
        return reader.construct_document(root), lines
    except yaml.YAMLError as exc:
        raise ConfigError(f"line {mark_line(exc, 1)}: {problem_of(exc)}", file=source) from exc
    finally:
        reader.dispose()


def _walk(node: yaml.Node, path: NodePath, lines: dict[NodePath, int], source: str) -> None:
    if isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            lines[(*path, index)] = item.start_mark.line + 1
            _walk(item, (*path, index), lines, source)
    elif isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            line = key_node.start_mark.line + 1
            if not isinstance(key_node, yaml.ScalarNode):
                raise ConfigError(f"line {line}: a key must be text", file=source)
            key = key_node.value
            if key in seen:
                first = lines[(*path, key)]
                problem = f"`{key}` is given twice (first on line {first})"
                raise ConfigError(f"line {line}: {problem}", file=source)
            seen.add(key)
            lines[(*path, key)] = line
            _walk(value_node, (*path, key), lines, source)
