"""ErrorHandler: every exception inside the loop goes to `on_error`, whose hooks decide.

The error policy is just a policy-tier hook at `on_error`. If no hook has an opinion, the run
fails: an error nobody planned for is not silently ignored. A `LeaseLost` is not handled at
all: the run was taken over, so nothing more may happen here, not even an `on_error` hook.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Literal, final

from hookagent._errors import HookError, LeaseLost, ModelError, ToolError
from hookagent.hooks._events import ErrorClass, ErrorEvent
from hookagent.hooks._points import ON_ERROR
from hookagent.hooks._result import StopReason
from hookagent.kernel._context import RunContext

__all__ = ["ErrorHandler", "HandlesErrors", "classify"]

Action = Literal["retry", "ignore", "stop"]


def classify(error: BaseException) -> ErrorClass:
    if isinstance(error, HookError):
        return "hook"
    if isinstance(error, ModelError):
        if error.status == 429:
            return "rate_limit"
        return "timeout" if error.timed_out or error.status in (408, 504) else "model"
    if isinstance(error, TimeoutError | asyncio.TimeoutError):
        return "timeout"
    if _is_validation_error(error):
        return "validation"
    if isinstance(error, ToolError):
        return "tool"
    return "unknown"


def _is_validation_error(error: BaseException) -> bool:
    pydantic = sys.modules.get("pydantic")  # an error can only be pydantic's once it is loaded
    return pydantic is not None and isinstance(error, pydantic.ValidationError)


@final
class ErrorHandler:
    async def handle(
        self,
        ctx: RunContext,
        error: BaseException,
        *,
        where: str,
        attempt: int = 1,
        error_class: ErrorClass | None = None,
        retryable: bool = True,
    ) -> Action:
        if isinstance(error, LeaseLost):
            raise error  # the run goes on elsewhere: no hook may act on it here
        state = ctx.state
        text = f"{type(error).__name__}: {error}"
        if isinstance(error, ModelError) and not error.transient:
            retryable = False  # the same request would fail the same way
        event = ErrorEvent(
            run=ctx.view,
            step=state.position.step,
            error=error,
            error_class=error_class or classify(error),
            where=where,
            attempt=attempt,
            retryable=retryable,
        )
        try:
            decision, _ = await ctx.hooks.fire(ON_ERROR, event)
        except HookError as nested:
            state.error = f"{text} (and then: {nested})"
            state.finish("failed", "error", state.error)
            return "stop"
        outcome = decision.outcome
        if outcome == "retry" and retryable:
            return "retry"
        if outcome == "continue":
            return "ignore"
        state.error = text
        stop_reason: StopReason = (
            "retry_limit" if decision.stop_reason == "retry_limit" else "error"
        )
        reason = decision.reason if outcome == "stop" and decision.reason else f"{where}: {text}"
        state.finish("failed", stop_reason, reason)
        return "stop"


class HandlesErrors:
    """A rung of the loop whose exceptions go to the run's `ErrorHandler`."""

    __slots__ = ("_errors",)

    def __init__(self, errors: ErrorHandler) -> None:
        self._errors = errors
