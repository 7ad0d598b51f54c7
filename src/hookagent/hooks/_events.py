"""The event each hook point hands its hooks.

Events are frozen: a hook changes one only through `HookResult.modify`, so every change is
recorded. `run` is a read-only view of the live run state (no copy), so an event costs the
same however long the history is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, final

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


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class RunEvent:
    """execution_start, execution_end, session_start, session_end."""

    run: RunView
    source: str = "startup"
    """session_start: startup | resume | fork; session_end: why the session ended."""
    prompt: str | None = None
    """session_start: a first user message a hook puts in a new run, ahead of the run's own
    prompt (Claude Code's `initialUserMessage`)."""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class PromptEvent:
    """user_prompt: a user message is about to enter the run."""

    run: RunView
    prompt: str


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class StepEvent:
    """before_step."""

    run: RunView
    step: int


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class StepEndEvent:
    """after_step: the step just recorded."""

    run: RunView
    step: int
    record: StepRecord


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class InferenceEvent:
    """before_inference. Setting `response` answers the call without asking the model."""

    run: RunView
    step: int
    request: ModelRequest
    response: ModelResponse | None = None


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class InferenceResultEvent:
    """after_inference."""

    run: RunView
    step: int
    request: ModelRequest
    response: ModelResponse
    attempt: int = 1


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallEvent:
    """before_tool: `tool_name` is what tool matchers test."""

    run: RunView
    step: int
    call_id: str
    tool_name: str
    args: Mapping[str, Any]
    attempt: int = 1
    in_doubt: bool = False
    """The call was started before its process stopped and its end was never recorded: it
    may or may not have had its effect, and its tool's `reconcile` (if any) could not tell.
    It runs again only if its tool is idempotent or this fold ends in an approved `ask`."""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResultEvent:
    """after_tool."""

    run: RunView
    step: int
    call_id: str
    tool_name: str
    args: Mapping[str, Any]
    result: ToolResult
    duration: float
    attempt: int = 1


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolRefusedEvent:
    """tool_refused: before_tool refused a call (a hook's block, a rule, a denied approval);
    its error result is not recorded yet, so context given here rides on it."""

    run: RunView
    step: int
    call_id: str
    tool_name: str
    args: Mapping[str, Any]
    reason: str | None
    by: str | None
    """The hook whose block stands (for a denied approval, the hook that asked)."""
    denial: str | None = None
    """Set when the refusal is an approval's answer: who denied it, and why."""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class TaskEvent:
    """task_created / task_completed: a planning tool is about to add an item to the run's
    task list, or mark one completed; a block refuses the whole update."""

    run: RunView
    step: int
    call_id: str
    task_id: str
    subject: str
    description: str = ""
    status: str = "pending"


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ElicitationEvent:
    """elicitation / elicitation_result: an MCP server asks the user for input during a tool
    call. At `elicitation` a hook answers for the user by setting `action` ("accept",
    "decline", "cancel") and `content`, refuses with `block` (declined), or asks a human
    with `ask`; at `elicitation_result` hooks see the answer and may change it, or `block`
    it (declined). `server` is what matchers test."""

    run: RunView
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


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ContinueEvent:
    """should_continue: after a step, before the loop decides to go on or stop."""

    run: RunView
    step: int
    tool_calls: int
    """How many tool calls the last step made."""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class StopEvent:
    """stop: the run is about to end normally; a block keeps it going."""

    run: RunView
    step: int
    output: str | None
    stop_hook_active: bool
    """True while the run continues because a stop hook blocked the previous stop."""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorEvent:
    """on_error: something raised inside a step."""

    run: RunView
    step: int
    error: BaseException
    error_class: ErrorClass
    where: str
    """What failed: `model`, `tool:<name>`, `hook:<point>`, `step`."""
    attempt: int
    """How many times in a row this unit has failed, this time included."""
    retryable: bool = True


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class SubagentEvent:
    """subagent_start / subagent_stop: `agent_type` is what matchers test."""

    run: RunView
    agent_id: str
    agent_type: str
    output: str | None = None
    stop_hook_active: bool = False


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class CompactEvent:
    """before_compact / after_compact: `trigger` (manual | auto) is what matchers test."""

    run: RunView
    trigger: str
    summary: str | None = None
    instructions: str = ""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class NotificationEvent:
    """notification: `kind` (permission_prompt, idle_prompt…) is what matchers test."""

    run: RunView
    kind: str
    message: str
    title: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict[str, Any])


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class PermissionEvent:
    """permission_request: a human is about to be asked; a hook may answer for them by
    setting `answer` (or refuse with `block`). `tool_name` is what matchers test."""

    run: RunView
    question: Question
    tool_name: str | None = None
    answer: Answer | None = None
