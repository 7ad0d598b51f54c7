"""`RunSetup`: what an agent hands each run, computed once rather than per run."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, final

from hookagent.hooks._registry import HookRegistry
from hookagent.models._base import ToolSpec
from hookagent.spill._results import ToolOutputs
from hookagent.tools._base import Tool
from hookagent.tools._traits import ToolTraits, tool_traits

if TYPE_CHECKING:
    from hookagent._capability import FinishesResults
    from hookagent.kernel._result import RunResult

__all__ = ["RunSetup"]


@final
@dataclass(frozen=True, slots=True)
class RunSetup:
    """The tools and hooks one run works with: the agent's own, or its set extended for an
    output type. Built once, read by every run."""

    tools: Mapping[str, Tool]
    specs: tuple[ToolSpec, ...]
    traits: Mapping[str, ToolTraits]
    """Per tool name, its traits, read and checked once here (`traits_of`)."""
    registry: HookRegistry
    watch_tick: float | None
    finishers: tuple[FinishesResults, ...]
    """The capabilities that post-process each run's result, in the order installed."""
    outputs: ToolOutputs

    @classmethod
    def of(
        cls,
        tools: Mapping[str, Tool],
        registry: HookRegistry,
        finishers: tuple[FinishesResults, ...],
        outputs: tuple[Path, int | None],
    ) -> RunSetup:
        timeouts = [h.timeout for h in registry if h.is_async and h.timeout is not None]
        traits = tool_traits(tools)
        return cls(
            tools=dict(tools),
            specs=tuple(
                ToolSpec(name=t.name, description=t.description, parameters=t.parameters)
                for t in tools.values()
            ),
            traits=traits,
            registry=registry,
            watch_tick=min(1.0, max(0.005, min(timeouts) / 10)) if timeouts else None,
            finishers=finishers,
            outputs=ToolOutputs(outputs[0], tools, outputs[1]),
        )

    def finish(self, result: RunResult[Any]) -> RunResult[Any]:
        """`result` as the caller gets it, once every finisher has had it."""
        for finisher in self.finishers:
            result = finisher.finish_result(result)
        return result
