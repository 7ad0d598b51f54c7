"""What starts a run's workflow, as plain data: the prompt, the agent's policy version, the
session it belongs to and the conversation it continues, and the run's own options.

A run's `limits` travel as numbers and its `output_type` by its importable name (`module:
qualname`), so the worker builds the same run setup (`Agent.setup_for`) the caller asked for.
What a run on Temporal cannot honour yet is refused here, naming the option, before any
workflow starts: a `CostLimit` object as a limit (give `max_cost` as a number), a type that
cannot be imported by name, and an agent with subagents (the `Agent` tool runs a child
agent, which the tool activity cannot).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from hookagent._agent import Agent
from hookagent._errors import ConfigError
from hookagent._messages import Message
from hookagent._run_limits import run_limits
from hookagent._run_setup import RunSetup
from hookagent.durable import _codec as codec

__all__ = ["check_agent", "messages_of", "output_name", "run_task", "setup_of"]


def run_task(
    agent: Agent,
    prompt: str,
    *,
    metadata: Mapping[str, Any] | None = None,
    session: str | None = None,
    messages: Sequence[Message] = (),
    limits: Mapping[str, Any] | None = None,
    output_type: type[Any] | None = None,
) -> dict[str, Any]:
    """The workflow's input for a run of `agent`, checked."""
    check_agent(agent)
    checked = run_limits(limits)
    for key, value in checked:
        if value is not None and not isinstance(value, int | float):
            raise ConfigError(
                "a run on Temporal takes its limits as numbers (give max_cost in USD)",
                key=f"limits[{key!r}]",
                value=value,
            )
    name = output_name(output_type) if output_type is not None else None
    agent.setup_for(output_type, limits)  # refuses what the agent cannot run, here
    return {
        "prompt": prompt,
        "metadata": dict(metadata or {}),
        "policy": agent.policy_version,
        "session": session,
        "messages": [json.loads(codec.dump("message", m)) for m in messages],
        "limits": dict(checked) or None,
        "output_type": name,
    }


def check_agent(agent: Agent) -> None:
    """Refuse an agent whose runs a workflow cannot run as it would in memory."""
    from hookagent.capabilities.subagents._capability import TOOL_NAME, AgentTool

    if isinstance(agent.tools.get(TOOL_NAME), AgentTool):
        raise ConfigError(
            "subagents (the Agent tool) do not run on Temporal; build the agent without them",
            key="subagents",
        )


def output_name(output_type: type[Any]) -> str:
    """`module:qualname`, checked to name `output_type` when imported again."""
    name = f"{output_type.__module__}:{output_type.__qualname__}"
    try:
        found = _imported(name)
    except (ImportError, AttributeError):
        found = None
    if found is not output_type:
        raise ConfigError(
            "a run on Temporal names its output type, which must be importable by that "
            "name (a class at the top of a module the worker can import)",
            key="output_type",
            value=name,
        )
    return name


def setup_of(agent: Agent, task: Mapping[str, Any]) -> RunSetup:
    """The setup the run `task` describes asked for, as the caller's agent has it."""
    name = task.get("output_type")
    output_type = _imported(name) if name is not None else None
    return agent.setup_for(output_type, task.get("limits"))


def messages_of(task: Mapping[str, Any]) -> list[Message]:
    """The conversation the run continues."""
    return [codec.load("message", json.dumps(m)) for m in task.get("messages") or ()]


def _imported(name: str) -> Any:
    module, _, qualname = name.partition(":")
    found: Any = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found
