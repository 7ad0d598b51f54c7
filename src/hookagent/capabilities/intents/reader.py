"""A small strict reader for the YAML an intents file is written in.

PyYAML is not a dependency, so this reads the subset `active_intents.yaml` uses, and refuses
the rest with a `ConfigError` naming the file and the line, never a guess:

    active_intents:
      - id: "INT-001"            # a list of maps; an item's map starts on the dash's line
        name: JWT migration
        owned_scope:
          - "src/auth/**"
        constraints: ["No external auth providers", 'Keep the API']

- block maps (`key: value`, keys are letters, digits, `_`, `.` and `-`, no key twice) and
  block lists (`- item`); a key's list may sit at the key's own indentation, as YAML allows;
- plain text on one line (` #` starts a comment; `: ` cannot appear in it), quoted text on
  one line (`'…'` with `''` for a quote, or `"…"` with JSON's escapes);
- inline lists `[a, "b"]` of text on one line, `[]` and `{}`;
- nothing, `~` or `null`: None.

Values stay text: `true`, `3` and `2024-01-01` are strings. Refused: tabs in indentation,
text over several lines, block scalars (`|`, `>`), inline maps with keys, anchors, aliases
and tags, several documents.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Final, TypeAlias, final

from hookagent.errors import ConfigError

__all__ = ["Document", "NodePath", "read_yaml"]

NodePath: TypeAlias = tuple[str | int, ...]
"""Where a value sits in the document: map keys and list indexes from the top."""

_KEY: Final = re.compile(r"^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*)|)$")
_NULLS: Final = frozenset({"", "~", "null", "Null", "NULL"})
_INDICATORS: Final = tuple("&*!%@`")


@final
@dataclass(frozen=True, slots=True)
class Document:
    value: Any
    """Maps, lists, text and None."""
    lines: dict[NodePath, int] = field(default_factory=dict[NodePath, int])
    """The line each key and each list item is on (1-based)."""


@final
@dataclass(frozen=True, slots=True)
class _Line:
    number: int
    indent: int
    text: str
    """Without the indentation and trailing spaces; comments not yet removed."""


def read_yaml(text: str, source: str) -> Document:
    """Read `text` (from the file `source`, named in errors)."""
    reader = _Reader(_lines(text, source), source)
    return Document(reader.document(), reader.where)


def _lines(text: str, source: str) -> list[_Line]:
    out: list[_Line] = []
    for number, raw in enumerate(text.removeprefix("\ufeff").splitlines(), start=1):
        body = raw.lstrip(" \t")
        if not body.strip() or body.startswith("#"):
            continue
        margin = raw[: len(raw) - len(body)]
        if "\t" in margin:
            raise _bad(source, number, "tabs cannot indent YAML; use spaces")
        body = body.rstrip()
        if not margin and body in ("---", "..."):
            if body == "---" and not out:
                continue  # an explicit start of the one document
            raise _bad(source, number, "only one YAML document is read; remove this marker")
        out.append(_Line(number, len(margin), body))
    return out


def _bad(source: str, number: int, problem: str) -> ConfigError:
    return ConfigError(f"line {number}: {problem}", file=source)


def _is_item(text: str) -> bool:
    return text == "-" or text.startswith("- ")


class _Reader:
    __slots__ = ("i", "lines", "source", "where")

    def __init__(self, lines: list[_Line], source: str) -> None:
        self.lines = lines
        self.source = source
        self.i = 0
        self.where: dict[NodePath, int] = {}

    def bad(self, line: _Line, problem: str) -> ConfigError:
        return _bad(self.source, line.number, problem)

    def document(self) -> Any:
        if not self.lines:
            return None
        value = self.block(self.lines[0].indent, ())
        if self.i < len(self.lines):
            raise self.bad(self.lines[self.i], "unexpected indentation")
        return value

    def block(self, indent: int, path: NodePath) -> Any:
        if _is_item(self.lines[self.i].text):
            return self.sequence(indent, path)
        return self.mapping(indent, path)

    def mapping(self, indent: int, path: NodePath) -> dict[str, Any]:
        out: dict[str, Any] = {}
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if line.indent < indent:
                break
            if line.indent > indent:
                raise self.bad(
                    line,
                    "unexpected indentation (text over several lines must be quoted on one line)",
                )
            found = _KEY.match(line.text)
            if found is None:
                what = "a `- item`" if _is_item(line.text) else repr(line.text)
                raise self.bad(line, f"expected `key: value`, got {what}")
            key = found.group(1)
            if key in out:
                first = self.where[(*path, key)]
                raise self.bad(line, f"`{key}` is given twice (first on line {first})")
            self.where[(*path, key)] = line.number
            self.i += 1
            out[key] = self.value(found.group(2) or "", line, (*path, key))
        return out

    def value(self, rest: str, line: _Line, path: NodePath) -> Any:
        """A key's value: on its line, or the block below it (a list may sit at the key's
        own indentation), or None."""
        if rest.strip() and not rest.lstrip().startswith("#"):
            return self.scalar(rest.strip(), line)
        if self.i < len(self.lines):
            below = self.lines[self.i]
            if below.indent > line.indent or (below.indent == line.indent and _is_item(below.text)):
                return self.block(below.indent, path)
        return None

    def sequence(self, indent: int, path: NodePath) -> list[Any]:
        out: list[Any] = []
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if line.indent < indent or (line.indent == indent and not _is_item(line.text)):
                break  # the list ends; the map around it goes on
            if line.indent > indent:
                raise self.bad(line, "unexpected indentation")
            at = (*path, len(out))
            self.where[at] = line.number
            rest = line.text[1:]
            body = rest.lstrip(" ")
            if not body or body.startswith("#"):
                self.i += 1
                nested = self.i < len(self.lines) and self.lines[self.i].indent > indent
                out.append(self.block(self.lines[self.i].indent, at) if nested else None)
            elif _is_item(body) or _KEY.match(body):
                # a map (or a list) that starts on the dash's line: read it as if the text
                # after the dash were a line of its own, at the column it starts in
                column = indent + 1 + len(rest) - len(body)
                self.lines[self.i] = _Line(line.number, column, body)
                out.append(self.block(column, at))
            else:
                self.i += 1
                out.append(self.scalar(body, line))
        return out

    def scalar(self, text: str, line: _Line) -> Any:
        """Text on one line: quoted, an inline list, `{}`, or plain."""
        if text[0] in "'\"":
            value, after = self.quoted(text, line)
            self.nothing_after(after, "the closing quote", line)
            return value
        if text.startswith("["):
            return self.inline_list(text, line)
        if text.startswith("{"):
            if _plain(text) == "{}":
                return {}
            raise self.bad(line, "inline maps are not read; write each key on its own line")
        if text.startswith(("|", ">")):
            raise self.bad(
                line, "block text (`|`, `>`) is not read; put the text on one line, quoted"
            )
        if text.startswith(_INDICATORS) or _is_item(text):
            raise self.bad(line, f"cannot read {text!r}; if it is text, quote it")
        plain = _plain(text)
        if ": " in plain or plain.endswith(":"):
            raise self.bad(line, f"`: ` cannot appear in unquoted text; quote it: {plain!r}")
        return None if plain in _NULLS else plain

    def inline_list(self, text: str, line: _Line) -> list[str]:
        """`[a, 'b', "c"]` of text on one line; a trailing comma is allowed."""
        items: list[str] = []
        rest = text[1:].lstrip()
        while not rest.startswith("]"):
            if rest[:1] in ("'", '"'):
                item, rest = self.quoted(rest, line)
            else:
                cut = min((at for at in (rest.find(","), rest.find("]")) if at >= 0), default=-1)
                if cut < 0:
                    raise self.bad(line, f"the inline list is never closed: {text}")
                item, rest = rest[:cut].strip(), rest[cut:]
                if not item or any(c in item for c in "[]{}#") or ": " in item:
                    raise self.bad(line, f"cannot read the list item {item!r}; quote it")
            items.append(item)
            rest = rest.lstrip()
            if rest.startswith(","):
                rest = rest[1:].lstrip()
            elif not rest.startswith("]"):
                raise self.bad(line, f"expected `,` or `]` after {item!r} in {text}")
        self.nothing_after(rest[1:], "the closing `]`", line)
        return items

    def quoted(self, text: str, line: _Line) -> tuple[str, str]:
        """(the string `text` opens with, the text after its closing quote)."""
        if text[0] == "'":
            found = re.match(r"'((?:[^']|'')*)'", text)
            if found is None:
                raise self.bad(line, f"the quoted text is never closed: {text}")
            return found.group(1).replace("''", "'"), text[found.end() :]
        end, escaped = 1, False
        while end < len(text):
            if text[end] == '"' and not escaped:
                break
            escaped = text[end] == "\\" and not escaped
            end += 1
        else:
            raise self.bad(line, f"the quoted text is never closed: {text}")
        try:
            value: str = json.loads(text[: end + 1])
        except json.JSONDecodeError as exc:
            raise self.bad(line, f"cannot read the quoted text {text}: {exc.msg}") from exc
        return value, text[end + 1 :]

    def nothing_after(self, rest: str, what: str, line: _Line) -> None:
        if rest.strip() and not rest.lstrip().startswith("#"):
            raise self.bad(line, f"unexpected text after {what}: {rest.strip()!r}")


def _plain(text: str) -> str:
    """Plain text without its trailing comment."""
    cut = text.find(" #")
    return (text if cut < 0 else text[:cut]).strip()
