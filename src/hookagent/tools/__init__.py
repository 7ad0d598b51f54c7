"""Tools: the protocol, results, and `@tool` for typed functions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hookagent._lazy import attribute_loader

if TYPE_CHECKING:
    from hookagent.tools._sandboxing import SANDBOX_ARG, auto_allowed, runs_sandboxed
    from hookagent.tools._traits import ToolTraits, traits_of

_HOME = {
    "auto_allowed": "hookagent.tools._sandboxing",
    "runs_sandboxed": "hookagent.tools._sandboxing",
    "SANDBOX_ARG": "hookagent.tools._sandboxing",
    "ToolTraits": "hookagent.tools._traits",
    "traits_of": "hookagent.tools._traits",
}

__all__ = [
    "SANDBOX_ARG",
    "ToolTraits",
    "auto_allowed",
    "runs_sandboxed",
    "traits_of",
]

__getattr__ = attribute_loader(__name__, _HOME, globals())
