"""ToolExecutor: every tool call passes before_tool → tool → after_tool.

Whatever goes wrong with a call (a block, an unknown tool, bad arguments, an exception) ends
as an error result the model reads; only a `stop` or the error policy ends the run. Each call
is recorded as a row of the state's `StepTable`; a `ToolExecution` is built only for a stream.
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

from hookagent.durable import codec
from hookagent.durable.journal import Durable, call_key
from hookagent.hooks.events import ToolCallEvent, ToolResultEvent
from hookagent.hooks.points import AFTER_TOOL, BEFORE_TOOL, TOOL_REFUSED
from hookagent.kernel.cancellation import NOT_RUN, interrupted, unanswered
from hookagent.kernel.context import RunContext
from hookagent.kernel.failures import ErrorHandler
from hookagent.kernel.in_doubt import settle_doubt
from hookagent.kernel.reconcile import RECONCILE, note
from hookagent.kernel.records import ToolExecution
from hookagent.kernel.refusal import refused
from hookagent.kernel.stream import ToolFinished, ToolStarted
from hookagent.messages import ToolCall, ToolResultMessage
from hookagent.surrogates import replace as replace_surrogates
from hookagent.tools.base import ToolContext, ToolResult
from hookagent.tools.images import without_images

__all__ = ["ToolExecutor"]


@final
class ToolExecutor:
    __slots__ = ("_errors",)

    def __init__(self, errors: ErrorHandler) -> None:
        self._errors = errors

    async def run_all(self, ctx: RunContext, calls: tuple[ToolCall, ...]) -> None:
        """Run the calls in order, recording one row each. Consecutive calls of tools that
        say `concurrent = True` (subagents) run at the same time, and are recorded in call
        order. Every call ends with a result in the conversation, even when the run stops
        or a hook error aborts the batch, so it stays well-formed."""
        index = 0
        while index < len(calls):
            call = calls[index]
            if ctx.ended:
                self._skip(ctx, call, "the run was stopped before this call")
                index += 1
                continue
            group = _concurrent_group(ctx, calls, index)
            try:
                if len(group) > 1:
                    await self._run_together(ctx, group)
                else:
                    await self.run_one(ctx, call)
            except asyncio.CancelledError:
                for rest in unanswered(ctx.state.messages, calls[index:]):
                    self._skip(ctx, rest, NOT_RUN)
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
            _SINK.set(sink)
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
                if not sink:
                    self._skip(ctx, call, f"{type(outcome).__name__}: {outcome}")
        if failure is not None:
            raise failure

    def _skip(self, ctx: RunContext, call: ToolCall, why: str) -> None:
        result = ToolResult.error(f"Not run: {why}.")
        self._record(ctx, call, call.args, None, result, blocked=True)

    async def run_one(self, ctx: RunContext, call: ToolCall) -> None:
        ctx.state.position.phase, ctx.state.position.call_id = "tool", call.id
        step = ctx.state.position.step
        if ctx.emit is not None:
            ctx.emit(ToolStarted(step, call.id, call.name, call.args))
        invalid = _invalid(ctx, call)
        if invalid is not None:  # nothing can run, so there is nothing for hooks to guard
            self._record(ctx, call, call.args, None, invalid)
            return
        asked = call  # as the reply has it: the step's record rebuilds args from it
        prepare = ctx.preparers.get(call.name)
        if prepare is not None:
            call = replace(call, args=prepare(call.args))
        args: Mapping[str, Any] = call.args
        proxy: Mapping[str, Any] | None = None
        shown: Mapping[str, Any] | None = None  # `proxy` if it views the reply's own args
        contexts: tuple[str, ...] = ()
        if ctx.hooks.wants(BEFORE_TOOL):
            proxy = MappingProxyType(call.args)  # changed only through `modify`
            shown = proxy if call is asked else None
            before, event = await ctx.hooks.fire(
                BEFORE_TOOL,
                ToolCallEvent(
                    run=ctx.view, step=step, call_id=call.id, tool_name=call.name, args=proxy
                ),
            )
            args, contexts = event.args, before.contexts
            if before.outcome in ("block", "stop"):
                if before.outcome == "stop":
                    ctx.state.stop_by(before)
                elif ctx.hooks.wants(TOOL_REFUSED):
                    contexts = (*contexts, *await refused(ctx, call, args, before))
                message = f"Tool call {call.name!r} was blocked by {before.hook}: {before.reason}"
                result = _with_context(ToolResult.error(message), contexts)
                self._record(ctx, asked, args, shown, result, blocked=True)
                return
        if ctx.durable is not None:
            ctx.durable.call(call.id, step, call.name, args, "approved")
        started, wall = perf_counter(), time.time()
        try:
            result, attempts = await self._execute_with_hooks(ctx, call, args, contexts)
        except asyncio.CancelledError as exc:
            result = interrupted(call, exc)
            duration = perf_counter() - started
            self._record(ctx, asked, args, shown, result, started=wall, duration=duration)
            raise
        self._record(
            ctx,
            asked,
            args,
            shown,
            result,
            started=wall,
            duration=perf_counter() - started,
            attempts=attempts,
        )

    async def _execute_with_hooks(
        self,
        ctx: RunContext,
        call: ToolCall,
        args: Mapping[str, Any],
        contexts: tuple[str, ...],
    ) -> tuple[ToolResult, int]:
        attempt = 1
        while True:
            started = perf_counter()
            if ctx.durable is None:
                result, attempt = await self._execute(ctx, call, args, attempt)
            else:
                result, attempt = await self._execute_durably(ctx, call, args, attempt, ctx.durable)
            if ctx.ended or not ctx.hooks.wants(AFTER_TOOL):
                return _with_context(result, contexts), attempt
            after, event = await ctx.hooks.fire(
                AFTER_TOOL,
                ToolResultEvent(
                    run=ctx.view,
                    step=ctx.state.position.step,
                    call_id=call.id,
                    tool_name=call.name,
                    args=args,
                    result=result,
                    duration=perf_counter() - started,
                    attempt=attempt,
                ),
            )
            given = event.result
            if given is not result and ctx.outputs is not None:  # a hook's own result
                given = await ctx.outputs.bound(ctx.state.run_id, call, given)
            result = _with_context(given, (*contexts, *after.contexts))
            if after.outcome == "stop":
                ctx.state.stop_by(after)
            if after.outcome != "retry":
                return result, attempt
            if attempt > ctx.budgets.retries:
                ctx.state.finish(
                    "stopped",
                    "retry_limit",
                    f"after_tool hooks asked to retry {call.name!r} more than "
                    f"{ctx.budgets.retries} times (retry budget); last reason: "
                    f"{after.reason}",
                )
                return result, attempt
            attempt += 1

    async def _execute_durably(
        self,
        ctx: RunContext,
        call: ToolCall,
        args: Mapping[str, Any],
        attempt: int,
        durable: Durable,
    ) -> tuple[ToolResult, int]:
        """Exactly once: a result this segment already got is taken from the journal; a call
        that was started but never recorded as ended is in doubt and is not simply run again;
        otherwise `started` is made durable before the tool runs, and its result after."""
        state = ctx.state
        key = durable.key("tool", state.position.step, call.id)
        settled = durable.key(RECONCILE, state.position.step, call.id)
        entry = durable.find(key)
        if entry is not None:
            if (reconciled := durable.find(settled)) is not None:  # as the first pass had it
                note(ctx, codec.load("decision", reconciled.data))
            recorded: ToolResult = codec.load("result", entry.data)
            return recorded, attempt
        if call.id in durable.doubtful:
            durable.doubtful.discard(call.id)
            doubt = await settle_doubt(ctx, call, args, durable, settled)
            if doubt is not None:
                durable.record(key, "tool", codec.dump("result", doubt))
                return doubt, attempt
        durable.call(call.id, state.position.step, call.name, args, "started")
        await durable.barrier(state)  # a crash from here on leaves the call in doubt
        result, attempt = await self._execute(ctx, call, args, attempt)
        data, result = codec.stored("result", result)  # what a resumed run will read
        durable.record(key, "tool", data)
        durable.finish_call(call.id, "failed" if result.is_error else "done", data)
        await durable.barrier(state)
        return result, attempt

    async def _execute(
        self, ctx: RunContext, call: ToolCall, args: Mapping[str, Any], attempt: int
    ) -> tuple[ToolResult, int]:
        """The tool's result as the run records it: text UTF-8 can carry (unpaired
        surrogates as U+FFFD, which a provider or the store would refuse), cut to a preview
        and saved whole in the run's folder when longer than the tool's `max_result_chars`;
        and the number of its last attempt, error-policy retries counted."""
        result, attempt = await self._call_tool(ctx, call, args, attempt)
        content = replace_surrogates(result.content)
        if content is not result.content:
            result = replace(result, content=content)
        if result.images and not getattr(ctx.model, "accepts_images", False):
            result = without_images(result)
        if ctx.outputs is None:
            return result, attempt
        return await ctx.outputs.bound(ctx.state.run_id, call, result), attempt

    async def _call_tool(
        self, ctx: RunContext, call: ToolCall, args: Mapping[str, Any], attempt: int
    ) -> tuple[ToolResult, int]:
        tool = ctx.tools[call.name]
        key = _idempotency_key(ctx, call, args)
        while True:
            try:
                context = ToolContext(run=ctx.view, call=call, idempotency_key=key)
                return await tool(args, context), attempt
            except Exception as exc:
                action = await self._errors.handle(
                    ctx, exc, where=f"tool:{call.name}", attempt=attempt, error_class="tool"
                )
                if action != "retry" or attempt > ctx.budgets.retries:
                    error = f"Tool {call.name!r} failed: {type(exc).__name__}: {exc}"
                    return ToolResult.error(error), attempt
                attempt += 1

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
        sink = _SINK.get()
        if sink is not None:  # a concurrent call: recorded in call order once all are done
            _SINK.set(None)
            sink.append(
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
            ToolResultMessage(
                call_id=call.id,
                name=call.name,
                content=result.content,
                is_error=result.is_error,
                images=result.images,
            )
        )
        state.steps.append_call(
            len(messages) - 1, call, args, proxy, result, blocked, started, duration, attempts
        )
        if ctx.emit is not None:
            execution = ToolExecution(
                call_id=call.id,
                name=call.name,
                args=args,
                result=result,
                blocked=blocked,
                started_at=started,
                duration=duration,
                attempts=attempts,
            )
            ctx.emit(ToolFinished(state.position.step, execution))


_SINK: ContextVar[list[Callable[[], None]] | None] = ContextVar("tool_record_sink", default=None)
"""Set inside a concurrently running call: where its record waits for its turn."""


def _concurrent_group(
    ctx: RunContext, calls: tuple[ToolCall, ...], start: int
) -> tuple[ToolCall, ...]:
    """The calls from `start` on whose tools may run at the same time (at least one call)."""
    end = start
    while end < len(calls) and getattr(ctx.tools.get(calls[end].name), "concurrent", False):
        end += 1
    return calls[start : max(end, start + 1)]


def _invalid(ctx: RunContext, call: ToolCall) -> ToolResult | None:
    """The error result for a call that names no tool or whose arguments did not parse."""
    if call.name not in ctx.tools:
        available = ", ".join(sorted(ctx.tools)) or "none"
        return ToolResult.error(f"Unknown tool {call.name!r}. Available tools: {available}.")
    if call.parse_error is not None:
        return ToolResult.error(f"Invalid arguments for tool {call.name!r}: {call.parse_error}")
    return None


def _idempotency_key(
    ctx: RunContext, call: ToolCall, args: Mapping[str, Any]
) -> str | Callable[[], str]:
    """The call's key as the journal has it, or (a run without a store) a function that
    computes it the same way when the tool first asks."""
    record = ctx.durable.calls.get(call.id) if ctx.durable is not None else None
    if record is not None:
        return record.idempotency_key
    run_id = ctx.view.run_id
    return lambda: call_key(run_id, call.id, codec.canonical(dict(args)))


def _with_context(result: ToolResult, contexts: tuple[str, ...]) -> ToolResult:
    """Hook context rides next to the tool result, as a system reminder."""
    if not contexts:
        return result
    body = "\n".join(contexts)
    return replace(
        result, content=f"{result.content}\n\n<system-reminder>\n{body}\n</system-reminder>"
    )
