"""Limits stop a run that would go on: a run whose model answers on its last allowed step
completes, as it would have without the limit.

Each limit is an `always` hook at the end of should_continue (audit tier) that sees the
folded decision and stops the run only when that decision is to continue (the model called
tools, a hook asked for another step); and one at stop that turns a stop hook's block (which
would buy another step) into a stop. A stop outranks continue and block, so no hook can
outvote a limit. The builder installs StepLimit(20), TokenLimit(32768), TimeLimit(300 s) and
ToolCallPresence by default, and `AgentBuilder.limits` replaces them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, final

from hookagent.errors import ConfigError
from hookagent.hooks.events import ContinueEvent, StopEvent
from hookagent.hooks.hook import Hook, make_hook
from hookagent.hooks.points import SHOULD_CONTINUE, STOP
from hookagent.hooks.result import HookResult
from hookagent.tools.base import Tool

__all__ = ["Limit", "StepLimit", "TimeLimit", "TokenLimit", "ToolCallPresence"]


def _positive(owner: str, name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ConfigError(
            f"must be a positive number, not {value!r}", key=f"{owner}({name})", value=value
        )


class Limit:
    """A capability whose check stops a run that would go on (see the module)."""

    name = "limits"

    def tools(self) -> Iterable[Tool]:
        return ()

    def _hooks(self, check: Any, label: str) -> Iterable[Hook[Any]]:
        """`check(event)` (a stop when the limit is reached) at should_continue when the run
        would continue, and at stop when a stop hook blocks the stop."""

        def on_continue(event: ContinueEvent, best: HookResult) -> HookResult | None:
            # ToolCallPresence's continue is a quiet vote, not in `best`: count the calls.
            going_on = best.kind == "continue" or event.tool_calls > 0
            return check(event) if going_on else None

        def on_stop(event: StopEvent, best: HookResult) -> HookResult | None:
            return check(event) if best.kind == "block" else None

        common: dict[str, Any] = {
            "name": label,
            "source": "limits",
            "tier": "audit",
            "always": True,
            "timeout": None,
        }
        yield make_hook(SHOULD_CONTINUE, on_continue, **common)
        yield make_hook(STOP, on_stop, **common)


@final
class StepLimit(Limit):
    """Stops the run once it has taken `max_steps` steps."""

    def __init__(self, max_steps: int = 20) -> None:
        if isinstance(max_steps, float):
            raise ConfigError(
                f"must be a whole number, not {max_steps!r}",
                key="StepLimit(max_steps)",
                value=max_steps,
            )
        _positive("StepLimit", "max_steps", max_steps)
        self.max_steps = max_steps

    def hooks(self) -> Iterable[Hook[Any]]:
        yield from self._hooks(self.check, "step_limit")

    def check(self, event: ContinueEvent | StopEvent) -> HookResult | None:
        if event.run.step_count >= self.max_steps:
            return HookResult.stop(
                f"step limit reached ({self.max_steps} steps)", stop_reason="steps_limit"
            )
        return None


@final
class TokenLimit(Limit):
    """Stops the run once input plus output tokens reach `max_tokens`."""

    def __init__(self, max_tokens: int = 32_768) -> None:
        _positive("TokenLimit", "max_tokens", max_tokens)
        self.max_tokens = max_tokens

    def hooks(self) -> Iterable[Hook[Any]]:
        yield from self._hooks(self.check, "token_limit")

    def check(self, event: ContinueEvent | StopEvent) -> HookResult | None:
        used = event.run.usage.total_tokens
        if used >= self.max_tokens:
            return HookResult.stop(
                f"token limit reached ({used} of {self.max_tokens} tokens)",
                stop_reason="token_limit",
            )
        return None


@final
class TimeLimit(Limit):
    """Stops the run once its execution time (summed across resumes) reaches `max_seconds`.

    Checked between steps, like the original: a step in progress is not interrupted.
    """

    def __init__(self, max_seconds: float = 300.0) -> None:
        _positive("TimeLimit", "max_seconds", max_seconds)
        self.max_seconds = float(max_seconds)

    def hooks(self) -> Iterable[Hook[Any]]:
        yield from self._hooks(self.check, "time_limit")

    def check(self, event: ContinueEvent | StopEvent) -> HookResult | None:
        if event.run.elapsed >= self.max_seconds:
            return HookResult.stop(
                f"time limit reached ({event.run.elapsed:.1f} of {self.max_seconds:g} s)",
                stop_reason="time_limit",
            )
        return None


@final
class ToolCallPresence(Limit):
    """Keeps the loop going while the model calls tools; a reply without calls ends it."""

    def hooks(self) -> Iterable[Hook[Any]]:
        yield make_hook(
            SHOULD_CONTINUE,
            self.check,
            name="tool_call_presence",
            source="limits",
            tier="policy",
            priority=0,
            kind="transform",
            timeout=None,
            quiet=True,
        )

    def check(self, event: ContinueEvent) -> HookResult | None:
        if event.tool_calls:
            return _CONTINUE
        return None


_CONTINUE = HookResult.continue_("the model called tools")
