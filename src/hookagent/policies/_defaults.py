"""The policies every agent starts with, in one place: `AgentBuilder` starts from them, and
so does an agent made without a builder (the checker of a Claude Code `agent` handler)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hookagent._capability import Capability
from hookagent.hooks._hook import Hook
from hookagent.policies._error_policy import ErrorPolicy
from hookagent.policies._limits import StepLimit, TimeLimit, TokenLimit, ToolCallPresence

__all__ = ["default_limits", "policy_hooks"]


def default_limits() -> dict[str, Capability | None]:
    """The default limits by slot (`AgentBuilder.limits` replaces or removes each)."""
    return {
        "steps": StepLimit(),
        "tokens": TokenLimit(),
        "time": TimeLimit(),
        "presence": ToolCallPresence(),
    }


def policy_hooks(limits: dict[str, Capability | None], errors: ErrorPolicy) -> Iterator[Hook[Any]]:
    """The hooks of `limits` (a slot set to None has none) and of the error policy."""
    for limit in limits.values():
        if limit is not None:
            yield from limit.hooks()
    yield from errors.hooks()
