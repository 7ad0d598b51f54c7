"""One gated call's way through the hooks: the kernel's `ToolCallFlow`, driven by a gate.

`ToolGate.call` builds a `Dispatcher` over the session's run state; `GatedCall` runs the
function where the kernel would run a tool, bounds its result as the kernel bounds a tool's,
and keeps what `GateResult` reports: the function's own return value while neither a hook
nor the bound replaced its result, its error, and a stop.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from time import perf_counter
from typing import Any, final

from hookagent._threads import in_thread
from hookagent.gate._wrap import is_async
from hookagent.hooks._decision import Decision
from hookagent.hooks._result import StopReason
from hookagent.kernel._dispatch import Dispatcher
from hookagent.kernel._tool_flow import ToolCallFlow
from hookagent.kernel._view import RunView
from hookagent.spill._results import bounded
from hookagent.tools._base import ToolResult

__all__ = ["GatedCall"]


@final
class GatedCall(ToolCallFlow):
    """One call of `execute` through before_tool and after_tool."""

    __slots__ = (
        "blocking",
        "duration",
        "error",
        "execute_fn",
        "folder",
        "limit",
        "output",
        "pristine",
        "stop_message",
        "stop_reason",
    )

    def __init__(
        self,
        hooks: Dispatcher,
        view: RunView,
        call_id: str,
        name: str,
        execute: Callable[..., Any],
        retries: int,
        limit: int | None,
        *,
        blocking: bool = True,
    ) -> None:
        super().__init__(hooks, view, 0, call_id, name, retries)
        self.execute_fn = execute
        self.blocking = blocking and not is_async(execute)
        """Whether `execute` runs on a worker thread, as an agent's sync tools do."""
        self.limit = limit
        """The most characters of a result the caller's model reads (None: no limit)."""
        self.folder = view.files
        self.duration = 0.0
        self.error: BaseException | None = None
        self.output: Any = None
        self.pristine: ToolResult | None = None
        """The result the function's return value made (the final one, if no hook and no
        context changed it)."""
        self.stop_reason: StopReason | None = None
        self.stop_message: str | None = None

    async def call(self, args: Mapping[str, Any]) -> ToolResult:
        try:
            return await self.run(args)
        finally:
            if self.began:  # from when before_tool let it through, after_tool included
                self.duration = perf_counter() - self.began

    async def execute(self, args: Mapping[str, Any], attempt: int) -> tuple[ToolResult, int]:
        self.error, self.output = None, None
        try:
            if self.blocking:
                value = await in_thread(self.execute_fn, **args)
            else:
                value = self.execute_fn(**args)
            if inspect.isawaitable(value):
                value = await value
        except Exception as exc:
            self.error = exc
            self.pristine = None
            failed = ToolResult.error(f"Tool {self.name!r} failed: {type(exc).__name__}: {exc}")
            return await self.own_result(failed), attempt
        self.output = value
        made = ToolResult.of(value)
        result = await self.own_result(made)
        self.pristine = made if result is made else None  # a cut result is not the value
        return result, attempt

    async def own_result(self, result: ToolResult) -> ToolResult:
        """`result` cut to a preview, saved whole in the session's run folder, when longer
        than the call's limit: the function's own and one an after_tool hook put in place."""
        return await bounded(result, self.limit, self.folder, f"{self.name}-{self.call_id}")

    def stop(self, decision: Decision) -> None:
        """What `RunState.stop_by` would record; the caller's loop decides what to do."""
        if self.stop_reason is None:
            self.stop_reason = decision.stop_reason or "hook_stop"
            self.stop_message = f"{decision.reason} (hook {decision.hook} at {decision.point})"

    def give_up(self, message: str) -> None:
        self.stop_reason, self.stop_message = "retry_limit", message
