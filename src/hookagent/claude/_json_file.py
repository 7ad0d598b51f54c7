"""Claude Code's JSON files (settings, plugin manifests) read as Claude Code reads them: UTF-8
with a leading BOM skipped (editors on Windows write one), an empty settings file meaning
`{}`, and every failure a `ConfigError` naming the file and, for bad JSON, the line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hookagent._errors import ConfigError

__all__ = ["parse_json", "read_json"]


def read_json(path: Path, file: str, *, missing_ok: bool = False) -> Any:
    """The decoded file; `{}` when it is empty; None when it does not exist and `missing_ok`."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        if missing_ok and isinstance(exc, FileNotFoundError):
            return None
        reason = getattr(exc, "strerror", None) or exc
        raise ConfigError(f"cannot read: {reason}", file=file) from None
    if not text.strip():
        return {}
    return parse_json(text, file)


def parse_json(text: str, file: str) -> Any:
    """`text` decoded; bad JSON is an error naming the line and column."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        message = f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        raise ConfigError(message, file=file) from None
