"""What starts a run's workflow, as plain data: the prompt, the agent's policy version, the
session it belongs to and the conversation it continues, and the run's own options.

A run's `limits` travel as numbers and its `output_type` by its importable name (`module:
qualname`), so the worker builds the same run setup (`Agent.setup_for`) the caller asked for.
What a run on Temporal cannot honour yet is refused here, naming the option, before any
workflow starts: a `CostLimit` object as a limit (give `max_cost` as a number) and a type
that cannot be imported by name.

A subagent's run (`child_task`) names its agent by the root agent's policy version and the
subagent's type (`agent_of`): the worker builds the child as `Subagents` does in memory.
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
from hookagent.capabilities.subagents._capability import TOOL_NAME, AgentTool, Subagents
from hookagent.durable import _codec as codec
from hookagent.kernel._state import RunState

__all__ = [
    "agent_of",
    "check_agent",
    "child_task",
    "messages_of",
    "output_name",
    "run_task",
    "setup_of",
    "subagents_of",
]


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
    """Build the agent's subagents now: one that cannot be built (a model that cannot be
    had) is a `ConfigError` where the worker starts or the run is started, not a workflow
    that cannot begin."""
    owner = subagents_of(agent)
    if owner is None:
        return
    for spec in owner.registry.specs.values():
        try:
            owner.child_agent(spec)
        except ConfigError as exc:
            raise ConfigError(
                f"cannot be built: {exc}", file=spec.source, key=f"subagent {spec.name!r}"
            ) from exc


def subagents_of(agent: Agent) -> Subagents | None:
    """The agent's `Subagents`, when it has the `Agent` tool."""
    tool = agent.tools.get(TOOL_NAME)
    return tool.owner if isinstance(tool, AgentTool) else None


def agent_of(root: Agent, task: Mapping[str, Any]) -> Agent:
    """The agent a run (or one of its activities) runs: `root`, or the subagent the task
    names (`agent`), built from `root`'s `Subagents`."""
    kind = task.get("agent")
    if kind is None:
        return root
    owner = subagents_of(root)
    spec = owner.registry.get(kind) if owner is not None else None
    if owner is None or spec is None:  # fails the task: a worker that serves it takes it up
        raise RuntimeError(f"this worker's agent has no subagent {kind!r}")
    return owner.child_agent(spec)


def child_task(policy: str, queue: str, kind: str, prompt: str, state: RunState) -> dict[str, Any]:
    """The workflow input of a subagent's run: its prompt and `state`'s parent and metadata
    (its depth), under the root agent's policy version and its task queue; the agent's own
    limits, as in memory."""
    return {
        "prompt": prompt,
        "metadata": dict(state.metadata),
        "policy": policy,
        "queue": queue,
        "agent": kind,
        "parent": state.parent_run_id,
        "session": None,
        "messages": [],
        "limits": None,
        "output_type": None,
    }


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
    """The setup the run `task` describes asked for, as the caller's agent (or the
    subagent it names) has it."""
    name = task.get("output_type")
    output_type = _imported(name) if name is not None else None
    return agent_of(agent, task).setup_for(output_type, task.get("limits"))


def messages_of(task: Mapping[str, Any]) -> list[Message]:
    """The conversation the run continues."""
    return [codec.load("message", json.dumps(m)) for m in task.get("messages") or ()]


def _imported(name: str) -> Any:
    module, _, qualname = name.partition(":")
    found: Any = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found
