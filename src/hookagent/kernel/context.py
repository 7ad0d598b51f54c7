"""Everything one run carries through the kernel's ladder."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any, final

from hookagent.durable.journal import Durable
from hookagent.errors import ConfigError
from hookagent.kernel.dispatch import Dispatcher
from hookagent.kernel.state import RunState
from hookagent.kernel.stream import Emit
from hookagent.kernel.view import RunView
from hookagent.models.base import Model, ToolSpec
from hookagent.spill.results import ToolOutputs
from hookagent.tools.base import Tool

__all__ = ["Budgets", "RunContext"]


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Budgets:
    """How often hooks may force the loop round before the run gives up."""

    stop_blocks: int = 8
    """Consecutive stops a stop hook may refuse (Claude Code's cap is also 8)."""
    retries: int = 3
    """Retries one model call or one tool call may be asked for by hooks."""

    def __post_init__(self) -> None:
        for name in ("stop_blocks", "retries"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 0:
                raise ConfigError(
                    f"must be a whole number >= 0, not {value!r}",
                    key=f"Budgets.{name}",
                    value=value,
                )


@final
@dataclass(slots=True, kw_only=True)
class RunContext:
    state: RunState
    view: RunView
    hooks: Dispatcher
    model: Model
    tools: Mapping[str, Tool]
    preparers: Mapping[str, Callable[[Mapping[str, Any]], Mapping[str, Any]]]
    """Per tool name, its `prepare` step if it has one (resolved once, not per call)."""
    tool_specs: tuple[ToolSpec, ...]
    system_prompt: str | None
    settings: Mapping[str, Any]
    budgets: Budgets
    emit: Emit | None
    deltas: bool = True
    """Whether model calls stream their deltas to `emit` (False: made whole, as without it)."""
    durable: Durable | None = None
    """Set when the run is kept in a store (see `hookagent.durable`)."""
    outputs: ToolOutputs | None = None
    """Per tool, how long a result the model reads; longer ones are saved in the run's folder."""
    resumed_at: float = field(default_factory=perf_counter)
    elapsed_before: float = 0.0

    @property
    def ended(self) -> bool:
        return self.state.stop_reason is not None

    def tick(self) -> None:
        """Bring the state's cumulative execution time up to date."""
        self.state.elapsed = self.elapsed_before + (perf_counter() - self.resumed_at)
