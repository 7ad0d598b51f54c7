"""The YAML an intents file is written in, read by PyYAML with the line of every key and list
item, so that each problem found later names its line:

    active_intents:
      - id: "INT-001"
        name: JWT migration
        owned_scope:
          - "src/auth/**"
        constraints: ["No external auth providers", 'Keep the API']

Scalars stay text (`true`, `3` and `2024-01-01` are strings); `~`, `null` and nothing are
None. Text that is not YAML, a key given twice or a key that is not text is a `ConfigError`
naming the file and the line.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from hookagent._record import record
from hookagent._yamlread import NodePath, TextLoader, load_with_lines

__all__ = ["Document", "NodePath", "read_yaml"]


@record(kw_only=False)
class Document:
    value: Any
    """Maps, lists, text and None."""
    lines: dict[NodePath, int] = field(default_factory=dict[NodePath, int])
    """The line each key and each list item is on (1-based)."""


def read_yaml(text: str, source: str) -> Document:
    """Read `text` (from the file `source`, named in errors)."""
    value, lines = load_with_lines(text.removeprefix("\ufeff"), source, TextLoader)
    return Document(value, lines)
