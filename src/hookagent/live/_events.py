"""What `Agent.stream` yields while a run executes: steps, model deltas, tool calls and
decisions.

Deltas (`TextDelta`, `ReasoningDelta`, `ToolCallDelta`) arrive only from drivers that stream;
`ModelReplied` always follows with the assembled reply, after `after_inference` hooks ran. A
model call the error policy retries streams again from its start. `QuestionWaiting` comes
only from runs whose questions wait for someone's answer while the run is watched (on
Temporal); in memory an approver is asked instead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from hookagent._record import record
from hookagent.hooks._decision import Decision
from hookagent.kernel._records import StepRecord, ToolExecution
from hookagent.models._base import ModelResponse, ReasoningDelta, TextDelta, ToolCallDelta

if TYPE_CHECKING:
    from hookagent.kernel._result import RunResult

__all__ = [
    "DecisionMade",
    "Emit",
    "ModelReplied",
    "QuestionWaiting",
    "ReasoningDelta",
    "RunFinished",
    "StepFinished",
    "StepStarted",
    "StreamEvent",
    "TextDelta",
    "ToolCallDelta",
    "ToolFinished",
    "ToolStarted",
]


@dataclass(frozen=True, slots=True)
class _OfStep:
    """An event of one step: `step` numbers it, first, as in the model's deltas."""

    step: int


@record(kw_only=False)
class StepStarted(_OfStep):
    """Step `step` begins; its `before_step` hooks have run."""


@record(kw_only=False)
class ModelReplied(_OfStep):
    response: ModelResponse


@record(kw_only=False)
class ToolStarted(_OfStep):
    call_id: str
    name: str
    args: Mapping[str, Any]


@record(kw_only=False)
class ToolFinished(_OfStep):
    execution: ToolExecution


@record(kw_only=False)
class DecisionMade:
    decision: Decision


@record(kw_only=False)
class QuestionWaiting:
    """Run `run_id` waits for an answer to `question` (its `id`, `tool_name`, `args`,
    `question`, `fingerprint`, as a run's `questions` lists it)."""

    run_id: str
    question: Mapping[str, Any]


@record(kw_only=False)
class StepFinished:
    record: StepRecord


@record(kw_only=False)
class RunFinished:
    result: RunResult


StreamEvent: TypeAlias = (
    StepStarted
    | TextDelta
    | ReasoningDelta
    | ToolCallDelta
    | ModelReplied
    | ToolStarted
    | ToolFinished
    | DecisionMade
    | QuestionWaiting
    | StepFinished
    | RunFinished
)
Emit: TypeAlias = Callable[[StreamEvent], None]
