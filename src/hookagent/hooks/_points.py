"""Hook points as data.

A point is a typed key: its name, the event type its hooks receive, the event fields a hook
may replace, the decisions it accepts, and the event field matchers test. Adding a point adds
no method anywhere: the engine and registry serve every point alike.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar, final

from hookagent.hooks import _events as ev
from hookagent.hooks._result import Kind

__all__ = ["ALL_POINTS", "HookPoint", "POINTS_BY_NAME"]

E = TypeVar("E")


@final
@dataclass(frozen=True, slots=True, kw_only=True, eq=False)  # identity: points are singletons
class HookPoint(Generic[E]):
    name: str
    event_type: type[E]
    writable: frozenset[str]
    """Event fields `modify` may replace; `metadata` is merged into the run's metadata."""
    decisions: frozenset[Kind]
    """Decisions legal here besides `proceed` (always legal)."""
    feeds_model: bool
    """Whether `context` text reaches the model from here."""
    subject: str | None = None
    """The event field name matchers test (the tool name at tool points)."""
    fail_closed: Kind = "stop"
    """What a guard that raises or times out amounts to here: `block` refuses the action;
    `stop` ends the run (where blocking would mean "keep going", as at stop)."""
    call_fields: frozenset[str] = frozenset()
    """Which of `call_id`, `tool_name` and `args` this point's events declare: an event
    about one tool call, whose decisions, questions and journal entries name that call."""

    def __repr__(self) -> str:
        return f"HookPoint({self.name})"

    def call_field(self, event: E, name: str) -> Any:
        """The event's `call_id`, `tool_name` or `args` (None where it declares none)."""
        return getattr(event, name) if name in self.call_fields else None

    def accepts(self, kind: Kind) -> bool:
        return kind == "proceed" or kind in self.decisions


def _point(
    name: str,
    event_type: type[E],
    *,
    writable: tuple[str, ...] = (),
    decisions: tuple[Kind, ...] = (),
    feeds_model: bool = True,
    subject: str | None = None,
    fail_closed: Kind | None = None,
) -> HookPoint[E]:
    """A point allowing `writable` and `decisions` besides what every point allows: a hook
    may write `metadata` and `stop` the run anywhere."""
    declared = {field.name for field in dataclasses.fields(event_type)}  # type: ignore[arg-type]
    return HookPoint(
        name=name,
        event_type=event_type,
        writable=frozenset((*writable, "metadata")),
        decisions=frozenset((*decisions, "stop")),
        feeds_model=feeds_model,
        subject=subject,
        fail_closed=fail_closed or ("block" if "block" in decisions else "stop"),
        call_fields=frozenset(_CALL_FIELDS & declared),
    )


_CALL_FIELDS: Final = frozenset({"call_id", "tool_name", "args"})


EXECUTION_START: Final = _point("execution_start", ev.RunEvent)
USER_PROMPT: Final = _point(
    "user_prompt", ev.PromptEvent, writable=("prompt",), decisions=("block",)
)
BEFORE_STEP: Final = _point("before_step", ev.StepEvent, decisions=("ask",))
BEFORE_INFERENCE: Final = _point(
    "before_inference", ev.InferenceEvent, writable=("request", "response"), decisions=("ask",)
)
AFTER_INFERENCE: Final = _point(
    "after_inference", ev.InferenceResultEvent, writable=("response",), decisions=("retry",)
)
BEFORE_TOOL: Final = _point(
    "before_tool",
    ev.ToolCallEvent,
    writable=("args",),
    decisions=("block", "ask"),
    subject="tool_name",
)
AFTER_TOOL: Final = _point(
    "after_tool",
    ev.ToolResultEvent,
    writable=("result",),
    decisions=("retry",),
    subject="tool_name",
)
TOOL_REFUSED: Final = _point("tool_refused", ev.ToolRefusedEvent, subject="tool_name")
"""A call before_tool refused; context reaches the model on its error result."""
AFTER_STEP: Final = _point("after_step", ev.StepEndEvent)
SHOULD_CONTINUE: Final = _point("should_continue", ev.ContinueEvent, decisions=("continue",))
STOP: Final = _point(
    "stop", ev.StopEvent, writable=("output",), decisions=("block", "ask"), fail_closed="stop"
)
EXECUTION_END: Final = _point("execution_end", ev.RunEvent, feeds_model=False)
ON_ERROR: Final = _point(
    "on_error", ev.ErrorEvent, decisions=("retry", "continue"), feeds_model=False
)
SUBAGENT_START: Final = _point("subagent_start", ev.SubagentEvent, subject="agent_type")
SUBAGENT_STOP: Final = _point(
    "subagent_stop",
    ev.SubagentEvent,
    writable=("output",),
    decisions=("block",),
    subject="agent_type",
    fail_closed="stop",
)
SESSION_START: Final = _point("session_start", ev.RunEvent, writable=("prompt",), subject="source")
SESSION_END: Final = _point("session_end", ev.RunEvent, feeds_model=False, subject="source")
BEFORE_COMPACT: Final = _point(
    "before_compact",
    ev.CompactEvent,
    writable=("instructions",),
    decisions=("block", "ask"),
    subject="trigger",
)
AFTER_COMPACT: Final = _point("after_compact", ev.CompactEvent, subject="trigger")
PERMISSION_REQUEST: Final = _point(
    "permission_request",
    ev.PermissionEvent,
    writable=("answer",),
    decisions=("block",),
    feeds_model=False,
    subject="tool_name",
)
NOTIFICATION: Final = _point(
    "notification", ev.NotificationEvent, feeds_model=False, subject="kind"
)
TASK_CREATED: Final = _point("task_created", ev.TaskEvent, decisions=("block",))
"""Fired by a planning tool before an item joins the task list; a block refuses the update."""
TASK_COMPLETED: Final = _point("task_completed", ev.TaskEvent, decisions=("block",))
"""Fired by a planning tool before an item is marked completed; a block refuses the update."""
ELICITATION: Final = _point(
    "elicitation",
    ev.ElicitationEvent,
    writable=("action", "content"),
    decisions=("block", "ask"),
    feeds_model=False,
    subject="server",
)
"""Fired when an MCP server asks the user for input; see `ElicitationEvent`."""
ELICITATION_RESULT: Final = _point(
    "elicitation_result",
    ev.ElicitationEvent,
    writable=("action", "content"),
    decisions=("block",),
    feeds_model=False,
    subject="server",
)
"""Fired with the answer before it goes back to the MCP server."""

ALL_POINTS: Final[tuple[HookPoint[Any], ...]] = (
    EXECUTION_START,
    USER_PROMPT,
    BEFORE_STEP,
    BEFORE_INFERENCE,
    AFTER_INFERENCE,
    BEFORE_TOOL,
    AFTER_TOOL,
    TOOL_REFUSED,
    AFTER_STEP,
    SHOULD_CONTINUE,
    STOP,
    EXECUTION_END,
    ON_ERROR,
    SUBAGENT_START,
    SUBAGENT_STOP,
    SESSION_START,
    SESSION_END,
    BEFORE_COMPACT,
    AFTER_COMPACT,
    PERMISSION_REQUEST,
    NOTIFICATION,
    TASK_CREATED,
    TASK_COMPLETED,
    ELICITATION,
    ELICITATION_RESULT,
)
POINTS_BY_NAME: Final = {point.name: point for point in ALL_POINTS}
