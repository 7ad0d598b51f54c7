"""Markdown files with a front matter block, as Claude Code writes agents and skills.

    ---
    name: reviewer
    description: Reviews a diff.
    tools: [Read, Grep]
    ---
    You review diffs...

The block is YAML, read by PyYAML (its C parser where built) with YAML 1.2's core scalars,
as Claude Code's JavaScript reader sees them: `true`/`false`, numbers and nulls are typed;
`yes`, `on` and dates stay text. Nested maps and lists are read whole (`hooks:`, `metadata:`).

Claude Code also loads files whose block is not valid YAML, and many published ones are not:
an unquoted `description:` holding `: `, or running on over unindented lines of `<example>`
dialogue (`Context: …`, `user: …`). Such a block is read key by key: a line at the left
margin starts a key unless it continues a plain text value (there only a key Claude Code
defines, a key with `-` or `_`, or one whose value opens below it starts one), each key's
lines are read as YAML on their own, and a plain value that still is not YAML is kept as
written. `FrontMatter.lenient` says why the block needed this.

Values are read when asked for: a key no caller reads is never an error, and one that is read
but cannot be is a `ConfigError` naming the file and the line, never a guess.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, final

import yaml

from hookagent._errors import ConfigError
from hookagent._yamlread import CoreLoader as _Loader
from hookagent._yamlread import mark_line as _mark_line
from hookagent._yamlread import problem_of as _problem

__all__ = ["FrontMatter", "read_front_matter", "split_front_matter"]

_FENCE: Final = "---"
_KEY: Final = re.compile(r"^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*)|)$")
_NOT_PLAIN: Final = tuple("'\"[{|>&*!%@`")
KNOWN_KEYS: Final = frozenset(
    {
        "agent", "allowed-tools", "argument-hint", "background", "color", "context",
        "description", "disable-model-invocation", "disallowedTools", "effort", "hooks",
        "isolation", "license", "maxTurns", "mcpServers", "memory", "metadata", "model",
        "name", "paths", "permissionMode", "shell", "skills", "tools", "user-invocable",
        "version", "when_to_use",
    }
)  # fmt: skip
"""The keys Claude Code defines for agents, skills and commands: in a block that is not
YAML, only these start a key below a plain text value that could run on."""


@dataclass(slots=True)
class _Entry:
    line: int
    """The file line of `key:`, counting the opening `---` as line 1."""
    value: object = None
    node: yaml.Node | None = None
    offset: int = 0
    """Added to the node's 0-based marks to give file lines."""
    error: ConfigError | None = None
    """Raised when the value is read: it is not YAML, nor plain text kept as written."""


@final
class FrontMatter(Mapping[str, object]):
    """The keys of one front matter block, in file order, with their YAML values (text,
    numbers, booleans, None, lists and dicts). `text` and `text_or_list` also refuse the
    shapes a caller cannot use, naming the line."""

    __slots__ = ("_entries", "lenient", "source")

    def __init__(
        self, entries: Mapping[str, _Entry] | None = None, source: str = "", lenient: str = ""
    ) -> None:
        self._entries: dict[str, _Entry] = dict(entries or {})
        self.source = source
        """The file, for error messages."""
        self.lenient = lenient
        """Empty when the block is YAML; else where and why it is not (`line 2: …`)."""

    def __getitem__(self, key: str) -> object:
        entry = self._entries[key]
        if entry.error is not None:
            raise entry.error
        return entry.value

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries  # without reading the value, unlike Mapping's

    def __repr__(self) -> str:
        return f"FrontMatter({self.source!r}, keys={list(self._entries)!r})"

    def line(self, key: str, *path: str | int) -> int:
        """The line `key:` is on, or with `path` (map keys and list indexes below it) the line
        of that value, as far down as the path can be followed."""
        entry = self._entries[key]
        node, line = entry.node, entry.line
        for step in path:
            node = _child(node, step)
            if node is None:
                break
            line = node.start_mark.line + entry.offset
        return line

    def text(self, key: str) -> str | None:
        """The value as text (a number or boolean as written in JSON); None if the key is
        absent or null. A list or a map is a `ConfigError` naming the line."""
        if key not in self._entries:
            return None
        value = self[key]
        if isinstance(value, list | dict):
            shape = "a list" if isinstance(value, list) else "a map"
            raise self.error(key, f"`{key}` must be text, not {shape}")
        return None if value is None else _scalar(value)

    def text_or_list(self, key: str) -> str | list[str] | None:
        """The value as text or a list of texts; None if the key is absent or null. A map, or
        a list holding a list or a map, is a `ConfigError` naming the line."""
        if key not in self._entries:
            return None
        value = self[key]
        if isinstance(value, dict):
            raise self.error(key, f"`{key}` must be text or a list, not a map")
        if not isinstance(value, list):
            return None if value is None else _scalar(value)
        items: list[str] = []
        for index, item in enumerate(value):
            if isinstance(item, list | dict) or item is None:
                raise self.error(key, f"item {index + 1} of `{key}` must be text", index)
            items.append(_scalar(item))
        return items

    def error(self, key: str, problem: str, *path: str | int) -> ConfigError:
        """A `ConfigError` naming this file and the line of `key` (or of `path` below it)."""
        return _bad(self.source, self.line(key, *path), problem)


def read_front_matter(path: Path) -> tuple[FrontMatter, str]:
    """`split_front_matter` of a UTF-8 file; a file that cannot be read is a `ConfigError`."""
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"not UTF-8 text ({exc.reason})", file=source) from exc
    except OSError as exc:
        raise ConfigError(f"cannot read it: {exc.strerror}", file=source) from exc
    return split_front_matter(text, source)


def split_front_matter(text: str, source: str) -> tuple[FrontMatter, str]:
    """(the fields, the body stripped of blank lines and spaces around it). A text that does
    not open with a `---` line has no fields; a leading byte order mark is skipped.

    A block never closed, a key given twice and text before the first key are `ConfigError`s
    naming the file (and line); a value that cannot be read is one when it is read."""
    lines = text.removeprefix("\ufeff").splitlines()
    if not lines or lines[0].rstrip() != _FENCE:
        return FrontMatter(source=source), text.strip()
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() == _FENCE), None)
    if end is None:
        raise ConfigError(
            "the front matter opened with `---` on line 1 is never closed by a `---` line",
            file=source,
        )
    body = "\n".join(lines[end + 1 :]).strip()
    block = lines[1:end]
    try:
        entries = _strict("\n".join(block), source)
    except yaml.YAMLError as exc:
        lenient = f"line {min(_mark_line(exc, 2), end)}: {_problem(exc)}"
        return FrontMatter(_lenient(block, source), source, lenient), body
    return FrontMatter(entries, source), body


def _strict(block: str, source: str) -> dict[str, _Entry]:
    """The block read as one YAML map (a duplicate key is an error, as in JavaScript)."""
    loader = _Loader(block)
    try:
        root = loader.get_single_node()
        if root is None:
            return {}
        if not isinstance(root, yaml.MappingNode):
            raise _bad(source, root.start_mark.line + 2, "expected `key: value` lines")
        entries: dict[str, _Entry] = {}
        for key_node, value_node in root.value:
            line = key_node.start_mark.line + 2
            key = loader.construct_object(key_node, deep=True)
            if isinstance(key, list | dict) or key is None:
                raise _bad(source, line, "a key must be text")
            key = _scalar(key)
            if key in entries:
                first = entries[key].line
                raise _bad(source, line, f"`{key}` is given twice (first on line {first})")
            value = loader.construct_object(value_node, deep=True)
            entries[key] = _Entry(line, value, value_node, 2)
        return entries
    finally:
        loader.dispose()


def _lenient(block: Sequence[str], source: str) -> dict[str, _Entry]:
    """The block read key by key, as the module docstring tells."""
    groups: dict[str, tuple[int, list[str]]] = {}
    current: tuple[int, list[str]] | None = None
    for number, line in enumerate(block, start=2):
        found = _KEY.match(line.rstrip())
        if found is not None and (current is None or _starts_key(found, current[1])):
            key = found.group(1)
            if key in groups:
                first = groups[key][0]
                raise _bad(source, number, f"`{key}` is given twice (first on line {first})")
            current = groups[key] = (number, [line])
        elif current is not None:
            current[1].append(line)
        elif line.strip() and not line.startswith("#"):
            raise _bad(source, number, f"expected `key: value`, got {line!r}")
    return {key: _one(key, number, lines, source) for key, (number, lines) in groups.items()}


def _starts_key(candidate: re.Match[str], lines: Sequence[str]) -> bool:
    """Whether a `key:` line at the left margin below `lines` starts a key. Below a plain
    text value, which may run on over dialogue (`user: …`), only a key Claude Code defines,
    a key with `-` or `_` in it, or one whose value opens below its line does; below any
    other value, every key."""
    found = _KEY.match(lines[0].rstrip())
    first = (found.group(2) or "").strip() if found else ""
    if not first or first.startswith(_NOT_PLAIN):
        return True
    key, value = candidate.group(1), (candidate.group(2) or "").strip()
    return key in KNOWN_KEYS or "-" in key or "_" in key or not value


def _one(key: str, number: int, lines: Sequence[str], source: str) -> _Entry:
    """One key's lines read as YAML; plain text that is not YAML kept as written."""
    text = "\n".join(lines)
    loader = _Loader(text)
    try:
        root = loader.get_single_node()
        if isinstance(root, yaml.MappingNode) and len(root.value) == 1:
            node = root.value[0][1]
            return _Entry(number, loader.construct_object(node, deep=True), node, number)
        error: yaml.YAMLError | None = None
    except yaml.YAMLError as exc:
        error = exc
    finally:
        loader.dispose()
    found = _KEY.match(lines[0].rstrip())
    kept = [(found.group(2) or "") if found else "", *lines[1:]]
    written = "\n".join(line.strip() for line in kept).strip()
    if written and not written.startswith(_NOT_PLAIN) and not written.startswith("- "):
        return _Entry(number, written, None, number)
    line = min(_mark_line(error, number), number + len(lines) - 1) if error else number
    problem = _problem(error) if error is not None else "it is not one `key: value`"
    return _Entry(number, None, None, number, _bad(source, line, f"cannot read `{key}`: {problem}"))


def _child(node: yaml.Node | None, step: str | int) -> yaml.Node | None:
    if isinstance(node, yaml.SequenceNode) and isinstance(step, int):
        return node.value[step] if 0 <= step < len(node.value) else None
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.value == str(step):
                return value_node  # type: ignore[no-any-return]
    return None


def _scalar(value: object) -> str:
    """A scalar as text: booleans and null as JSON writes them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _bad(source: str, number: int, problem: str) -> ConfigError:
    return ConfigError(f"front matter line {number}: {problem}", file=source)
