"""Everything one run carries through the kernel's ladder."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any, TypeVar, final

from hookagent._errors import ConfigError
from hookagent._record import record
from hookagent.hooks._decision import Decision
from hookagent.hooks._points import HookPoint
from hookagent.kernel._dispatch import Dispatcher
from hookagent.kernel._seams import CallLog, TurnBoundary
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView
from hookagent.models._base import Model, OnDelta, ToolSpec
from hookagent.spill._results import ToolOutputs
from hookagent.tools._base import Tool
from hookagent.tools._traits import ToolTraits

__all__ = ["Budgets", "RunContext"]

E = TypeVar("E")


@record
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
    traits: Mapping[str, ToolTraits]
    """Per tool name, its declared traits (read and checked once, when the agent is built)."""
    tool_specs: tuple[ToolSpec, ...]
    system_prompt: str | None
    settings: Mapping[str, Any]
    budgets: Budgets
    on_delta: OnDelta | None = None
    """Where a streaming model's deltas go while someone watches (None: replies are made
    whole)."""
    calls: CallLog | None = None
    """What a layer that keeps the run does with its tool calls (`kernel.seams`)."""
    turn: TurnBoundary | None = None
    """Called as each turn begins, for a layer that keeps the run (`kernel.seams`)."""
    kept: bool = False
    """Whether a layer keeps the run to be resumed: a cancelled run is then left as a crash
    leaves it (`cancellation`)."""
    outputs: ToolOutputs | None = None
    """Per tool, how long a result the model reads; longer ones are saved in the run's folder."""
    resumed_at: float = field(default_factory=perf_counter)
    elapsed_before: float = 0.0
    clock: Callable[[], float] = perf_counter
    """What execution time is measured with (`tick`): a workflow's own clock on Temporal, so
    a time limit replays the same."""
    quiet_continue: Callable[[RunView, int], bool] | None = None
    """After a step that ran this many tool calls: whether the should_continue fold would
    record nothing (only the limits listen there, and none is reached), so the loop goes on,
    or on to the stop, without it (`policies.quiet_continue`). None: every step folds."""
    quiet_stop: Callable[[], bool] | None = None
    """Whether the stop fold would record nothing and let the run complete (only the limits
    listen there; `policies.quiet_stop`). None: the stop always folds."""

    @property
    def ended(self) -> bool:
        return self.state.stop_reason is not None

    async def consult(self, point: HookPoint[E], event: E) -> tuple[Decision, E]:
        """Fire `point` and apply what a decision means at any point, so a rung handles
        only what is particular to its own: a `stop` ends the run (the rung checks
        `ended`), and otherwise the hooks' contexts reach the model's next request."""
        decision, event = await self.hooks.fire(point, event)
        if decision.outcome == "stop":
            self.state.stop_by(decision)
        elif decision.contexts:
            self.state.add_reminder(decision.contexts)
        return decision, event

    def tick(self) -> None:
        """Bring the state's cumulative execution time up to date."""
        self.state.elapsed = self.elapsed_before + (self.clock() - self.resumed_at)
