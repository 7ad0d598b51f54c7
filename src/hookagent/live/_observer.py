"""`LiveObserver`: what `Agent.stream` yields, observed from outside the loop.

Nothing in the kernel emits: the stream is built, as `Tracing` is, from audit-tier observer
hooks (a step or a tool call begins, a reply passed after_inference), from the run's step
log (`StepTable.watch`: each tool call and step as it is recorded), from its decision log,
and from the model's own `stream(on_delta)`. Events leave in the order things happened:
before each one, the decisions recorded since the last are sent.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final, final

from hookagent._messages import AssistantMessage
from hookagent.hooks._events import InferenceResultEvent, RunEvent, StepEvent, ToolCallEvent
from hookagent.hooks._hook import Hook, observers
from hookagent.hooks._points import (
    AFTER_INFERENCE,
    AFTER_TOOL,
    BEFORE_INFERENCE,
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
    """One watched run: where its events go, and what of it was sent already.

    A resumed run takes the folds its segment already ran from its journal, calling no hook:
    the segment's step then begins, and its reply stands, with no observer told. Such a step
    is started when its first decision, call or record comes, and its reply sent from the
    conversation once it is there (`ModelReplied` with the message alone)."""

    __slots__ = (
        "_decisions",
        "_emit",
        "_replayed",
        "_replied",
        "_reply",
        "_started",
        "_state",
        "_step",
    )

    def __init__(self, state: RunState, emit: Emit) -> None:
        self._state, self._emit = state, emit
        self._decisions = len(state.decisions)
        self._reply: ModelResponse | None = None
        """The step's reply as after_inference left it, until it is known to stand."""
        self._started: set[str] = set()
        """Calls whose `ToolStarted` was sent."""
        self._step = len(state.steps)
        """The step whose `StepStarted` was sent (the steps before were sent, or kept)."""
        self._replayed = False
        """Whether that step began with no before_step hook called: taken up again."""
        self._replied = _last_reply(state)
        """The last reply sent (or kept from before: a resumed run's)."""

    def catch_up(self) -> None:
        """Send the step's reply once it stands, and every decision recorded since."""
        state, emit = self._state, self._emit
        reply = self._reply
        if reply is not None and _last_reply(state) is reply.message:
            self._reply = None
            self._replied = reply.message
            emit(ModelReplied(state.position.step, reply))
        decisions = state.decisions
        while self._decisions < len(decisions):
            decision = decisions[self._decisions]
            self._began(decision.step)
            if decision.point not in _BEFORE_THE_REPLY:
                self._answered(decision.step, _last_reply(state))
            emit(DecisionMade(decision))
            self._decisions += 1

    def _began(self, step: int) -> None:
        """`StepStarted` for a step taken up again, which no before_step hook announced."""
        if step > self._step:
            self._step, self._replayed = step, True
            self._emit(StepStarted(step))

    def _answered(self, step: int, message: AssistantMessage | None) -> None:
        """`ModelReplied` for the reply of a step taken up again, once it is in the run."""
        replayed = self._replayed and step == self._step
        if replayed and message is not None and message is not self._replied:
            self._replied = message
            self._emit(ModelReplied(step, ModelResponse(message=message)))

    def _in_step(self, step: int, message: AssistantMessage | None) -> None:
        """Before an event of `step` that follows its reply: what was not sent of both."""
        self.catch_up()
        self._began(step)
        self._answered(step, message)

    def step_started(self, step: int) -> None:
        self.catch_up()
        self._reply = None
        self._replayed = False
        if step != self._step:
            self._step = step
            self._emit(StepStarted(step))

    def replied(self, response: ModelResponse) -> None:
        self.catch_up()
        self._reply = response

    def tool_started(self, step: int, call_id: str, name: str, args: Any) -> None:
        self._in_step(step, _last_reply(self._state))
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
        self._in_step(record.index, record.response)
        self._emit(StepFinished(record))


_BEFORE_THE_REPLY: Final = frozenset({BEFORE_STEP.name, BEFORE_INFERENCE.name})
"""Points whose decisions come before the step's reply."""


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
