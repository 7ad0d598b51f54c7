"""`GateResult`: what one call through a `ToolGate` did."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hookagent._record import record
from hookagent.hooks._result import StopReason
from hookagent.kernel._result import DecisionLog
from hookagent.tools._base import ToolResult

__all__ = ["GateResult"]


@record
class GateResult:
    """One call: what the hooks decided, what ran, and what the caller should hand on.

    `result` is what hookagent's loop would give the model: the function's return value
    as a `ToolResult`, an error result for a block or an exception, whatever after_tool
    hooks put in its place, with hook context appended as a system reminder.
    """

    invocation_id: str
    """The call's id: the `call_id` of its events and decisions (`tool_use_id` for Claude
    Code hooks)."""
    tool_name: str
    args: Mapping[str, Any]
    """The arguments the function ran with (or would have): as rewritten by hooks."""
    result: ToolResult
    value: Any
    """What a wrapped function returns: the function's own return value when it ran and no
    hook had a say about its result; otherwise `result.content`, the text the model should
    read (a block's reason, an error, a replaced result, context from hooks)."""
    blocked: bool = False
    """A before_tool hook (or a denied `ask`) refused the call: the function did not run."""
    decisions: DecisionLog
    """The decisions recorded during this call, in order: before_tool, the permission
    requests and notifications of its asks, after_tool (once per attempt)."""
    attempts: int = 0
    """How many times the function ran (after_tool hooks may ask for retries); 0 if
    blocked."""
    duration: float = 0.0
    """Seconds from the first run of the function to the end of the last after_tool fold."""
    error: BaseException | None = None
    """The exception the function raised on its last attempt, if it did."""
    contexts: tuple[str, ...] = ()
    """Hook context texts for the model (already appended to `result.content`)."""
    stop_reason: StopReason | None = None
    """Set when a hook returned `stop` (or after_tool hooks overran the retry budget): an
    agent would end its run here, so the caller's loop should too."""
    stop_message: str | None = None

    @property
    def stopped(self) -> bool:
        return self.stop_reason is not None

    @property
    def ok(self) -> bool:
        """The function ran and its result is not an error."""
        return not self.blocked and not self.result.is_error
