"""Markdown files with a front matter block, as Claude Code writes agents and skills.

    ---
    name: reviewer
    description: Reviews a diff.
    tools: Read, Grep
    ---
    You review diffs...

A small strict reader for the part of YAML these files use: `key: value` lines, quoted
strings, `[a, b]` lists and `- item` lists. Anything else is an error naming the file and the
line, never a silent guess.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Final

from hookagent.errors import ConfigError

__all__ = ["read_front_matter", "split_front_matter"]

_KEY: Final = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$")


def read_front_matter(path: Path) -> tuple[dict[str, Any], str]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read it: {exc.strerror}", file=str(path)) from exc
    return split_front_matter(text, str(path))


def split_front_matter(text: str, source: str) -> tuple[dict[str, Any], str]:
    """(fields, body); a file with no front matter has no fields."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, text
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise ConfigError("the front matter opened with --- is never closed", file=source) from None
    fields: dict[str, Any] = {}
    current: str | None = None
    for number, raw in enumerate(lines[1:end], start=2):
        line = raw.rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        item = line.strip()
        if item.startswith("- ") and current is not None and isinstance(fields[current], list):
            fields[current].append(_scalar(item[2:].strip(), source, number))
            continue
        found = _KEY.match(line)
        if found is None or line[0].isspace():
            raise ConfigError(f"line {number}: expected `key: value`, got {line!r}", file=source)
        key, value = found.group(1), found.group(2).strip()
        current = key
        fields[key] = [] if value == "" else _value(value, source, number)
    body = "\n".join(lines[end + 1 :]).strip("\n")
    return fields, body


def _value(text: str, source: str, number: int) -> Any:
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip()
        return [_scalar(part.strip(), source, number) for part in inner.split(",")] if inner else []
    return _scalar(text, source, number)


def _scalar(text: str, source: str, number: int) -> Any:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    if text[:1] in "\"'[{":
        raise ConfigError(f"line {number}: cannot read {text!r}", file=source)
    if text in ("true", "false"):
        return text == "true"
    return text
