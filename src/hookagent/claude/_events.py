"""Which hookagent point each Claude Code event fires at, and what its matcher tests."""

from __future__ import annotations

from typing import Any, Final

from hookagent._record import record
from hookagent.claude._in_subagent import fires_in
from hookagent.hooks import _points as hp
from hookagent.hooks._events import ErrorEvent, StepEndEvent, ToolRefusedEvent, ToolResultEvent
from hookagent.hooks._hook import HookKind
from hookagent.hooks._result import HookResult

__all__ = ["FIRED", "PERMISSION_HOOKS", "EventMapping", "applies_to", "ends_run"]


@record(kw_only=False)
class EventMapping:
    point: hp.HookPoint[Any]
    kind: HookKind
    """`guard` wherever a handler's JSON can decide anything, `continue: false` included: an
    observer may only proceed, so a stop from one would be an illegal vote. Only the events
    that discard the universal fields (§7.3) and decide nothing are observers."""
    subject: str | None
    """The hookagent event field the Claude matcher tests; None: every group runs."""
    last: bool = False
    """Runs in the audit tier, after the point's other hooks, and applies only once their
    outcome is known (StopFailure: only when the error ends the run)."""


FIRED: Final[dict[str, EventMapping]] = {
    "PreToolUse": EventMapping(hp.BEFORE_TOOL, "guard", "tool_name"),
    "PostToolUse": EventMapping(hp.AFTER_TOOL, "guard", "tool_name"),
    "PostToolUseFailure": EventMapping(hp.AFTER_TOOL, "guard", "tool_name"),
    "PermissionRequest": EventMapping(hp.PERMISSION_REQUEST, "guard", "tool_name"),
    "UserPromptSubmit": EventMapping(hp.USER_PROMPT, "guard", None),
    "Stop": EventMapping(hp.STOP, "guard", None),
    "SubagentStart": EventMapping(hp.SUBAGENT_START, "guard", "agent_type"),
    "SubagentStop": EventMapping(hp.SUBAGENT_STOP, "guard", "agent_type"),
    "SessionStart": EventMapping(hp.SESSION_START, "guard", "source"),
    "SessionEnd": EventMapping(hp.SESSION_END, "observer", "source"),
    "PreCompact": EventMapping(hp.BEFORE_COMPACT, "guard", "trigger"),
    "PostCompact": EventMapping(hp.AFTER_COMPACT, "guard", "trigger"),
    "Notification": EventMapping(hp.NOTIFICATION, "observer", "kind"),
    "PostToolBatch": EventMapping(hp.AFTER_STEP, "guard", None),
    "PermissionDenied": EventMapping(hp.TOOL_REFUSED, "guard", "tool_name"),
    "StopFailure": EventMapping(hp.ON_ERROR, "observer", "error", last=True),
    "TaskCreated": EventMapping(hp.TASK_CREATED, "guard", None),
    "TaskCompleted": EventMapping(hp.TASK_COMPLETED, "guard", None),
    "InstructionsLoaded": EventMapping(hp.SESSION_START, "observer", "load_reason"),
    "Setup": EventMapping(hp.SESSION_START, "guard", "trigger"),
    "UserPromptExpansion": EventMapping(hp.USER_PROMPT, "guard", "command_name"),
    "Elicitation": EventMapping(hp.ELICITATION, "guard", "server"),
    "ElicitationResult": EventMapping(hp.ELICITATION_RESULT, "guard", "server"),
}
"""Claude Code events hookagent fires; the others in settings files are parsed, not fired."""

PERMISSION_HOOKS: Final = ("approvals:",)
"""Hooks whose block is a permission rule's denial (the `Approvals` deny rules)."""


def applies_to(event_name: str, event: Any) -> bool:
    """PostToolUse fires for successful calls, PostToolUseFailure for failed ones;
    PostToolBatch after a step whose tool calls all ran while the run goes on;
    PermissionDenied when the permission system refused the call (a denied approval or a deny
    rule), not a hook. Inside a subagent the main agent's events do not fire."""
    if not fires_in(event_name, event):
        return False
    if isinstance(event, ToolResultEvent):
        return event.result.is_error == (event_name == "PostToolUseFailure")
    if isinstance(event, StepEndEvent):
        return event.record.has_tool_calls and event.run.status == "running"
    if isinstance(event, ToolRefusedEvent):
        return event.denial is not None or (event.by or "").startswith(PERMISSION_HOOKS)
    return True


def ends_run(event: ErrorEvent, outcome: HookResult) -> bool:
    """Whether on_error's `outcome` so far ends the run on a model error (StopFailure): not
    when a hook retries it (and it can be retried) or lets the run go on."""
    if event.where != "model" or outcome.kind == "continue":
        return False
    return not (outcome.kind == "retry" and event.retryable)
