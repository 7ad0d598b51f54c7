"""ToolExecutor: every tool call passes before_tool → tool → after_tool.

Whatever goes wrong with a call (a block, an unknown tool, bad arguments, an exception) ends
as an error result the model reads; only a `stop` or the error policy ends the run. Each call
is recorded as a row of the state's `StepTable`. The hooks' part of a call is the shared
`ToolCallFlow`; what the run keeps of its calls beyond that goes through `ctx.calls`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import replace
from time import perf_counter
from types import MappingProxyType
from typing import Any, final

from hookagent._canonical import call_key, canonical
from hookagent._errors import LeaseLost
from hookagent._messages import ToolCall, tool_result_message
from hookagent._surrogates import replace as replace_surrogates
from hookagent.hooks._decision import Decision
from hookagent.hooks._points import AFTER_TOOL, BEFORE_TOOL, TOOL_REFUSED
from hookagent.kernel._cancellation import NOT_RUN, interrupted, unanswered
from hookagent.kernel._context import RunContext
from hookagent.kernel._failures import HandlesErrors
from hookagent.kernel._refusal import refused
from hookagent.kernel._state import RunState
from hookagent.kernel._tool_flow import ToolCallFlow
from hookagent.tools._base import ToolResult, tool_context
from hookagent.tools._images import without_images
from hookagent.tools._traits import DEFAULT_TRAITS

__all__ = ["ToolExecutor"]


@final
class ToolExecutor(HandlesErrors):
    __slots__ = ()

    async def run_all(self, ctx: RunContext, calls: tuple[ToolCall, ...]) -> None:
        """Run the calls in order, recording one row each. Consecutive calls of tools that
        say `concurrent = True` (subagents) run at the same time, and are recorded in call
        order. Every call ends with a result in the conversation, even when the run stops
        or a hook error aborts the batch, so it stays well-formed."""
        index, state, traits = 0, ctx.state, ctx.traits
        while index < len(calls):
            call = calls[index]
            if state.stop_reason is not None:
                self._skip(ctx, call, "the run was stopped before this call")
                index += 1
                continue
            group = (
                _concurrent_group(ctx, calls, index)
                if traits.get(call.name, DEFAULT_TRAITS).concurrent
                else (call,)
            )
            try:
                if len(group) > 1:
                    await self._run_together(ctx, group)
                else:
                    await self.run_one(ctx, call)
            except asyncio.CancelledError:
                for rest in unanswered(ctx.state.messages, calls[index:]):
                    self._skip(ctx, rest, NOT_RUN)
                raise
            except LeaseLost:  # the run goes on elsewhere: this process records nothing more
                raise
            except Exception as exc:
                if len(group) == 1:  # a group records its own failures
                    self._skip(ctx, call, f"{type(exc).__name__}: {exc}")
                for rest in calls[index + len(group) :]:
                    self._skip(ctx, rest, "an earlier call in this turn failed")
                raise
            index += len(group)

    async def _run_together(self, ctx: RunContext, group: tuple[ToolCall, ...]) -> None:
        """Run the calls concurrently; each records into its own list, applied in order."""
        sinks: list[list[Callable[[], None]]] = [[] for _ in group]

        async def one(call: ToolCall, sink: list[Callable[[], None]]) -> None:
            _SINK.set((ctx.state, sink))
            await self.run_one(ctx, call)

        try:
            outcomes = await asyncio.gather(
                *(one(c, s) for c, s in zip(group, sinks, strict=True)), return_exceptions=True
            )
        except asyncio.CancelledError:  # what the calls recorded before they were stopped
            for sink in sinks:
                for record in sink:
                    record()
            raise
        failure: BaseException | None = None
        for call, sink, outcome in zip(group, sinks, outcomes, strict=True):
            for record in sink:
                record()
            if isinstance(outcome, BaseException):
                failure = failure or outcome
                if not sink and not isinstance(outcome, LeaseLost):
                    self._skip(ctx, call, f"{type(outcome).__name__}: {outcome}")
        if failure is not None:
            raise failure

    def _skip(self, ctx: RunContext, call: ToolCall, why: str) -> None:
        result = ToolResult.error(f"Not run: {why}.")
        self._record(ctx, call, call.args, None, result, blocked=True)

    async def run_one(self, ctx: RunContext, call: ToolCall) -> None:
        state, hooks = ctx.state, ctx.hooks
        state.position.phase, state.position.call_id = "tool", call.id
        if call.name not in ctx.tools or call.parse_error is not None:
            self._record(ctx, call, call.args, None, _invalid(ctx, call))
            return  # nothing can run, so there is nothing for hooks to guard
        asked = call  # as the reply has it: the step's record rebuilds args from it
        prepare = ctx.traits[call.name].prepare
        if prepare is not None:
            call = replace(call, args=prepare(call.args))
        args: Mapping[str, Any] = call.args
        shown: Mapping[str, Any] | None = None  # the view hooks got, if it is the reply's args
        flow: _KernelCall | None = None
        began = wall = 0.0
        try:
            if hooks.wants(BEFORE_TOOL):
                args = MappingProxyType(call.args)  # changed only through `modify`
                shown = args if call is asked else None
                flow = _KernelCall(ctx, call, self)
                result = await flow.run(args)
                if flow.blocked:
                    self._record(ctx, asked, flow.args, shown, result, blocked=True)
                    return
                args, attempts = flow.args, flow.attempts
            else:
                # No hook before the call: it runs with no flow object, which is made only
                # if after_tool hooks listen once it has run.
                began, wall = perf_counter(), time.time()
                calls = ctx.calls
                if calls is None:
                    result, attempts = await self.execute(ctx, call, args, 1)
                else:
                    result, attempts = await calls.execute(ctx, call, args, 1, self.execute)
                if hooks.wants(AFTER_TOOL):
                    flow = _KernelCall(ctx, call, self)
                    flow.args, flow.began, flow.wall = args, began, wall
                    result = await flow.after(result, attempts, began)
                    attempts = flow.attempts
        except asyncio.CancelledError as exc:
            if flow is not None:
                args, began, wall = flow.args, flow.began, flow.wall
            if wall:  # the tool had started (else the call is left "not run")
                duration = perf_counter() - began
                result = interrupted(call, exc)
                self._record(ctx, asked, args, shown, result, started=wall, duration=duration)
            raise
        if flow is not None:
            began, wall = flow.began, flow.wall
        self._record(
            ctx,
            asked,
            args,
            shown,
            result,
            started=wall,
            duration=perf_counter() - began,
            attempts=attempts,
        )

    async def execute(
        self, ctx: RunContext, call: ToolCall, args: Mapping[str, Any], attempt: int
    ) -> tuple[ToolResult, int]:
        """The tool's result as the run records it: text UTF-8 can carry (unpaired
        surrogates as U+FFFD, which a provider or the store would refuse), cut to a preview
        and saved whole in the run's folder when longer than the tool's `max_result_chars`;
        and the number of its last attempt, error-policy retries counted."""
        tool, view = ctx.tools[call.name], ctx.view
        key = lambda: call_key(view.run_id, call.id, canonical(dict(args)))  # noqa: E731  # when asked
        while True:
            try:
                result = await tool(args, tool_context(view, call, key))
                break
            except Exception as exc:
                action = await self._errors.handle(
                    ctx, exc, where=f"tool:{call.name}", attempt=attempt, error_class="tool"
                )
                if action != "retry" or attempt > ctx.budgets.retries:
                    error = f"Tool {call.name!r} failed: {type(exc).__name__}: {exc}"
                    result = ToolResult.error(error)
                    break
                attempt += 1
        content = result.content
        if not content.isascii():  # ASCII holds no surrogate: most results stop here
            content = replace_surrogates(content)
            if content is not result.content:
                result = replace(result, content=content)
        if result.images and not getattr(ctx.model, "accepts_images", False):
            result = without_images(result)
        outputs = ctx.outputs
        limit = outputs.limits.get(call.name) if outputs is not None else None
        if limit is not None and outputs is not None and len(result.content) > limit:
            result = await outputs.bound(ctx.state.run_id, call, result)  # over: cut, saved
        return result, attempt

    def _record(
        self,
        ctx: RunContext,
        call: ToolCall,
        args: Mapping[str, Any],
        proxy: Mapping[str, Any] | None,
        result: ToolResult,
        *,
        blocked: bool = False,
        started: float = 0.0,
        duration: float = 0.0,
        attempts: int = 1,
    ) -> None:
        """The result message for the model, and the call's row for the step's record.
        `proxy` is the read-only view of `call.args` that hooks were shown, if any."""
        found = _SINK.get()
        # a concurrent call of this run (not of a subagent running inside one of its calls,
        # which sees its parent's context): recorded in call order once all are done
        if found is not None and found[0] is ctx.state:
            _SINK.set(None)
            found[1].append(
                lambda: self._record(
                    ctx,
                    call,
                    args,
                    proxy,
                    result,
                    blocked=blocked,
                    started=started,
                    duration=duration,
                    attempts=attempts,
                )
            )
            return
        state = ctx.state
        messages = state.messages
        messages.append(
            tool_result_message(call.id, call.name, result.content, result.is_error, result.images)
        )
        state.steps.append_call(
            len(messages) - 1, call, args, proxy, result, blocked, started, duration, attempts
        )


_SINK: ContextVar[tuple[RunState, list[Callable[[], None]]] | None] = ContextVar(
    "tool_record_sink", default=None
)
"""Set inside a concurrently running call: its run, and where its record waits for its turn."""


def _concurrent_group(
    ctx: RunContext, calls: tuple[ToolCall, ...], start: int
) -> tuple[ToolCall, ...]:
    """The calls from `start` on whose tools may run at the same time (at least one call)."""
    end = start
    traits = ctx.traits
    while end < len(calls) and traits.get(calls[end].name, DEFAULT_TRAITS).concurrent:
        end += 1
    return calls[start : max(end, start + 1)]


def _invalid(ctx: RunContext, call: ToolCall) -> ToolResult:
    """The error result for a call that names no tool or whose arguments did not parse."""
    if call.name not in ctx.tools:
        available = ", ".join(sorted(ctx.tools)) or "none"
        return ToolResult.error(f"Unknown tool {call.name!r}. Available tools: {available}.")
    return ToolResult.error(f"Invalid arguments for tool {call.name!r}: {call.parse_error}")


@final
class _KernelCall(ToolCallFlow):
    """The flow of one call of a run: the run's tool, its records and its budgets."""

    __slots__ = ("call", "ctx", "executor")

    def __init__(self, ctx: RunContext, call: ToolCall, executor: ToolExecutor) -> None:
        state = ctx.state
        super().__init__(
            ctx.hooks, ctx.view, state.position.step, call.id, call.name, ctx.budgets.retries
        )
        self.ctx, self.call, self.executor = ctx, call, executor

    async def execute(self, args: Mapping[str, Any], attempt: int) -> tuple[ToolResult, int]:
        ctx, calls = self.ctx, self.ctx.calls
        if calls is None:
            return await self.executor.execute(ctx, self.call, args, attempt)
        return await calls.execute(ctx, self.call, args, attempt, self.executor.execute)

    def stop(self, decision: Decision) -> None:
        self.ctx.state.stop_by(decision)

    def give_up(self, message: str) -> None:
        self.ctx.state.finish("stopped", "retry_limit", message)

    async def refused(self, args: Mapping[str, Any], before: Decision) -> tuple[str, ...]:
        if not self.ctx.hooks.wants(TOOL_REFUSED):
            return ()
        return await refused(self.ctx, self.call, args, before)

    async def own_result(self, result: ToolResult) -> ToolResult:
        ctx = self.ctx
        outputs = ctx.outputs
        if outputs is None or ctx.kept:  # a layer that keeps the run bounds it as it keeps it
            return result
        return await outputs.bound(ctx.state.run_id, self.call, result)
