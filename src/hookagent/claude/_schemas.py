"""What a hook's stdout object may hold, per event, and checking stdout against it (§7.2-7.5).

Stdout is plain text unless it starts with `{`; an object must parse, fit the schema and name
the running event in `hookSpecificOutput.hookEventName`, or it is ignored whole and reported.
The tables mirror Claude Code's validation: a value of the wrong type fails the whole object,
a key not listed is tolerated and ignored. Turning a valid object into a verdict is
`output.read_verdict`'s job; this module only says which fields an event reads and whether
an object is well formed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from hookagent._record import record

__all__ = ["JSON_DECISION", "NO_UNIVERSAL", "SPECIFIC", "TOP_DECISION", "Stdout", "read_stdout"]

TOP_DECISION: Final = frozenset(
    {
        "UserPromptSubmit",
        "UserPromptExpansion",
        "PostToolUse",
        "PostToolUseFailure",
        "PostToolBatch",
        "Stop",
        "SubagentStop",
        "ConfigChange",
        "PreCompact",
        "TaskCreated",
    }
)
"""Events that read a top-level `decision: "block"` (§7.4)."""
JSON_DECISION: Final = TOP_DECISION | {
    "PreToolUse",
    "PermissionRequest",
    "PermissionDenied",
    "Elicitation",
    "ElicitationResult",
}
"""Events with a JSON decision: there a valid stdout object decides even on exit 1 (§7.1)."""
NO_UNIVERSAL: Final = frozenset(
    {
        "Notification",
        "InstructionsLoaded",
        "PreCompact",
        "SessionEnd",
        "ConfigChange",
        "WorktreeCreate",
        "WorktreeRemove",
        "StopFailure",
    }
)
"""Events that discard `continue`, `stopReason` and `systemMessage` (§7.3)."""

_Check = type | tuple[str, ...] | None
"""A JSON type, the allowed strings, or None for any value."""
_TOP: Final[Mapping[str, _Check]] = {
    "continue": bool,
    "stopReason": str,
    "suppressOutput": bool,
    "systemMessage": str,
    "terminalSequence": str,
    "decision": ("approve", "block"),
    "reason": str,
    "watchPaths": list,
    "hookSpecificOutput": dict,
}
_CONTEXT: Final[Mapping[str, _Check]] = {"additionalContext": str}
_ELICITATION: Final[Mapping[str, _Check]] = {
    "action": ("accept", "decline", "cancel"),
    "content": dict,
}
SPECIFIC: Final[Mapping[str, Mapping[str, _Check]]] = {
    "PreToolUse": {
        "permissionDecision": ("allow", "deny", "ask", "defer"),
        "permissionDecisionReason": str,
        "updatedInput": dict,
        **_CONTEXT,
    },
    "PermissionRequest": {"decision": dict},
    "PermissionDenied": {"retry": bool},
    "PostToolUse": {
        **_CONTEXT,
        "updatedToolOutput": None,
        "updatedMCPToolOutput": None,
        "classifierContext": str,
    },
    "PostToolUseFailure": _CONTEXT,
    "PostToolBatch": _CONTEXT,
    "SubagentStart": _CONTEXT,
    "Setup": _CONTEXT,
    "Stop": _CONTEXT,
    "SubagentStop": _CONTEXT,
    "UserPromptExpansion": _CONTEXT,
    "UserPromptSubmit": {**_CONTEXT, "sessionTitle": str, "suppressOriginalPrompt": bool},
    "SessionStart": {
        **_CONTEXT,
        "initialUserMessage": str,
        "sessionTitle": str,
        "watchPaths": list,
        "reloadSkills": bool,
    },
    "Elicitation": _ELICITATION,
    "ElicitationResult": _ELICITATION,
    "MessageDisplay": {"displayContent": str},
    "WorktreeCreate": {"worktreePath": str},
}
"""`hookSpecificOutput` per event (§7.5); keys not listed are tolerated and ignored."""
_PERMISSION_CHOICE: Final[Mapping[str, _Check]] = {
    "behavior": ("allow", "deny"),
    "updatedInput": dict,
    "updatedPermissions": list,
    "message": str,
    "interrupt": bool,
}


@record(kw_only=False)
class Stdout:
    """Trimmed stdout, read once: a valid object, plain text, or a problem to report."""

    obj: Mapping[str, Any] | None = None
    text: str = ""
    problem: str | None = None


def read_stdout(event: str, stdout: str) -> Stdout:
    """`stdout` as `event` reads it (§7.2): broken or schema-failing JSON is a problem,
    never plain text, so it can't slip into the model's context."""
    text = stdout.strip()
    if not text.startswith("{"):
        return Stdout(text=text)  # a JSON array or string is plain text too (§7.2)
    try:
        obj = json.loads(text, parse_constant=_reject_constant)
    except ValueError as exc:
        return Stdout(problem=f"hook output is not valid JSON: {exc}")
    problem = _schema_problem(event, obj)
    if problem is not None:
        return Stdout(problem=f"hook output failed validation: {problem}")
    return Stdout(obj=obj)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # JSON.parse rejects NaN and Infinity


def _schema_problem(event: str, obj: Mapping[str, Any]) -> str | None:
    if problem := _fields_problem(obj, _TOP, ""):
        return problem
    if "hookSpecificOutput" not in obj:
        return None
    specific: Mapping[str, Any] = obj["hookSpecificOutput"]
    name = specific.get("hookEventName")
    if name is None:
        return "hookSpecificOutput.hookEventName is missing"
    if name != event:
        return f"hookSpecificOutput.hookEventName is {name!r} but the event is {event!r}"
    table = SPECIFIC.get(event)
    if table is None:
        return f"hookSpecificOutput is not accepted on {event}"
    if problem := _fields_problem(specific, table, "hookSpecificOutput."):
        return problem
    if event == "PermissionRequest" and "decision" in specific:
        choice = specific["decision"]
        if "behavior" not in choice:
            return "hookSpecificOutput.decision.behavior is missing"
        return _fields_problem(choice, _PERMISSION_CHOICE, "hookSpecificOutput.decision.")
    return None


def _fields_problem(obj: Mapping[str, Any], table: Mapping[str, _Check], path: str) -> str | None:
    for key, check in table.items():
        if key in obj and not _fits(obj[key], check):
            return f"{path}{key}: expected {_describe(check)}, got {json.dumps(obj[key])[:80]}"
    return None


def _fits(value: Any, check: _Check) -> bool:
    if check is None:
        return True
    if isinstance(check, tuple):
        return isinstance(value, str) and value in check
    return isinstance(value, check)  # null fits nothing: optional fields are omitted, not null


def _describe(check: _Check) -> str:
    names = {bool: "a boolean", str: "a string", dict: "an object", list: "an array"}
    if isinstance(check, tuple):
        return " or ".join(json.dumps(option) for option in check)
    return names.get(check, "a value") if check is not None else "a value"
