"""What a child agent runs on: its model, through the aliases the user configured, and its
tools, cut to those its parent has.

Claude Code's agent files name models by alias (`sonnet`, `opus`, `haiku`), by full Claude id,
or `inherit`. Here an alias means the model the user maps it to (`AgentBuilder.model_alias`,
`hookagent run --model-alias`); any name can be mapped, full ids included. `inherit`, or a
name nobody mapped, runs the child on its parent's model; a `provider:model` name is resolved
as it is. A `tools:` entry the parent lacks (Claude Code's WebSearch, WebFetch…) is left out.
Whatever is not honoured as written is a notice naming the agent file, given once at build.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from hookagent._errors import ConfigError
from hookagent.capabilities.subagents._specs import AgentSpec
from hookagent.models._base import Model
from hookagent.models._resolve import resolve_model
from hookagent.tools._base import Tool

__all__ = ["TOOL_ALIASES", "child_model", "child_tools", "notices", "resolve_aliases"]

TOOL_ALIASES: Final = {"Task": "Agent"}
"""Claude Code's older names for tools hookagent has under another."""


def resolve_aliases(aliases: Mapping[str, str | Model]) -> dict[str, Model]:
    """Each alias's model; a `ConfigError` naming the alias for one that cannot be had."""
    models: dict[str, Model] = {}
    for alias, target in aliases.items():
        if not isinstance(target, str):
            models[alias] = target
            continue
        try:
            models[alias] = resolve_model(target)
        except ConfigError as exc:
            problem = str(exc).removeprefix(f"{exc.key}: ") if exc.key else str(exc)
            raise ConfigError(problem, key=f"model alias {alias!r}", value=target) from exc
    return models


def child_model(spec: AgentSpec, parent: Model, aliases: Mapping[str, Model]) -> Model:
    """The model `spec` runs on (see the module docstring)."""
    mapped = aliases.get(spec.model)
    if mapped is not None:
        return mapped
    if spec.model != "inherit" and ":" in spec.model:
        return resolve_model(spec.model)
    return parent


def child_tools(spec: AgentSpec, parent: Mapping[str, Tool]) -> dict[str, Tool]:
    """The parent's inheritable tools, cut to the spec's list when it has one, less its
    `disallowedTools`."""
    denied = {TOOL_ALIASES.get(name, name) for name in spec.disallowed_tools}
    tools = {
        name: tool
        for name, tool in parent.items()
        if getattr(tool, "inheritable", True) and name not in denied
    }
    if spec.tools is None:
        return tools
    wanted = (TOOL_ALIASES.get(name, name) for name in spec.tools)
    return {name: tools[name] for name in wanted if name in tools}


def notices(
    specs: Iterable[AgentSpec], parent_tools: Mapping[str, Tool], aliases: Mapping[str, Model]
) -> list[str]:
    """What the specs ask for and will not get as written, one line each."""
    lines: list[str] = []
    for spec in specs:
        model = spec.model
        if model != "inherit" and ":" not in model and model not in aliases:
            lines.append(
                f"{spec.source}: agent {spec.name!r} names model {model!r}, which no model "
                f"alias maps (--model-alias {model}=PROVIDER:MODEL, or "
                f"AgentBuilder.model_alias); it runs on its parent's model"
            )
        have = child_tools(spec, parent_tools)
        denied = set(spec.disallowed_tools)
        missing = [
            n for n in spec.tools or () if TOOL_ALIASES.get(n, n) not in have and n not in denied
        ]
        if missing:
            lines.append(
                f"{spec.source}: agent {spec.name!r} names tools this agent does not have: "
                f"{', '.join(missing)}; it runs without them"
            )
        if spec.not_honoured:
            lines.append(
                f"{spec.source}: agent {spec.name!r} sets {', '.join(spec.not_honoured)}, "
                "which hookagent does not honour; it runs as if they were not set"
            )
    return lines
