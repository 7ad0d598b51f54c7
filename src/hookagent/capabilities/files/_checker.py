"""A read-only agent over a project's files that checks one condition: what a Claude Code
`agent` handler runs (`claude.agent_hook`).

It has Read, Grep, Glob and LS (nothing that writes, no shell), the default policies with
`max_steps` in place of the default step limit, and, when `meter` is given, an observer
that reports each reply's usage to the run that asked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from hookagent.capabilities.files import FileTools
from hookagent.hooks._events import InferenceResultEvent
from hookagent.hooks._hook import make_hook
from hookagent.hooks._points import AFTER_INFERENCE
from hookagent.hooks._registry import HookRegistry
from hookagent.models._base import Model
from hookagent.policies._defaults import default_limits, policy_hooks
from hookagent.policies._error_policy import ErrorPolicy
from hookagent.policies._limits import StepLimit

__all__ = ["checker_agent"]

A = TypeVar("A")


def checker_agent(
    kind: Callable[..., A],
    model: Model,
    *,
    project_dir: str,
    system_prompt: str,
    max_steps: int,
    meter: Callable[[InferenceResultEvent], None] | None = None,
) -> A:
    """An agent of `kind` (the `Agent` class of the agent asking) built for the check."""
    files = FileTools(project_dir, read_only=True)
    limits = default_limits()
    limits["steps"] = StepLimit(max_steps)
    registry = HookRegistry(policy_hooks(limits, ErrorPolicy.default()))
    for hook in files.hooks():
        registry.add(hook)
    if meter is not None:
        registry.add(make_hook(AFTER_INFERENCE, meter, name="parent_usage", kind="observer"))
    tools: dict[str, Any] = {tool.name: tool for tool in files.tools()}
    return kind(model=model, tools=tools, registry=registry, system_prompt=system_prompt)
