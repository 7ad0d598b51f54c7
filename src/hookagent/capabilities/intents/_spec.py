"""The intents file: `active_intents:`, a list of planned units of work, each owning files.

    active_intents:
      - id: INT-001
        name: JWT authentication migration
        status: IN_PROGRESS
        owned_scope: ["src/auth/**", "src/middleware/jwt.ts"]
        constraints: ["Must not use external auth providers"]
        acceptance_criteria: ["Unit tests in tests/auth/ pass"]

YAML (the subset `reader.py` reads) or, for a file named `*.json`, the same shape in JSON.
`id` is required (1 to 128 characters of `A-Z a-z 0-9 . _ : -`, unique); the other keys are
optional and other keys are ignored. `owned_scope` globs are relative to the project root:
`**` spans directories, `*` and `?` stay within one, `[...]` and `{a,b}` as in Glob; a glob
ending in `/` owns everything below that directory. A malformed file is a `ConfigError`
naming the file and the line (for JSON, the line of a syntax error, else the key's path).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import field
from html import escape
from pathlib import Path
from typing import Any, Final, final

from hookagent._errors import ConfigError
from hookagent._record import record
from hookagent.capabilities.files._walk import compile_glob
from hookagent.capabilities.intents._reader import NodePath, read_yaml

__all__ = [
    "INTENT_ID",
    "Intent",
    "IntentFile",
    "parse_intents",
    "render_context",
]

INTENT_ID: Final = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
MAX_SCOPE: Final = 15
"""Globs shown in the rendered context (all of them are enforced)."""
MAX_ITEMS: Final = 5
"""Constraints and acceptance criteria shown in the rendered context, each."""
MAX_ITEM_CHARS: Final = 200
_LISTS: Final = ("owned_scope", "constraints", "acceptance_criteria")


@record
class Intent:
    """One planned unit of work, as the intents file describes it."""

    id: str
    name: str = ""
    status: str = ""
    owned_scope: tuple[str, ...] = ()
    constraints: tuple[str, ...] = ()
    acceptance_criteria: tuple[str, ...] = ()
    patterns: tuple[re.Pattern[str], ...] = field(default=(), repr=False, compare=False)
    """`owned_scope` compiled, matched against `/`-separated paths below the root."""

    def summary(self) -> dict[str, str]:
        """What a model needs to choose it: id, name and status."""
        return {"id": self.id, "name": self.name, "status": self.status}

    def as_dict(self) -> dict[str, Any]:
        return {
            **self.summary(),
            "owned_scope": list(self.owned_scope),
            "constraints": list(self.constraints),
            "acceptance_criteria": list(self.acceptance_criteria),
        }


def parse_intents(text: str, source: str) -> tuple[Intent, ...]:
    """The intents in `text`, read from the file `source` (JSON if it ends in `.json`)."""
    if source.endswith(".json"):
        try:
            value: Any = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"line {exc.lineno}: not valid JSON: {exc.msg}", file=source) from exc
        return _Checker(source, {}).intents(value)
    document = read_yaml(text, source)
    return _Checker(source, document.lines).intents(document.value)


@final
class _Checker:
    """Turns the parsed document into intents; errors name the line (or the key's path)."""

    __slots__ = ("lines", "source")

    def __init__(self, source: str, lines: Mapping[NodePath, int]) -> None:
        self.source = source
        self.lines = lines

    def bad(self, path: NodePath, problem: str) -> ConfigError:
        """An error naming the line of `path` (or of the nearest key above it, for an item
        of an inline list); without lines (JSON), the path itself."""
        for end in range(len(path), 0, -1):
            line = self.lines.get(path[:end])
            if line is not None:
                return ConfigError(f"line {line}: {problem}", file=self.source)
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
        message = f"{where.lstrip('.')}: {problem}" if where else problem
        return ConfigError(message, file=self.source)

    def intents(self, top: Any) -> tuple[Intent, ...]:
        if not isinstance(top, dict) or "active_intents" not in top:
            raise self.bad((), "expected a map with an `active_intents:` list of intents")
        items = top["active_intents"]
        if items is None:
            return ()
        if not isinstance(items, list):
            raise self.bad(("active_intents",), "`active_intents` must be a list of intents")
        seen: dict[str, int] = {}
        out: list[Intent] = []
        for index, item in enumerate(items):
            intent = self.intent(item, ("active_intents", index))
            if intent.id in seen:
                first = self.lines.get(("active_intents", seen[intent.id], "id"))
                also = f" (first on line {first})" if first else ""
                raise self.bad(
                    ("active_intents", index, "id"), f"the id {intent.id!r} is given twice{also}"
                )
            seen[intent.id] = index
            out.append(intent)
        return tuple(out)

    def intent(self, item: Any, path: NodePath) -> Intent:
        if not isinstance(item, dict):
            raise self.bad(path, "an intent must be a map with at least an `id`")
        intent_id = self.text(item, "id", path)
        if not intent_id:
            raise self.bad(path, "the intent has no `id`")
        if INTENT_ID.match(intent_id) is None:
            raise self.bad(
                (*path, "id"),
                f"id {intent_id!r} must be 1-128 characters of letters, digits, `.`, `_`, "
                "`:` and `-`",
            )
        lists = {key: self.texts(item, key, path) for key in _LISTS}
        return Intent(
            id=intent_id,
            name=self.text(item, "name", path),
            status=self.text(item, "status", path),
            owned_scope=lists["owned_scope"],
            constraints=lists["constraints"],
            acceptance_criteria=lists["acceptance_criteria"],
            patterns=tuple(
                self.glob(glob, (*path, "owned_scope", i))
                for i, glob in enumerate(lists["owned_scope"])
            ),
        )

    def text(self, item: dict[str, Any], key: str, path: NodePath) -> str:
        value = item.get(key)
        if value is None:
            return ""
        if not isinstance(value, str):
            raise self.bad((*path, key), f"`{key}` must be text")
        return value.strip()

    def texts(self, item: dict[str, Any], key: str, path: NodePath) -> tuple[str, ...]:
        value = item.get(key)
        if value is None:
            return ()
        if not isinstance(value, list):
            raise self.bad((*path, key), f"`{key}` must be a list of text")
        for index, entry in enumerate(value):
            if not isinstance(entry, str) or not entry.strip():
                raise self.bad((*path, key, index), f"each item of `{key}` must be text")
        return tuple(entry.strip() for entry in value)

    def glob(self, glob: str, path: NodePath) -> re.Pattern[str]:
        parts = glob.split("/")
        if glob.startswith("/") or ".." in parts:
            raise self.bad(path, f"the glob {glob!r} must be relative to the project root")
        try:
            return compile_glob(glob + "**" if glob.endswith("/") else glob)
        except re.error as exc:
            raise self.bad(path, f"the glob {glob!r} cannot be read: {exc}") from exc


@final
class IntentFile:
    """The intents file, read again only when it changes (by mtime, size and inode)."""

    __slots__ = ("_cache", "path")

    def __init__(self, path: Path) -> None:
        self.path: Final = path
        self._cache: tuple[tuple[int, ...], tuple[Intent, ...]] | None = None

    def load(self) -> tuple[Intent, ...] | None:
        """The intents, or None if there is no file. Blocking: call it off the loop."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise ConfigError(f"cannot read it: {exc.strerror}", file=str(self.path)) from exc
        key = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)
        cached = self._cache
        if cached is not None and cached[0] == key:
            return cached[1]
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except UnicodeDecodeError as exc:
            raise ConfigError(f"not UTF-8 text ({exc.reason})", file=str(self.path)) from exc
        except OSError as exc:
            raise ConfigError(f"cannot read it: {exc.strerror}", file=str(self.path)) from exc
        intents = parse_intents(text, str(self.path))
        self._cache = (key, intents)
        return intents

    def find(self, intent_id: str) -> Intent | None:
        """The intent with this id; None if the file or the intent is gone."""
        return next((i for i in self.load() or () if i.id == intent_id), None)


def render_context(intent: Intent) -> str:
    """The `<intent_context>` block: at most `MAX_SCOPE` globs and `MAX_ITEMS` constraints
    and criteria, long items cut."""
    attrs = " ".join(f'{key}="{escape(value)}"' for key, value in intent.summary().items() if value)
    parts = [f"<intent_context {attrs}>"]
    for key, items, limit in (
        ("owned_scope", intent.owned_scope, MAX_SCOPE),
        ("constraints", intent.constraints, MAX_ITEMS),
        ("acceptance_criteria", intent.acceptance_criteria, MAX_ITEMS),
    ):
        if not items:
            if key == "owned_scope":
                parts.append("<owned_scope/>")
            continue
        lines = [f"- {escape(_cut(item), quote=False)}" for item in items[:limit]]
        if len(items) > limit:
            lines.append(f"- (and {len(items) - limit} more)")
        parts.extend((f"<{key}>", *lines, f"</{key}>"))
    parts.append("</intent_context>")
    return "\n".join(parts)


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_ITEM_CHARS else text[: MAX_ITEM_CHARS - 1] + "…"
