"""Reading a script file (`--model scripted:PATH`): whatever its bytes, a `ConfigError`
naming the file and where in it, never a decoding error from deep inside Python."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hookagent._errors import ConfigError

__all__ = ["read_script"]


def read_script(file: Path) -> Any:
    """The JSON a script file holds (UTF-8, a byte order mark allowed); its shape is checked
    by `ScriptedModel`."""
    try:
        raw = file.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read the script: {exc.strerror}", file=str(file)) from exc
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line, column = _place(raw, exc.start)
        raise ConfigError(
            f"not UTF-8: byte 0x{raw[exc.start]:02x} at line {line}, column {column}",
            file=str(file),
        ) from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})", file=str(file)
        ) from exc
    except RecursionError as exc:
        raise ConfigError(
            "not valid JSON: arrays and objects nest too deep", file=str(file)
        ) from exc
    except ValueError as exc:  # an integer longer than Python reads
        raise ConfigError(f"not valid JSON: {exc}", file=str(file)) from exc


def _place(raw: bytes, offset: int) -> tuple[int, int]:
    """Line and column (in bytes, from 1) of a byte offset."""
    start = raw.rfind(b"\n", 0, offset) + 1
    return raw.count(b"\n", 0, offset) + 1, offset - start + 1
