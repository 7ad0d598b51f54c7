"""One gated call's way through the hooks: before_tool, then the function, then after_tool
(again while after_tool hooks ask for a retry and the retry budget lasts).

This is the tool executor's sequence, run on a `Dispatcher` that `ToolGate.call` builds over
the session's run state; `CallSequence` keeps what `GateResult` reports about the call.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from time import perf_counter
from types import MappingProxyType
from typing import Any, final

from hookagent.hooks.decision import Decision
from hookagent.hooks.events import ToolCallEvent, ToolResultEvent
from hookagent.hooks.points import AFTER_TOOL, BEFORE_TOOL
from hookagent.hooks.result import StopReason
from hookagent.kernel.dispatch import Dispatcher
from hookagent.kernel.tool_executor import _with_context  # the agent's reminder format
from hookagent.kernel.view import RunView
from hookagent.tools.base import ToolResult

__all__ = ["CallSequence"]


@final
class CallSequence:
    """One call's way through the hooks: the tool executor's sequence, on a dispatcher."""

    __slots__ = (
        "args",
        "attempts",
        "blocked",
        "contexts",
        "duration",
        "error",
        "execute",
        "hooks",
        "id",
        "name",
        "output",
        "pristine",
        "retries",
        "stop_message",
        "stop_reason",
        "view",
    )

    def __init__(
        self,
        hooks: Dispatcher,
        view: RunView,
        call_id: str,
        name: str,
        execute: Callable[..., Any],
        retries: int,
    ) -> None:
        self.hooks, self.view, self.id, self.name = hooks, view, call_id, name
        self.execute, self.retries = execute, retries
        self.args: Mapping[str, Any] = MappingProxyType({})
        self.blocked = False
        self.attempts = 0
        self.duration = 0.0
        self.error: BaseException | None = None
        self.output: Any = None
        self.pristine: ToolResult | None = None
        """The result the function's return value made, while no hook has replaced it."""
        self.contexts: tuple[str, ...] = ()
        self.stop_reason: StopReason | None = None
        self.stop_message: str | None = None

    async def run(self, args: Mapping[str, Any]) -> ToolResult:
        hooks = self.hooks
        self.args = args
        if hooks.wants(BEFORE_TOOL):
            before, event = await hooks.fire(
                BEFORE_TOOL,
                ToolCallEvent(
                    run=self.view, step=0, call_id=self.id, tool_name=self.name, args=args
                ),
            )
            self.args, self.contexts = event.args, before.contexts
            if before.outcome in ("block", "stop"):
                if before.outcome == "stop":
                    self._stop(before)
                self.blocked = True
                message = f"Tool call {self.name!r} was blocked by {before.hook}: {before.reason}"
                return _with_context(ToolResult.error(message), self.contexts)
        started = perf_counter()
        try:
            return await self._run_with_hooks()
        finally:
            self.duration = perf_counter() - started

    async def _run_with_hooks(self) -> ToolResult:
        hooks = self.hooks
        while True:
            self.attempts += 1
            started = perf_counter()
            result = await self._execute()
            if not hooks.wants(AFTER_TOOL):
                return self._final(result, self.contexts)
            after, event = await hooks.fire(
                AFTER_TOOL,
                ToolResultEvent(
                    run=self.view,
                    step=0,
                    call_id=self.id,
                    tool_name=self.name,
                    args=self.args,
                    result=result,
                    duration=perf_counter() - started,
                    attempt=self.attempts,
                ),
            )
            final = self._final(event.result, (*self.contexts, *after.contexts))
            self.contexts = (*self.contexts, *after.contexts)
            if after.outcome == "stop":
                self._stop(after)
            if after.outcome != "retry":
                return final
            if self.attempts > self.retries:
                self.stop_reason = "retry_limit"
                self.stop_message = (
                    f"after_tool hooks asked to retry {self.name!r} more than "
                    f"{self.retries} times (retry budget); last reason: {after.reason}"
                )
                return final

    async def _execute(self) -> ToolResult:
        self.error, self.output = None, None
        try:
            value = self.execute(**self.args)
            if inspect.isawaitable(value):
                value = await value
        except Exception as exc:
            self.error = exc
            self.pristine = None
            return ToolResult.error(f"Tool {self.name!r} failed: {type(exc).__name__}: {exc}")
        self.output = value
        self.pristine = ToolResult.of(value)
        return self.pristine

    def _final(self, result: ToolResult, contexts: tuple[str, ...]) -> ToolResult:
        final = _with_context(result, contexts)
        if final is not self.pristine:
            self.pristine = None
        return final

    def _stop(self, decision: Decision) -> None:
        """What `RunState.stop_by` would record; the caller's loop decides what to do."""
        if self.stop_reason is None:
            self.stop_reason = decision.stop_reason or "hook_stop"
            self.stop_message = f"{decision.reason} (hook {decision.hook} at {decision.point})"
