"""Which hookagent point each Claude Code event fires at, and what its matcher tests."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, final

from hookagent.claude.in_subagent import fires_in
from hookagent.hooks.events import ToolResultEvent
from hookagent.hooks.hook import HookKind
from hookagent.hooks.points import (
    AFTER_COMPACT,
    AFTER_TOOL,
    BEFORE_COMPACT,
    BEFORE_TOOL,
    NOTIFICATION,
    PERMISSION_REQUEST,
    SESSION_END,
    SESSION_START,
    STOP,
    SUBAGENT_START,
    SUBAGENT_STOP,
    USER_PROMPT,
    HookPoint,
)

__all__ = ["FIRED", "TOOL_EVENTS", "EventMapping", "applies_to"]


@final
@dataclass(frozen=True, slots=True)
class EventMapping:
    point: HookPoint[Any]
    kind: HookKind
    """`guard` wherever a handler's JSON can decide anything, `continue: false` included: an
    observer may only proceed, so a stop from one would be an illegal vote. Only the events
    that discard the universal fields (§7.3) and decide nothing are observers."""
    subject: str | None
    """The hookagent event field the Claude matcher tests; None: every group runs."""


FIRED: Final[dict[str, EventMapping]] = {
    "PreToolUse": EventMapping(BEFORE_TOOL, "guard", "tool_name"),
    "PostToolUse": EventMapping(AFTER_TOOL, "guard", "tool_name"),
    "PostToolUseFailure": EventMapping(AFTER_TOOL, "guard", "tool_name"),
    "PermissionRequest": EventMapping(PERMISSION_REQUEST, "guard", "tool_name"),
    "UserPromptSubmit": EventMapping(USER_PROMPT, "guard", None),
    "Stop": EventMapping(STOP, "guard", None),
    "SubagentStart": EventMapping(SUBAGENT_START, "guard", "agent_type"),
    "SubagentStop": EventMapping(SUBAGENT_STOP, "guard", "agent_type"),
    "SessionStart": EventMapping(SESSION_START, "guard", "source"),
    "SessionEnd": EventMapping(SESSION_END, "observer", "source"),
    "PreCompact": EventMapping(BEFORE_COMPACT, "guard", "trigger"),
    "PostCompact": EventMapping(AFTER_COMPACT, "guard", "trigger"),
    "Notification": EventMapping(NOTIFICATION, "observer", "kind"),
    "InstructionsLoaded": EventMapping(SESSION_START, "observer", "load_reason"),
    "UserPromptExpansion": EventMapping(USER_PROMPT, "guard", "command_name"),
}
"""Claude Code events hookagent fires; the others in settings files are parsed, not fired."""

TOOL_EVENTS: Final = frozenset(
    {"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"}
)
"""Events where the `if` permission-rule filter applies (elsewhere it never runs)."""


def applies_to(event_name: str, event: Any) -> bool:
    """PostToolUse fires for successful calls, PostToolUseFailure for failed ones. Inside a
    subagent the main agent's events do not fire."""
    if not fires_in(event_name, event):
        return False
    if isinstance(event, ToolResultEvent):
        return event.result.is_error == (event_name == "PostToolUseFailure")
    return True
