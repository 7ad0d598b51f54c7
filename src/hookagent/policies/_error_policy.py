"""ErrorPolicy: what to do about each class of error, as one policy-tier `on_error` hook.

Classes: tool, model, rate_limit, timeout, validation, hook, unknown. Actions: stop, retry
(within `max_retries`, with exponential backoff and jitter) or ignore (a tool's failure then
reaches the model as an error result). Hook contract errors are never retried.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterable, Mapping
from typing import Any, Final, Literal, final

from hookagent._errors import ConfigError, check_choice
from hookagent.hooks._events import ErrorClass, ErrorEvent
from hookagent.hooks._hook import Hook, make_hook
from hookagent.hooks._points import ON_ERROR
from hookagent.hooks._result import HookResult
from hookagent.tools._base import Tool

__all__ = ["ErrorAction", "ErrorPolicy"]

ErrorAction = Literal["stop", "retry", "ignore"]
ERROR_CLASSES: Final[tuple[ErrorClass, ...]] = (
    "tool",
    "model",
    "rate_limit",
    "timeout",
    "validation",
    "hook",
    "unknown",
)


@final
class ErrorPolicy:
    name = "error_policy"

    def __init__(
        self,
        decisions: Mapping[ErrorClass, ErrorAction] | None = None,
        *,
        default: ErrorAction = "stop",
        max_retries: int = 0,
        backoff: float = 0.0,
        max_backoff: float = 30.0,
        jitter: bool = True,
    ) -> None:
        decisions = dict(decisions or {})
        for key, action in decisions.items():
            if key not in ERROR_CLASSES:
                raise ConfigError(
                    f"unknown error class {key!r} (known: {', '.join(ERROR_CLASSES)})",
                    key="ErrorPolicy",
                    value=key,
                )
            check_choice(
                action, ("stop", "retry", "ignore"), key="ErrorPolicy", what=f"action for {key!r}"
            )
        if not isinstance(max_retries, int) or max_retries < 0:
            raise ConfigError(
                f"max_retries must be a whole number >= 0, not {max_retries!r}",
                key="ErrorPolicy",
                value=max_retries,
            )
        if backoff < 0 or max_backoff < 0:
            raise ConfigError("backoff times must not be negative", key="ErrorPolicy")
        self.decisions: dict[ErrorClass, ErrorAction] = {
            cls: decisions.get(cls, default) for cls in ERROR_CLASSES
        }
        self.decisions["hook"] = (
            "stop" if self.decisions["hook"] == "retry" else self.decisions["hook"]
        )
        self.max_retries = max_retries
        self.backoff, self.max_backoff, self.jitter = backoff, max_backoff, jitter

    # -- presets ----------------------------------------------------------------------
    @classmethod
    def default(cls) -> ErrorPolicy:
        """Tool failures go back to the model; rate limits, timeouts and transient model
        failures (5xx, a lost connection) are retried (3, with backoff); anything else,
        an auth failure or a bad request included, stops the run."""
        return cls(
            {"tool": "ignore", "rate_limit": "retry", "timeout": "retry", "model": "retry"},
            max_retries=3,
            backoff=1.0,
        )

    @classmethod
    def stop_on_any_error(cls) -> ErrorPolicy:
        return cls(default="stop")

    @classmethod
    def retry_tool_errors(cls, max_retries: int = 3) -> ErrorPolicy:
        return cls(
            {"tool": "retry", "validation": "retry", "rate_limit": "retry", "timeout": "retry"},
            max_retries=max_retries,
            backoff=0.5,
        )

    @classmethod
    def ignore_tool_errors(cls) -> ErrorPolicy:
        return cls({"tool": "ignore"})

    @classmethod
    def retry_all(cls, max_retries: int = 5) -> ErrorPolicy:
        return cls(default="retry", max_retries=max_retries, backoff=0.5)

    # -- capability -------------------------------------------------------------------
    def tools(self) -> Iterable[Tool]:
        return ()

    def hooks(self) -> Iterable[Hook[Any]]:
        yield make_hook(
            ON_ERROR,
            self.decide,
            name="error_policy",
            source="policies",
            tier="policy",
            timeout=None,
            on_failure="raise",
        )

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Exponential backoff for the `attempt`-th failure, with full jitter; a provider's
        `Retry-After` (carried by its error) is honoured, up to `max_backoff`."""
        if isinstance(retry_after, int | float) and retry_after >= 0:
            return min(float(retry_after), self.max_backoff)
        if self.backoff <= 0:
            return 0.0
        ceiling = min(self.max_backoff, self.backoff * 2 ** (attempt - 1))
        return random.uniform(0, ceiling) if self.jitter else ceiling

    async def decide(self, event: ErrorEvent) -> HookResult:
        action = self.decisions[event.error_class]
        what = f"{event.error_class} error at {event.where}: {event.error}"
        if action == "ignore":
            return HookResult.continue_(f"ignored {what}")
        if action == "retry" and event.retryable:
            if event.attempt > self.max_retries:
                return HookResult.stop(
                    f"{what} (still failing after {self.max_retries} retries)",
                    stop_reason="retry_limit",
                )
            wait = self.delay(event.attempt, getattr(event.error, "retry_after", None))
            if wait:
                await asyncio.sleep(wait)
            return HookResult.retry(f"retry {event.attempt} of {self.max_retries}: {what}")
        return HookResult.stop(what, stop_reason="error")
