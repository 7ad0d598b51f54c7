"""Write small Python hook scripts into a test's folder and settings that run them."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any


def script(folder: Path, name: str, body: str) -> str:
    """A Python hook script; returns the command line that runs it."""
    path = folder / f"{name}.py"
    path.write_text("import json, os, sys\n" + textwrap.dedent(body), encoding="utf-8")
    return f"{sys.executable} {path}"


def settings(
    folder: Path, hooks: dict[str, list[dict[str, Any]]], name: str = "settings.json", **extra: Any
) -> Path:
    path = folder / name
    path.write_text(json.dumps({"hooks": hooks, **extra}), encoding="utf-8")
    return path


def group(command: str, matcher: str | None = None, **handler: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"hooks": [{"type": "command", "command": command, **handler}]}
    if matcher is not None:
        entry["matcher"] = matcher
    return entry


RECORD_STDIN = """
data = sys.stdin.read()
with open(os.environ["RECORD_TO"], "a") as out:
    out.write(data + "\\n")
"""
"""A script that appends what it read on stdin to $RECORD_TO."""
