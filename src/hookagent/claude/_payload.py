"""The JSON a command hook reads on stdin, built from a hookagent event.

Field names and shapes follow Claude Code (CLAUDE_HOOKS.md §6): the common fields, then each
event's own. Tool inputs go out with absolute paths, and the subagent tool under the name the
settings ask for, so scripts written for Claude Code read what they expect.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any, Final

from hookagent._errors import ModelError
from hookagent._messages import AssistantMessage, Message
from hookagent._record import record
from hookagent.hooks import _events as ev
from hookagent.kernel._records import ToolExecution

__all__ = [
    "SESSION_TITLE",
    "PayloadContext",
    "build_payload",
    "claude_tool_input",
    "claude_tool_name",
    "failure_type",
]

SESSION_TITLE: Final = "session_title"
"""Run metadata: the title a SessionStart or UserPromptSubmit hook gave the session; later
SessionStart hooks of the run receive it as `session_title`, as Claude Code sends it."""
SUBAGENT_TOOLS: Final = frozenset({"Agent", "Task"})
_PATH_KEYS: Final[Mapping[str, tuple[str, ...]]] = {
    "Read": ("file_path",),
    "Write": ("file_path",),
    "Edit": ("file_path",),
    "MultiEdit": ("file_path",),
    "NotebookEdit": ("notebook_path",),
    "Glob": ("path",),
    "Grep": ("path",),
    "LS": ("path",),
}
"""Arguments Claude Code sends as absolute paths."""
_NO_PERMISSION_MODE: Final = frozenset(
    {"SessionStart", "Setup", "Notification", "PreCompact", "PostCompact", "SessionEnd"}
)


@record
class PayloadContext:
    """What every payload shares for one run."""

    session_id: str
    transcript_path: str
    cwd: str
    permission_mode: str = "default"
    subagent_tool_name: str = "Agent"
    agent_id: str | None = None
    agent_type: str | None = None


def claude_tool_name(name: str, ctx: PayloadContext) -> str:
    return ctx.subagent_tool_name if name in SUBAGENT_TOOLS else name


def claude_tool_input(name: str, args: Mapping[str, Any], cwd: str) -> dict[str, Any]:
    """`args` as Claude Code would send them: path arguments made absolute."""
    out = dict(args)
    for key in _PATH_KEYS.get(name, ()):
        value = out.get(key)
        if isinstance(value, str) and value and not os.path.isabs(value):
            out[key] = os.path.normpath(os.path.join(cwd, os.path.expanduser(value)))
    return out


def build_payload(event_name: str, event: Any, ctx: PayloadContext) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "session_id": ctx.session_id,
        "transcript_path": ctx.transcript_path,
        "cwd": ctx.cwd,
        "hook_event_name": event_name,
    }
    if event_name not in _NO_PERMISSION_MODE:
        payload["permission_mode"] = ctx.permission_mode
    if ctx.agent_id is not None:
        payload["agent_id"], payload["agent_type"] = ctx.agent_id, ctx.agent_type
    payload.update(_fields(event_name, event, ctx))
    return payload


def _fields(event_name: str, event: Any, ctx: PayloadContext) -> dict[str, Any]:
    if hasattr(event, "claude_fields"):  # the events of claude.project_events
        fields: dict[str, Any] = event.claude_fields()
        return fields
    if isinstance(event, ev.ToolCallEvent | ev.ToolResultEvent):
        return _tool_fields(event_name, event, ctx)
    if isinstance(event, ev.PermissionEvent):
        question = event.question
        return {
            "tool_name": claude_tool_name(question.tool_name or "", ctx),
            "tool_input": claude_tool_input(question.tool_name or "", question.args or {}, ctx.cwd),
            "permission_suggestions": [],
        }
    if isinstance(event, ev.PromptEvent):
        return {"prompt": event.prompt}
    if isinstance(event, ev.StopEvent):
        return {
            "stop_hook_active": event.stop_hook_active,
            "last_assistant_message": event.output or "",
            "background_tasks": [],
            "session_crons": [],
        }
    if isinstance(event, ev.SubagentEvent):
        return _subagent_fields(event_name, event)
    if isinstance(event, ev.CompactEvent):
        if event_name == "PreCompact":
            return {"trigger": event.trigger, "custom_instructions": event.instructions}
        return {"trigger": event.trigger, "compact_summary": event.summary or ""}
    if isinstance(event, ev.NotificationEvent):
        fields = {"message": event.message, "notification_type": event.kind}
        return {**fields, "title": event.title} if event.title else fields
    if isinstance(event, ev.RunEvent):
        if event_name != "SessionStart":
            return {"reason": event.source}
        title = event.run.metadata.get(SESSION_TITLE)
        return {"source": event.source, **({"session_title": title} if title else {})}
    return _loop_fields(event, ctx)


def _loop_fields(event: Any, ctx: PayloadContext) -> dict[str, Any]:
    """PostToolBatch, PermissionDenied, StopFailure, TaskCreated, TaskCompleted, Elicitation
    and ElicitationResult."""
    if isinstance(event, ev.StepEndEvent):
        return {"tool_calls": [_batch_call(e, ctx) for e in event.record.executions]}
    if isinstance(event, ev.ToolRefusedEvent):
        return {
            "tool_name": claude_tool_name(event.tool_name, ctx),
            "tool_input": claude_tool_input(event.tool_name, event.args, ctx.cwd),
            "tool_use_id": event.call_id,
            "reason": event.denial or event.reason or "",
        }
    if isinstance(event, ev.ErrorEvent):
        return {
            "error": failure_type(event.error),
            "error_details": str(event.error),
            "last_assistant_message": _last_reply(event.run.messages),
        }
    if isinstance(event, ev.TaskEvent):
        return {
            "task_id": event.task_id,
            "task_subject": event.subject,
            "task_description": event.description,
        }
    if isinstance(event, ev.ElicitationEvent):
        return _elicitation_fields(event)
    return {}


def _elicitation_fields(event: ev.ElicitationEvent) -> dict[str, Any]:
    """Elicitation: the server's request; ElicitationResult: the answer too."""
    fields: dict[str, Any] = {
        "mcp_server_name": event.server,
        "message": event.message,
        "mode": event.mode,
        "requested_schema": dict(event.requested_schema),
    }
    if event.url is not None:
        fields["url"] = event.url
    if event.elicitation_id is not None:
        fields["elicitation_id"] = event.elicitation_id
    if event.action is not None:
        fields["action"] = event.action
        fields["content"] = dict(event.content) if event.content is not None else None
    return fields


def _batch_call(execution: ToolExecution, ctx: PayloadContext) -> dict[str, Any]:
    """One call of a PostToolBatch: its response serialized, as Claude Code sends it."""
    data = execution.result.data
    response = execution.result.content
    if isinstance(data, Mapping | list) and not execution.result.is_error:
        response = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
    return {
        "tool_name": claude_tool_name(execution.name, ctx),
        "tool_input": claude_tool_input(execution.name, execution.args, ctx.cwd),
        "tool_use_id": execution.call_id,
        "tool_response": response,
    }


def _last_reply(messages: Sequence[Message]) -> str:
    for message in reversed(messages):
        if isinstance(message, AssistantMessage):
            return message.content or ""
    return ""


_STATUS_TYPES: Final[Mapping[int, str]] = {
    400: "invalid_request",
    401: "authentication_failed",
    402: "billing_error",
    403: "authentication_failed",
    404: "invalid_request",
    408: "server_error",
    413: "invalid_request",
    422: "invalid_request",
    429: "rate_limit",
}


def failure_type(error: BaseException) -> str:
    """Claude Code's name for the error that ended a turn (what StopFailure matchers test):
    rate_limit, authentication_failed, billing_error, invalid_request, server_error or
    unknown, from the provider's HTTP status."""
    if not isinstance(error, ModelError):
        return "unknown"
    status = error.status
    if status is None:
        return "server_error" if error.timed_out else "unknown"
    return _STATUS_TYPES.get(status, "server_error" if status >= 500 else "unknown")


def _tool_fields(
    event_name: str, event: ev.ToolCallEvent | ev.ToolResultEvent, ctx: PayloadContext
) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "tool_name": claude_tool_name(event.tool_name, ctx),
        "tool_input": claude_tool_input(event.tool_name, event.args, ctx.cwd),
        "tool_use_id": event.call_id,
    }
    if isinstance(event, ev.ToolResultEvent):
        fields["duration_ms"] = round(event.duration * 1000)
        if event_name == "PostToolUseFailure":
            fields["error"] = event.result.content
            fields["is_interrupt"] = False
        else:
            fields["tool_response"] = tool_response(event)
    return fields


def tool_response(event: ev.ToolResultEvent) -> Any:
    """The tool's result in its structured shape when it has one (e.g. Bash's
    `{stdout, stderr, interrupted}`), else its text."""
    data = event.result.data
    if isinstance(data, Mapping | list):
        return data
    return event.result.content


def _subagent_fields(event_name: str, event: ev.SubagentEvent) -> dict[str, Any]:
    fields: dict[str, Any] = {"agent_id": event.agent_id, "agent_type": event.agent_type}
    if event_name == "SubagentStop":
        fields.update(  # the Stop fields, then the subagent's transcript (§6.2)
            stop_hook_active=event.stop_hook_active,
            last_assistant_message=event.output or "",
            background_tasks=[],
            session_crons=[],
            agent_transcript_path="",
        )
    return fields
