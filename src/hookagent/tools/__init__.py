"""Tools: the protocol, results, and `@tool` for typed functions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hookagent.lazy import attribute_loader

if TYPE_CHECKING:
    from hookagent.tools.sandboxing import SANDBOX_ARG, auto_allowed, runs_sandboxed
    from hookagent.tools.traits import ToolTraits, traits_of

_HOME = {
    "auto_allowed": "hookagent.tools.sandboxing",
    "runs_sandboxed": "hookagent.tools.sandboxing",
    "SANDBOX_ARG": "hookagent.tools.sandboxing",
    "ToolTraits": "hookagent.tools.traits",
    "traits_of": "hookagent.tools.traits",
}

__all__ = [
    "SANDBOX_ARG",
    "ToolTraits",
    "auto_allowed",
    "runs_sandboxed",
    "traits_of",
]

__getattr__ = attribute_loader(__name__, _HOME, globals())
