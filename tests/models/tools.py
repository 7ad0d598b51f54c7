"""Small tools the driver tests give their agents."""

from __future__ import annotations

import hookagent as h

__all__ = ["add", "echo", "explode"]


@h.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@h.tool
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@h.tool
def explode(reason: str) -> str:
    """Always fails."""
    raise ValueError(f"exploded: {reason}")
