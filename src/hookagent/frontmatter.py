"""Markdown files with a front matter block, as Claude Code writes agents and skills.

    ---
    name: reviewer
    description: Reviews a diff.
    tools: [Read, Grep]
    ---
    You review diffs...

PyYAML is not a dependency, so this is a small strict reader of the YAML these files use:
`key: value` lines at the left margin, each value one of

- plain text, which may go on over indented lines (folded into one, as YAML does); ` #`
  starts a comment, and `: ` cannot appear in it;
- quoted text on one line: `'…'` (`''` for a quote) or `"…"` (with JSON's escapes);
- a block, `|` (lines kept) or `>` (lines folded), the indented lines below it;
- a list: inline, `[a, "b"]`, on one line, or `- item` lines below the key, one item a line;
- a nested map (indented `key: value` lines) or an inline `{…}`: read as None, its contents
  unread;
- nothing, `~` or `null`: None.

Values stay text: `true`, `3` and `2024-01-01` are strings.

`split_front_matter` checks the block's layout (every line a key, an indented line or a
`- item` below one; no key twice) and gives a `FrontMatter`, which reads a key's value when
it is asked for: a key no caller reads is never an error, however it is written, and one
that is read but cannot be is a `ConfigError` naming the file and the line, never a guess.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, TypeAlias, final

from hookagent.errors import ConfigError

__all__ = ["FieldValue", "FrontMatter", "read_front_matter", "split_front_matter"]

FieldValue: TypeAlias = str | list[str] | None
"""Text, a list of texts, or None (a null, or a nested map, whose contents are not read)."""

_FENCE: Final = "---"
_KEY: Final = re.compile(r"^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*)|)$")
_BLOCK: Final = re.compile(r"^([|>])([+-]?)$")
_FLOW: Final = tuple("[{&*!%@`")
_NULLS: Final = frozenset({"", "~", "null", "Null", "NULL"})


@final
class _Map:
    """A nested map's value, before it is told apart from a null."""


_MAP: Final = _Map()


@dataclass(slots=True)
class _Entry:
    key: str
    value: str
    line: int
    more: list[tuple[int, str]] = field(default_factory=list[tuple[int, str]])
    """Indented (or `- item`) lines below the key: a block, a nested map or a list."""


@final
class FrontMatter(Mapping[str, FieldValue]):
    """The keys of one front matter block, in file order; each value is read on access.

    `fields[key]` and `fields.get(key)` give text, a list, or None (a null or a nested map);
    `text` and `text_or_list` also refuse the shapes a caller cannot use.
    """

    __slots__ = ("_entries", "source")

    def __init__(self, entries: Mapping[str, _Entry] | None = None, source: str = "") -> None:
        self._entries: dict[str, _Entry] = dict(entries or {})
        self.source = source
        """The file, for error messages."""

    def __getitem__(self, key: str) -> FieldValue:
        value = _read(self._entries[key], self.source, text=False)
        return None if isinstance(value, _Map) else value

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries  # without reading the value, unlike Mapping's

    def __repr__(self) -> str:
        return f"FrontMatter({self.source!r}, keys={list(self._entries)!r})"

    def line(self, key: str) -> int:
        """The line `key:` is on, counting the opening `---` as line 1."""
        return self._entries[key].line

    def text(self, key: str) -> str | None:
        """The value as text; None if the key is absent or null. A list or a map is a
        `ConfigError` naming the line."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        value = _read(entry, self.source, text=True)
        assert not isinstance(value, list | _Map)  # _read refuses them when text=True
        return value

    def loose_text(self, key: str) -> str | None:
        """The value as text, or, where strict reading refuses it, the rest of its line as
        written: Claude Code's `/agents` writes unquoted descriptions holding `: `, and reads
        them that way."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        try:
            return self.text(key)
        except ConfigError:
            if entry.more or entry.value.lstrip().startswith(("[", "{", "'", '"')):
                raise  # a list, a map or a broken quote is still an error
            return entry.value.strip() or None

    def text_or_list(self, key: str) -> str | list[str] | None:
        """The value as text or a list; None if the key is absent or null. A map is a
        `ConfigError` naming the line."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        value = _read(entry, self.source, text=False)
        if isinstance(value, _Map):
            raise _bad(self.source, entry.line, f"`{key}` must be text or a list, not a map")
        return value


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
    not open with a `---` line has no fields; a leading byte order mark is skipped."""
    lines = text.removeprefix("\ufeff").splitlines()
    if not lines or lines[0].rstrip() != _FENCE:
        return FrontMatter(source=source), text.strip()
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() == _FENCE), None)
    if end is None:
        raise ConfigError(
            "the front matter opened with `---` on line 1 is never closed by a `---` line",
            file=source,
        )
    entries: dict[str, _Entry] = {}
    current: _Entry | None = None
    for number, line in enumerate(lines[1:end], start=2):
        if not line.strip():
            if current is not None:
                current.more.append((number, ""))
        elif line[0] in " \t" or line == "-" or line.startswith("- "):
            if current is None and not line.lstrip().startswith("#"):
                raise _bad(source, number, f"an indented line with no key above it: {line!r}")
            if current is not None:
                current.more.append((number, line))
        elif not line.startswith("#"):
            found = _KEY.match(line.rstrip())
            if found is None:
                raise _bad(source, number, f"expected `key: value`, got {line!r}")
            key = found.group(1)
            if key in entries:
                first = entries[key].line
                raise _bad(source, number, f"`{key}` is given twice (first on line {first})")
            value = (found.group(2) or "").strip()
            value = "" if value.startswith("#") else value
            current = entries[key] = _Entry(key, value, number)
    return FrontMatter(entries, source), "\n".join(lines[end + 1 :]).strip()


def _bad(source: str, number: int, problem: str) -> ConfigError:
    return ConfigError(f"front matter line {number}: {problem}", file=source)


def _read(entry: _Entry, source: str, *, text: bool) -> str | list[str] | _Map | None:
    """The entry's value; with `text`, anything but text or a null is an error."""
    key, value, more = entry.key, entry.value, _lines(entry, source)
    block = _BLOCK.match(_plain(value))
    if block is not None:
        return _block(block.group(1), [line for _, line in more])
    odd = value.startswith((*_FLOW, "|", ">", "- ")) or value == "-"
    if odd and (text or not value.startswith(("[", "{"))):
        quoted = json.dumps(value, ensure_ascii=False)
        if text:
            raise _bad(source, entry.line, f"`{key}` must be a string; quote it: {key}: {quoted}")
        raise _bad(source, entry.line, f"cannot read `{key}: {value}`; if it is text, quote it")
    if not value.startswith(("'", '"', "[", "{")):
        return _plain_value(entry, more, source, text=text)
    _on_one_line(entry, more, source)
    if value.startswith("["):
        return _inline_list(value, source, entry.line)
    if value.startswith("{"):
        if not _plain(value).endswith("}"):
            raise _bad(source, entry.line, f"the inline map is never closed: {value}")
        return _MAP
    found, rest = _quoted(value, source, entry.line)
    _nothing_after(rest, "the closing quote", source, entry.line)
    return found


def _on_one_line(entry: _Entry, more: Sequence[tuple[int, str]], source: str) -> None:
    """A quoted string, an inline list or an inline map has nothing below its key."""
    content = [number for number, line in more if line and not line.lstrip().startswith("#")]
    if not content:
        return
    if entry.value.startswith(("'", '"')):
        problem = (
            f"a quoted `{entry.key}` must end on its own line; for text over several lines "
            "use a block (`|` or `>`)"
        )
    else:
        problem = (
            f"the inline list or map of `{entry.key}` must close on its own line; over several "
            "lines, write `- item` lines or an indented map"
        )
    raise _bad(source, content[0], problem)


def _lines(entry: _Entry, source: str) -> list[tuple[int, str]]:
    """The lines below the key without the blank ones at the end; tabs indenting are errors."""
    more = list(entry.more)
    while more and not more[-1][1]:
        more.pop()
    for number, line in more:
        if "\t" in line[: len(line) - len(line.lstrip())]:
            raise _bad(source, number, "tabs cannot indent YAML; use spaces")
    return more


def _plain_value(
    entry: _Entry, more: Sequence[tuple[int, str]], source: str, *, text: bool
) -> str | list[str] | _Map | None:
    """Plain text over one line or more, or else a `- item` list or a nested map below a
    null."""
    key, value = entry.key, entry.value
    lines = [(n, line.strip()) for n, line in more if not line.lstrip().startswith("#")]
    first = next((line for _, line in lines if line), "")
    if value in _NULLS and (first[:2] == "- " or first == "-" or _KEY.match(first)):
        if text:
            raise _bad(source, entry.line, f"`{key}` must be a string, not a list or a map")
        if _KEY.match(first):
            return _MAP
        items = [(n, line) for n, line in more if line and not line.lstrip().startswith("#")]
        return _block_list(key, items, source)
    if value not in _NULLS and any(line[:1] == "-" for _, line in more):
        if text:
            raise _bad(source, entry.line, f"`{key}` must be a string, not a list or a map")
        raise _bad(source, entry.line, f"`{key}` has a value on its line and `- ` items below")
    parts = [(entry.line, _plain(value))] if value else []
    parts += [(n, _plain(line)) for n, line in lines]
    for number, part in parts:
        if ": " in part or part.endswith(":"):
            raise _bad(
                source,
                number,
                f"`: ` cannot appear in an unquoted value; put the {key} in quotes",
            )
    folded = _fold([part for _, part in parts])
    return None if folded in _NULLS else folded


def _block_list(key: str, lines: Sequence[tuple[int, str]], source: str) -> list[str]:
    """`- item` lines (no blank or comment lines), all at the first one's indent."""
    indent = len(lines[0][1]) - len(lines[0][1].lstrip(" "))
    items: list[str] = []
    for number, line in lines:
        item = line.strip()
        if len(line) - len(line.lstrip(" ")) != indent or not (
            item == "-" or item.startswith("- ")
        ):
            raise _bad(
                source,
                number,
                f"expected a `- item` of `{key}` in line with the first, got {item!r} "
                "(an item must fit on its line)",
            )
        items.append(_item(item[1:].strip(), source, number, flow=False))
    return items


def _inline_list(value: str, source: str, number: int) -> list[str]:
    """`[a, 'b', "c"]`, with a comment after it at most; a trailing comma is allowed."""
    items: list[str] = []
    rest = value[1:].lstrip()
    while not rest.startswith("]"):
        if rest[:1] in ("'", '"'):
            item, rest = _quoted(rest, source, number)
        else:
            cut = min((at for at in (rest.find(","), rest.find("]")) if at >= 0), default=-1)
            if cut < 0:
                raise _bad(source, number, f"the inline list is never closed: {value}")
            item, rest = _item(rest[:cut].strip(), source, number, flow=True), rest[cut:]
        items.append(item)
        rest = rest.lstrip()
        if rest.startswith(","):
            rest = rest[1:].lstrip()
        elif not rest.startswith("]"):
            problem = f"expected `,` or `]` after {item!r}" if rest else "it is never closed"
            raise _bad(source, number, f"cannot read the inline list {value}: {problem}")
    _nothing_after(rest[1:], "the closing `]`", source, number)
    return items


def _item(text: str, source: str, number: int, *, flow: bool) -> str:
    """One list item: quoted, or plain text (on which a list says more than a value)."""
    if text[:1] in ("'", '"'):
        found, rest = _quoted(text, source, number)
        _nothing_after(rest, "the closing quote", source, number)
        return found
    plain = text if flow else _plain(text)
    if not plain:
        raise _bad(source, number, "an empty list item; quote it if it is meant: ''")
    nested = plain.startswith((*_FLOW, "|", ">", "- ")) or plain == "-"
    if nested or (flow and any(c in plain for c in "[]{}")) or (flow and " #" in plain):
        quoted = json.dumps(plain, ensure_ascii=False)
        raise _bad(source, number, f"cannot read the list item {plain!r}; quote it: {quoted}")
    if ": " in plain or plain.endswith(":"):
        raise _bad(source, number, f"`: ` cannot appear in an unquoted list item: {plain!r}")
    return plain


def _plain(text: str) -> str:
    """A plain scalar without its trailing comment."""
    if text.startswith("#"):
        return ""
    cut = text.find(" #")
    return (text if cut < 0 else text[:cut]).strip()


def _fold(lines: Sequence[str]) -> str:
    """Lines joined with spaces; an empty line makes a line break, as YAML folds."""
    out: list[str] = []
    for line in lines:
        if not line:
            out.append("\n")
        elif out and out[-1] != "\n":
            out.append(" " + line)
        else:
            out.append(line)
    return "".join(out).strip()


def _block(style: str, lines: Sequence[str]) -> str:
    indents = [len(line) - len(line.lstrip(" ")) for line in lines if line.strip()]
    cut = min(indents, default=0)
    body = [line[cut:] for line in lines]
    return "\n".join(body).strip() if style == "|" else _fold([line.strip() for line in body])


def _quoted(value: str, source: str, number: int) -> tuple[str, str]:
    """(the quoted string `value` opens with, the text after its closing quote)."""
    if value[0] == "'":
        found = re.match(r"'((?:[^']|'')*)'", value)
        if found is None:
            raise _bad(source, number, f"the quoted string is never closed: {value}")
        return found.group(1).replace("''", "'"), value[found.end() :]
    end, escaped = 1, False
    while end < len(value):
        char = value[end]
        if char == '"' and not escaped:
            break
        escaped = char == "\\" and not escaped
        end += 1
    else:
        raise _bad(source, number, f"the quoted string is never closed: {value}")
    try:
        text: str = json.loads(value[: end + 1])
    except json.JSONDecodeError as exc:
        raise _bad(source, number, f"cannot read the quoted string {value}: {exc.msg}") from exc
    return text, value[end + 1 :]


def _nothing_after(rest: str, what: str, source: str, number: int) -> None:
    """Only a comment may follow `what` on its line."""
    if rest.strip() and not rest.lstrip().startswith("#"):
        raise _bad(source, number, f"unexpected text after {what}: {rest.strip()!r}")
