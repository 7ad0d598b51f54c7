"""`RunSetup`: what an agent hands each run, computed once rather than per run."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, final

from hookagent.hooks.registry import HookRegistry
from hookagent.models.base import ToolSpec
from hookagent.spill.results import ToolOutputs
from hookagent.tools.base import PreparesArgs, Tool

if TYPE_CHECKING:
    from hookagent.capabilities.structured_output import StructuredOutput

__all__ = ["RunSetup"]


@final
@dataclass(frozen=True, slots=True)
class RunSetup:
    """The tools and hooks one run works with: the agent's own, or its set extended for an
    output type. Built once, read by every run."""

    tools: Mapping[str, Tool]
    specs: tuple[ToolSpec, ...]
    preparers: Mapping[str, Any]
    registry: HookRegistry
    watch_tick: float | None
    output: StructuredOutput[Any] | None
    outputs: ToolOutputs

    @classmethod
    def of(
        cls,
        tools: Mapping[str, Tool],
        registry: HookRegistry,
        output: StructuredOutput[Any] | None,
        outputs: tuple[Path, int | None],
    ) -> RunSetup:
        timeouts = [h.timeout for h in registry if h.is_async and h.timeout is not None]
        return cls(
            tools=dict(tools),
            specs=tuple(
                ToolSpec(name=t.name, description=t.description, parameters=t.parameters)
                for t in tools.values()
            ),
            preparers={
                name: tool.prepare for name, tool in tools.items() if isinstance(tool, PreparesArgs)
            },
            registry=registry,
            watch_tick=min(1.0, max(0.005, min(timeouts) / 10)) if timeouts else None,
            output=output,
            outputs=ToolOutputs(outputs[0], tools, outputs[1]),
        )
