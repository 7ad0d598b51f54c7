"""A model's raw tool-call arguments → a `ToolCall`, one rule for every driver.

Models send arguments as JSON text, and sometimes send text that is not a JSON object. Such a
call is kept with a `parse_error`, so the kernel answers the model with an error result instead
of failing the run.
"""

from __future__ import annotations

import json

from hookagent.messages import ToolCall

__all__ = ["parse_call"]


def parse_call(call_id: str, name: str, arguments: str | None) -> ToolCall:
    """A tool call from its raw JSON arguments; malformed ones carry a `parse_error`."""
    if arguments is None or not arguments.strip():
        return ToolCall(id=call_id, name=name)  # some servers send "" for a call with no args
    try:
        parsed = json.loads(arguments)
    except json.JSONDecodeError as exc:
        return ToolCall(id=call_id, name=name, parse_error=f"arguments are not valid JSON ({exc})")
    if not isinstance(parsed, dict):
        return ToolCall(
            id=call_id,
            name=name,
            parse_error=f"arguments must be a JSON object, got {type(parsed).__name__}",
        )
    return ToolCall(id=call_id, name=name, args=parsed)
