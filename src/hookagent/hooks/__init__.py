"""The hook engine: points, results, matchers, the registry and the fold."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hookagent.lazy import attribute_loader

if TYPE_CHECKING:
    from hookagent.hooks.hook import match, observers

_HOME = {
    "match": "hookagent.hooks.hook",
    "observers": "hookagent.hooks.hook",
}

__all__ = [
    "match",
    "observers",
]

__getattr__ = attribute_loader(__name__, _HOME, globals())
