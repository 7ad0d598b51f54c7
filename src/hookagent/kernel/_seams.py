"""Where a layer around the loop plugs in, and what the loop does when none does.

The kernel runs every run as if it lived in memory. A layer that keeps runs (a journal over
a store, a durable execution engine) wraps four seams and nothing else:

- the **fold runner** the dispatcher calls for every hook point (`FoldRunner`);
- **settling a question** a fold asked (`Settle`), behind which a run may pause;
- the **tool calls** (`CallLog`): planned, then approved and executed;
- the **turn boundary** (`TurnBoundary`), where a run's state is a checkpoint.

The model is wrapped as a `Model` like any other. Left unset (None), a seam costs nothing:
the run lives in memory.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

from hookagent._messages import ToolCall
from hookagent.hooks._engine import Folded
from hookagent.hooks._hook import Hook
from hookagent.hooks._points import HookPoint
from hookagent.hooks._result import HookResult
from hookagent.hooks._watch import HookWatch
from hookagent.kernel._approval import Answer, Question
from hookagent.kernel._state import RunState
from hookagent.models._base import Model
from hookagent.tools._base import Tool, ToolResult

if TYPE_CHECKING:
    from hookagent.kernel._context import RunContext

__all__ = [
    "Asking",
    "RunLayer",
    "CallLog",
    "ExecuteOnce",
    "FoldRunner",
    "RunTool",
    "Settle",
    "TurnBoundary",
    "settle_directly",
]

FoldRunner: TypeAlias = Callable[
    [HookPoint[Any], tuple[Hook[Any], ...], Any, HookWatch | None],
    Awaitable[Folded[Any] | HookResult | None],
]
"""Runs one point's hooks over an event (`hooks.engine.fold` by default)."""


class Asking(Protocol):
    """The ways a question can be answered, in the order they are tried."""

    @property
    def has_approver(self) -> bool: ...

    async def ask_hooks(self, question: Question, /) -> Answer | None:
        """permission_request hooks, which may answer for the human."""
        ...

    async def ask_human(self, question: Question, /) -> Answer:
        """The run's approver (or the question's default, or a refusal without one)."""
        ...


Settle: TypeAlias = Callable[[Question, int, Asking], Awaitable[Answer]]
"""The answer to question `index` of a fold. A layer that keeps runs may take it from its
records, or pause the run until someone answers."""


async def settle_directly(question: Question, index: int, asking: Asking) -> Answer:
    return await asking.ask_hooks(question) or await asking.ask_human(question)


RunTool: TypeAlias = Callable[
    ["RunContext", ToolCall, Mapping[str, Any], int], Awaitable[tuple[ToolResult, int]]
]
"""Calls a tool (error-policy retries included): its result and its last attempt."""

ExecuteOnce: TypeAlias = Callable[
    ["RunContext", ToolCall, Mapping[str, Any], int, RunTool], Awaitable[tuple[ToolResult, int]]
]
"""`CallLog.execute(ctx, call, args, attempt, run)`: `run` called at most once for the call."""


class CallLog(Protocol):
    """What a layer that keeps runs does with the run's tool calls."""

    def planned(self, step: int, calls: Sequence[ToolCall], /) -> None:
        """The model's reply (as after_inference hooks left it) asks for these calls."""
        ...

    @property
    def execute(self) -> ExecuteOnce:
        """before_tool let the call through with `args`: run it through `run`, exactly
        once."""
        ...


TurnBoundary: TypeAlias = Callable[[RunState], Awaitable[None]]
"""Called as each turn of the loop begins, and once more before the run's end."""


class RunLayer(Protocol):
    """Everything one layer that keeps runs puts into one run: its fold runner, how it
    settles questions, its call log, its turn boundary, and the model and tools the run
    calls through it."""

    @property
    def calls(self) -> CallLog: ...

    @property
    def fold(self) -> FoldRunner: ...

    async def settle(self, question: Question, index: int, asking: Asking) -> Answer: ...

    async def turn(self, state: RunState) -> None: ...

    def model(self, model: Model, /) -> Model:
        """The model the run calls (a wrapper that keeps its replies)."""
        ...

    def tools(self, tools: Mapping[str, Tool], /) -> Mapping[str, Tool]:
        """The tools the run calls (the same, or stand-ins that run them elsewhere)."""
        ...

    @property
    def spills_here(self) -> bool:
        """Whether results over a tool's limit are cut in this process (else where the
        tools run)."""
        ...
