"""One tool call's way through the hooks, written once for both of its drivers.

    before_tool ─ block/stop ──────────────────────────────→ error result (refused)
        └─ approved → execute → after_tool ─ retry (within the budget) ─┐
                         ↑──────────────────────────────────────────────┘

The kernel's `ToolExecutor` drives it for a run's calls; `ToolGate` for calls of any
function. A driver says how to execute, what a stop or a spent retry budget does to its run,
and (the kernel) what a refusal and a hook's own result need besides.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace
from time import perf_counter
from typing import Any

from hookagent.hooks._decision import Decision
from hookagent.hooks._events import ToolCallEvent, ToolResultEvent
from hookagent.hooks._points import AFTER_TOOL, BEFORE_TOOL
from hookagent.kernel._dispatch import Dispatcher
from hookagent.kernel._view import RunView
from hookagent.tools._base import ToolResult

__all__ = ["ToolCallFlow", "with_context"]


class ToolCallFlow:
    """One call: `await flow.run(args)` gives its result; `args`, `contexts`, `blocked` and
    `attempts` say how it went (also when `run` raised, as far as it got)."""

    __slots__ = (
        "args",
        "attempts",
        "began",
        "blocked",
        "call_id",
        "contexts",
        "hooks",
        "name",
        "retries",
        "step",
        "view",
        "wall",
    )

    def __init__(
        self, hooks: Dispatcher, view: RunView, step: int, call_id: str, name: str, retries: int
    ) -> None:
        self.hooks, self.view, self.step = hooks, view, step
        self.call_id, self.name, self.retries = call_id, name, retries
        self.args: Mapping[str, Any] = {}
        self.contexts: tuple[str, ...] = ()
        """Every context hooks gave the call (before_tool's, then each after_tool's)."""
        self.blocked = False
        self.attempts = 0
        self.began, self.wall = 0.0, 0.0
        """When the call was let through (perf counter, wall clock); 0 until it is."""

    # -- what a driver provides ---------------------------------------------------------
    async def execute(self, args: Mapping[str, Any], attempt: int) -> tuple[ToolResult, int]:
        """Run the call: its result and its last attempt (error-policy retries counted)."""
        raise NotImplementedError

    def stop(self, decision: Decision) -> None:
        """A hook stopped the run."""
        raise NotImplementedError

    def give_up(self, message: str) -> None:
        """after_tool hooks asked for more retries than the budget allows."""
        raise NotImplementedError

    async def refused(self, args: Mapping[str, Any], before: Decision) -> tuple[str, ...]:
        """Context for the model about a refused call (the kernel's tool_refused point)."""
        return ()

    async def own_result(self, result: ToolResult) -> ToolResult:
        """A result an after_tool hook gave instead of the tool's, as the run keeps it."""
        return result

    # -- the sequence -----------------------------------------------------------------
    async def run(self, args: Mapping[str, Any]) -> ToolResult:
        self.args = args
        hooks = self.hooks
        before_contexts: tuple[str, ...] = ()
        if hooks.wants(BEFORE_TOOL):
            before, event = await hooks.fire(
                BEFORE_TOOL,
                ToolCallEvent(
                    run=self.view,
                    step=self.step,
                    call_id=self.call_id,
                    tool_name=self.name,
                    args=args,
                ),
            )
            self.args, before_contexts = event.args, before.contexts
            self.contexts = before_contexts
            if before.outcome in ("block", "stop"):
                if before.outcome == "stop":
                    self.stop(before)
                else:
                    before_contexts = (*before_contexts, *await self.refused(self.args, before))
                    self.contexts = before_contexts
                self.blocked = True
                message = f"Tool call {self.name!r} was blocked by {before.hook}: {before.reason}"
                return with_context(ToolResult.error(message), before_contexts)
        self.began, self.wall = perf_counter(), time.time()
        result, attempt = await self.execute(self.args, 1)
        return await self.after(result, attempt, self.began, before_contexts)

    async def after(
        self,
        result: ToolResult,
        attempt: int,
        started: float,
        before_contexts: tuple[str, ...] = (),
    ) -> ToolResult:
        """From the result of `attempt` (begun at `started`) on: after_tool, and the retries
        its hooks ask for. A driver that ran the tool with no hook before it starts here."""
        hooks = self.hooks
        while True:
            self.attempts = attempt
            if self.view.stop_reason is not None or not hooks.wants(AFTER_TOOL):
                return with_context(result, before_contexts)  # (ended: after_tool is skipped)
            after, checked = await hooks.fire(
                AFTER_TOOL,
                ToolResultEvent(
                    run=self.view,
                    step=self.step,
                    call_id=self.call_id,
                    tool_name=self.name,
                    args=self.args,
                    result=result,
                    duration=perf_counter() - started,
                    attempt=attempt,
                ),
            )
            given = checked.result
            if given is not result:
                given = await self.own_result(given)
            self.contexts = (*self.contexts, *after.contexts)
            final = with_context(given, (*before_contexts, *after.contexts))
            if after.outcome == "stop":
                self.stop(after)
            if after.outcome != "retry":
                return final
            if attempt > self.retries:
                self.give_up(
                    f"after_tool hooks asked to retry {self.name!r} more than "
                    f"{self.retries} times (retry budget); last reason: {after.reason}"
                )
                return final
            started = perf_counter()
            result, attempt = await self.execute(self.args, attempt + 1)


def with_context(result: ToolResult, contexts: tuple[str, ...]) -> ToolResult:
    """Hook context rides next to the tool result, as a system reminder."""
    if not contexts:
        return result
    body = "\n".join(contexts)
    return replace(
        result, content=f"{result.content}\n\n<system-reminder>\n{body}\n</system-reminder>"
    )
