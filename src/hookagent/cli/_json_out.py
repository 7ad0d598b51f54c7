"""`emit_json`: what every `--json` option prints, kept apart from the text views so that a
command printing JSON loads no console library."""

from __future__ import annotations

import json
from typing import Any

import typer

__all__ = ["emit_json"]


def emit_json(data: Any) -> None:
    """One JSON document on stdout, indented, snake_case keys, null for what is absent."""
    typer.echo(json.dumps(data, indent=2, default=str, ensure_ascii=False))
