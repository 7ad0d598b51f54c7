"""The hook engine: points, results, matchers, the registry and the fold."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hookagent._lazy import attribute_loader

if TYPE_CHECKING:
    from hookagent.hooks._hook import match, observers

_HOME = {"match": "hookagent.hooks._hook", "observers": "hookagent.hooks._hook"}

__all__ = ["match", "observers"]

__getattr__ = attribute_loader(__name__, _HOME, globals())
