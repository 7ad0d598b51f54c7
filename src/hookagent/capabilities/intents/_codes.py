"""The error codes intent gating answers with, and the JSON the model reads.

A refused call becomes an error result whose text is one JSON object, so the model (and a
human reading the transcript) can act on it: what went wrong (`error`), what to do
(`message`), and the facts needed to do it (the intents to choose from, the globs a file must
match, the path that went stale).
"""

from __future__ import annotations

import json
from typing import Any, Final

__all__ = [
    "HOOK_INTERNAL_ERROR",
    "INTENTS_UNAVAILABLE",
    "NO_ACTIVE_INTENT",
    "SCOPE_VIOLATION",
    "STALE_FILE",
    "UNKNOWN_INTENT",
    "tool_error",
]

NO_ACTIVE_INTENT: Final = "NO_ACTIVE_INTENT"
"""A mutating tool was called before `select_active_intent`."""
SCOPE_VIOLATION: Final = "SCOPE_VIOLATION"
"""A write to a file outside the active intent's `owned_scope` globs."""
STALE_FILE: Final = "STALE_FILE"
"""A write to a file that changed since the agent read it (or that it never read)."""
HOOK_INTERNAL_ERROR: Final = "HOOK_INTERNAL_ERROR"
"""One of the guards above failed; the call is refused (they fail closed)."""
UNKNOWN_INTENT: Final = "UNKNOWN_INTENT"
"""`select_active_intent` was given an id the intents file does not hold."""
INTENTS_UNAVAILABLE: Final = "INTENTS_UNAVAILABLE"
"""`select_active_intent` found no intents file, or one it cannot read."""


def tool_error(code: str, message: str, **facts: Any) -> str:
    """`{"error": code, "message": message, ...facts}` as one line of JSON."""
    return json.dumps({"error": code, "message": message, **facts}, ensure_ascii=False)
