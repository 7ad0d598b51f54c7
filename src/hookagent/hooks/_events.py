"""The event each hook point hands its hooks.

Events are frozen: a hook changes one only through `HookResult.modify`, so every change is
recorded. `run` is a read-only view of the live run state (no copy), so an event costs the
same however long the history is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from hookagent._record import record
from hookagent.models._base import ModelRequest, ModelResponse
from hookagent.tools._base import ToolResult

if TYPE_CHECKING:
    from hookagent.kernel._approval import Answer, Question
    from hookagent.kernel._records import StepRecord
    from hookagent.kernel._view import RunView

__all__ = [
    "CompactEvent",
    "ContinueEvent",
    "ElicitationEvent",
    "ErrorClass",
    "ErrorEvent",
    "InferenceEvent",
    "InferenceResultEvent",
    "NotificationEvent",
    "PermissionEvent",
    "PromptEvent",
    "RunEvent",
    "StepEndEvent",
    "StepEvent",
    "StopEvent",
    "SubagentEvent",
    "TaskEvent",
    "ToolCallEvent",
    "ToolRefusedEvent",
    "ToolResultEvent",
]

ErrorClass = Literal["tool", "model", "rate_limit", "timeout", "validation", "hook", "unknown"]


@dataclass(frozen=True, slots=True, kw_only=True)
class _RunScoped:
    """What every event carries: the run it happens in."""

    run: RunView


@dataclass(frozen=True, slots=True, kw_only=True)
class _StepScoped(_RunScoped):
    """An event inside one step of the loop."""

    step: int


@dataclass(frozen=True, slots=True, kw_only=True)
class _CallScoped(_StepScoped):
    """An event about one tool call: the fields `HookPoint.call_fields` names."""

    call_id: str
    tool_name: str
    args: Mapping[str, Any]


@record
class RunEvent(_RunScoped):
    """execution_start, execution_end, session_start, session_end."""

    source: str = "startup"
    """session_start: startup | resume | fork; session_end: why the session ended."""
    prompt: str | None = None
    """session_start: a first user message a hook puts in a new run, ahead of the run's own
    prompt (Claude Code's `initialUserMessage`)."""


@record
class PromptEvent(_RunScoped):
    """user_prompt: a user message is about to enter the run."""

    prompt: str


@record
class StepEvent(_StepScoped):
    """before_step."""


@record
class StepEndEvent(_StepScoped):
    """after_step: the step just recorded."""

    record: StepRecord


@record
class InferenceEvent(_StepScoped):
    """before_inference. Setting `response` answers the call without asking the model."""

    request: ModelRequest
    response: ModelResponse | None = None


@record
class InferenceResultEvent(_StepScoped):
    """after_inference."""

    request: ModelRequest
    response: ModelResponse
    attempt: int = 1


@record
class ToolCallEvent(_CallScoped):
    """before_tool: `tool_name` is what tool matchers test."""

    attempt: int = 1
    in_doubt: bool = False
    """The call was started before its process stopped and its end was never recorded: it
    may or may not have had its effect, and its tool's `reconcile` (if any) could not tell.
    It runs again only if its tool is idempotent or this fold ends in an approved `ask`."""


@record
class ToolResultEvent(_CallScoped):
    """after_tool."""

    result: ToolResult
    duration: float
    attempt: int = 1


@record
class ToolRefusedEvent(_CallScoped):
    """tool_refused: before_tool refused a call (a hook's block, a rule, a denied approval);
    its error result is not recorded yet, so context given here rides on it."""

    reason: str | None
    by: str | None
    """The hook whose block stands (for a denied approval, the hook that asked)."""
    denial: str | None = None
    """Set when the refusal is an approval's answer: who denied it, and why."""


@record
class TaskEvent(_StepScoped):
    """task_created / task_completed: a planning tool is about to add an item to the run's
    task list, or mark one completed; a block refuses the whole update."""

    call_id: str
    task_id: str
    subject: str
    description: str = ""
    status: str = "pending"


@record
class ElicitationEvent(_RunScoped):
    """elicitation / elicitation_result: an MCP server asks the user for input during a tool
    call. At `elicitation` a hook answers for the user by setting `action` ("accept",
    "decline", "cancel") and `content`, refuses with `block` (declined), or asks a human
    with `ask`; at `elicitation_result` hooks see the answer and may change it, or `block`
    it (declined). `server` is what matchers test."""

    server: str
    message: str
    mode: str = "form"
    requested_schema: Mapping[str, Any] = field(default_factory=dict[str, Any])
    url: str | None = None
    elicitation_id: str | None = None
    call_id: str | None = None
    tool_name: str | None = None
    action: str | None = None
    content: Mapping[str, Any] | None = None


@record
class ContinueEvent(_StepScoped):
    """should_continue: after a step, before the loop decides to go on or stop."""

    tool_calls: int
    """How many tool calls the last step made."""


@record
class StopEvent(_StepScoped):
    """stop: the run is about to end normally; a block keeps it going."""

    output: str | None
    stop_hook_active: bool
    """True while the run continues because a stop hook blocked the previous stop."""


@record
class ErrorEvent(_StepScoped):
    """on_error: something raised inside a step."""

    error: BaseException
    error_class: ErrorClass
    where: str
    """What failed: `model`, `tool:<name>`, `hook:<point>`, `step`."""
    attempt: int
    """How many times in a row this unit has failed, this time included."""
    retryable: bool = True


@record
class SubagentEvent(_RunScoped):
    """subagent_start / subagent_stop: `agent_type` is what matchers test."""

    agent_id: str
    agent_type: str
    output: str | None = None
    stop_hook_active: bool = False


@record
class CompactEvent(_RunScoped):
    """before_compact / after_compact: `trigger` (manual | auto) is what matchers test."""

    trigger: str
    summary: str | None = None
    instructions: str = ""


@record
class NotificationEvent(_RunScoped):
    """notification: `kind` (permission_prompt, idle_prompt…) is what matchers test."""

    kind: str
    message: str
    title: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict[str, Any])


@record
class PermissionEvent(_RunScoped):
    """permission_request: a human is about to be asked; a hook may answer for them by
    setting `answer` (or refuse with `block`). `tool_name` is what matchers test."""

    question: Question
    tool_name: str | None = None
    answer: Answer | None = None
