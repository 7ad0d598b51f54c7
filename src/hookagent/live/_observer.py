"""`LiveObserver`: what `Agent.stream` yields, observed from outside the loop.

Nothing in the kernel emits: the stream is built, as `Tracing` is, from audit-tier observer
hooks (a step or a tool call begins, a reply passed after_inference), from the run's step
log (`StepTable.watch`: each tool call and step as it is recorded), from its decision log,
and from the model's own `stream(on_delta)`. Events leave in the order things happened:
before each one, the decisions recorded since the last are sent.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, final

from hookagent._messages import AssistantMessage
from hookagent.hooks._events import InferenceResultEvent, RunEvent, StepEvent, ToolCallEvent
from hookagent.hooks._hook import Hook, observers
from hookagent.hooks._points import (
    AFTER_INFERENCE,
    AFTER_TOOL,
    BEFORE_STEP,
    BEFORE_TOOL,
    EXECUTION_END,
)
from hookagent.kernel._records import StepRecord, ToolExecution
from hookagent.kernel._state import RunState
from hookagent.live._events import (
    DecisionMade,
    Emit,
    ModelReplied,
    StepFinished,
    StepStarted,
    ToolFinished,
    ToolStarted,
)
from hookagent.models._base import ModelResponse

__all__ = ["LiveObserver"]


@final
class _Run:
    """One watched run: where its events go, and what of it was sent already. (The step a
    resumed run takes up from its journal comes as any other: its hooks are `replayed`.)"""

    __slots__ = ("_decisions", "_emit", "_reply", "_started", "_state")

    def __init__(self, state: RunState, emit: Emit) -> None:
        self._state, self._emit = state, emit
        self._decisions = len(state.decisions)
        self._reply: ModelResponse | None = None
        """The step's reply as after_inference left it, until it is known to stand."""
        self._started: set[str] = set()
        """Calls whose `ToolStarted` was sent."""

    def catch_up(self) -> None:
        """Send the step's reply once it stands, and every decision recorded since."""
        state, emit = self._state, self._emit
        reply = self._reply
        if reply is not None and _last_reply(state) is reply.message:
            self._reply = None
            emit(ModelReplied(state.position.step, reply))
        decisions = state.decisions
        while self._decisions < len(decisions):
            emit(DecisionMade(decisions[self._decisions]))
            self._decisions += 1

    def step_started(self, step: int) -> None:
        self.catch_up()
        self._reply = None
        self._emit(StepStarted(step))

    def replied(self, response: ModelResponse) -> None:
        self.catch_up()
        self._reply = response

    def tool_started(self, step: int, call_id: str, name: str, args: Any) -> None:
        self.catch_up()
        self._started.add(call_id)
        self._emit(ToolStarted(step, call_id, name, args))

    # -- the step log's watcher -------------------------------------------------------
    def call_recorded(self, execution: ToolExecution, /) -> None:
        step = self._state.position.step
        if execution.call_id not in self._started:  # no before_tool for it (unknown tool…)
            self.tool_started(step, execution.call_id, execution.name, execution.args)
        self._started.discard(execution.call_id)
        self.catch_up()
        self._emit(ToolFinished(step, execution))

    def step_recorded(self, record: StepRecord, /) -> None:
        self.catch_up()
        self._emit(StepFinished(record))


@final
class LiveObserver:
    """Streams the runs `watch` was given; its `hooks` go in the registry those runs use."""

    name = "live"

    def __init__(self) -> None:
        self._runs: dict[str, _Run] = {}

    def watch(self, state: RunState, emit: Emit) -> None:
        run = self._runs[state.run_id] = _Run(state, emit)
        state.steps.watch(run)

    def catch_up(self, state: RunState) -> None:
        """Send the decisions recorded since the last event now (before a run moves on
        elsewhere: a Temporal run continuing as new)."""
        run = self._runs.get(state.run_id)
        if run is not None:
            run.catch_up()

    def close(self, state: RunState) -> None:
        """The run is over (or stopped): send what is left, and stop watching it."""
        run = self._runs.pop(state.run_id, None)
        if run is not None:
            state.steps.watch(None)
            run.catch_up()

    def hooks(self) -> Iterable[Hook[Any]]:
        return observers(
            self.name,
            [
                (BEFORE_STEP, self._step_started),
                (AFTER_INFERENCE, self._replied),
                (BEFORE_TOOL, self._tool_started),
                (AFTER_TOOL, self._caught_up),
                (EXECUTION_END, self._caught_up),
            ],
        )

    def _step_started(self, event: StepEvent) -> None:
        run = self._runs.get(event.run.run_id)
        if run is not None:
            run.step_started(event.step)

    def _replied(self, event: InferenceResultEvent) -> None:
        run = self._runs.get(event.run.run_id)
        if run is not None:
            run.replied(event.response)

    def _tool_started(self, event: ToolCallEvent) -> None:
        run = self._runs.get(event.run.run_id)
        if run is not None:
            run.tool_started(event.step, event.call_id, event.tool_name, event.args)

    def _caught_up(self, event: RunEvent | Any) -> None:
        run = self._runs.get(event.run.run_id)
        if run is not None:
            run.catch_up()


def _last_reply(state: RunState) -> AssistantMessage | None:
    """The conversation's last assistant message (a reply is followed only by its results)."""
    for message in reversed(state.messages):
        if isinstance(message, AssistantMessage):
            return message
    return None
