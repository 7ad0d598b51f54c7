"""A merged Claude Code answer (`Combined`) as hookagent's `HookResult`, event by event.

Where each field lands follows CLAUDE_HOOKS.md §3, §7 and §8: a PreToolUse deny blocks the
call with the reason for the model; ask and defer go to hookagent's approval path; a
PostToolUse block is feedback next to the result (nothing is undone); a Stop block — or
Stop context — makes the model continue; `continue: false` ends the run from anywhere.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from hookagent.claude._model import Combined
from hookagent.claude._options import ClaudeHookOptions
from hookagent.claude._payload import SESSION_TITLE
from hookagent.hooks._events import ToolResultEvent
from hookagent.hooks._result import HookResult
from hookagent.kernel._approval import Answer
from hookagent.tools._base import ToolResult

__all__ = ["RETRY_NOTE", "to_hook_result"]

log = logging.getLogger("hookagent.claude")

_CONTEXT_EVENTS = frozenset(
    {
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "UserPromptSubmit",
        "UserPromptExpansion",
        "SessionStart",
        "Setup",
        "SubagentStart",
        "PostToolBatch",
    }
)
_BLOCKABLE = frozenset(
    {"UserPromptSubmit", "UserPromptExpansion", "PreCompact", "TaskCreated", "TaskCompleted"}
)
"""Events whose block refuses what they announce (a prompt, a compaction, a task update)."""
RETRY_NOTE = (
    "A PermissionDenied hook says this call may be retried: the denial is not final for it."
)
"""The model's note on a refused call when a PermissionDenied hook answers `retry: true`."""


def to_hook_result(
    event_name: str, combined: Combined, event: Any, options: ClaudeHookOptions, by: str | None
) -> HookResult | None:
    if not combined.continue_:
        reason = combined.stop_reason or f"a {event_name} hook stopped the run"
        return HookResult.stop(reason).decided_by(by or event_name)
    result = _decision(event_name, combined, event, options)
    changes = _session_changes(event_name, combined)
    if changes:
        result = result.with_changes(**changes) if result else HookResult.modify(**changes)
    if combined.additional_context and event_name in _CONTEXT_EVENTS:
        result = result or HookResult.proceed()
        for text in combined.additional_context:
            result = result.with_context(text)
    if result is not None and by is not None and result.kind != "proceed":
        result = result.decided_by(by)
    return result


def _decision(
    event_name: str, combined: Combined, event: Any, options: ClaudeHookOptions
) -> HookResult | None:
    decision, reason = combined.decision, combined.reason
    if event_name == "PreToolUse":
        return _pre_tool(combined)
    if event_name == "PermissionRequest":
        return _permission(combined)
    if event_name in ("PostToolUse", "PostToolUseFailure"):
        return _post_tool(combined, event)
    if event_name in ("Stop", "SubagentStop"):
        if decision == "block":
            result = HookResult.block(reason or "A Stop hook asked to continue.")
            for text in combined.additional_context:
                result = result.with_context(text)
            return result
        if combined.additional_context:  # Stop context continues the turn, not as an error
            return HookResult.block("\n".join(combined.additional_context))
        return None
    if event_name in _BLOCKABLE and decision == "block":
        return HookResult.block(reason or f"blocked by a {event_name} hook")
    if event_name == "PostToolBatch" and decision == "block":  # the loop stops here
        return HookResult.stop(reason or "a PostToolBatch hook stopped the loop")
    if event_name == "PermissionDenied" and combined.extra.get("retry") is True:
        return HookResult.context(RETRY_NOTE)
    if event_name in ("Elicitation", "ElicitationResult"):
        return _elicitation(event_name, combined)
    return None


def _elicitation(event_name: str, combined: Combined) -> HookResult | None:
    """Exit 2 or a deny declines the server's request; `action` (and `content`) answer it
    for the user (on ElicitationResult: replace the answer)."""
    if combined.decision in ("deny", "block"):
        return HookResult.block(combined.reason or f"declined by an {event_name} hook")
    action = combined.extra.get("action")
    if action is None:
        return None
    content = combined.extra.get("content")
    return HookResult.modify(action=action, content=content if action == "accept" else None)


def _session_changes(event_name: str, combined: Combined) -> dict[str, Any]:
    """SessionStart's `initialUserMessage` (a first user message for a new run) and the
    `sessionTitle` of SessionStart and UserPromptSubmit (kept in the run's metadata)."""
    if event_name not in ("SessionStart", "UserPromptSubmit"):
        return {}
    extra = combined.extra
    changes: dict[str, Any] = {}
    first = extra.get("initialUserMessage")
    if event_name == "SessionStart" and isinstance(first, str) and first.strip():
        changes["prompt"] = first
    title = extra.get("sessionTitle")
    if isinstance(title, str) and title.strip():
        changes["metadata"] = {SESSION_TITLE: title.strip()}
    if event_name == "SessionStart" and extra.get("watchPaths"):
        log.warning(
            "SessionStart hook: watchPaths %s not watched (hookagent fires no FileChanged)",
            extra["watchPaths"],
        )
    return changes


def _pre_tool(combined: Combined) -> HookResult | None:
    decision, reason = combined.decision, combined.reason
    if decision == "deny":
        return HookResult.block(reason or "denied by a PreToolUse hook")
    result: HookResult | None = None
    if decision in ("ask", "defer"):
        question = reason or "A PreToolUse hook asks for approval of this call."
        result = HookResult.ask(question)
    if combined.updated_input is not None and decision != "defer":
        changes = {"args": dict(combined.updated_input)}
        result = result.with_changes(**changes) if result else HookResult.modify(**changes)
    return result


def _permission(combined: Combined) -> HookResult | None:
    """A deny refuses the call; with `interrupt: true` it also ends the run, as
    `continue: false` does (Claude Code interrupts the agent instead of continuing)."""
    if combined.decision == "deny":
        if combined.extra.get("interrupt") is True:
            why = combined.reason or "a PermissionRequest hook denied the call and interrupted"
            return HookResult.stop(why)
        return HookResult.block(combined.reason or "denied by a PermissionRequest hook")
    if combined.decision == "allow":
        answer = Answer(approved=True, reason=combined.reason, updated_args=combined.updated_input)
        return HookResult.modify(answer=answer)
    return None


def _post_tool(combined: Combined, event: Any) -> HookResult | None:
    result: HookResult | None = None
    if combined.decision == "block" and combined.reason:
        result = HookResult.context(combined.reason)  # feedback: the call already happened
    output = combined.updated_output
    if output is not None and isinstance(event, ToolResultEvent):
        text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
        replaced = ToolResult(content=text, is_error=event.result.is_error, data=output)
        result = (
            result.with_changes(result=replaced) if result else HookResult.modify(result=replaced)
        )
    return result
