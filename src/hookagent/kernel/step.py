"""StepRunner: before_step → inference → tool calls → record → after_step.

The step is recorded as columns in the state's `StepTable`; a `StepRecord` is built only for
someone who will read it (an after_step hook, a stream consumer).
"""

from __future__ import annotations

import asyncio
import time
from time import perf_counter
from typing import final

from hookagent.hooks.events import StepEndEvent, StepEvent
from hookagent.hooks.points import AFTER_STEP, BEFORE_STEP
from hookagent.kernel.context import RunContext
from hookagent.kernel.inference import Inference
from hookagent.kernel.step_table import NO_USAGE
from hookagent.kernel.stream import ModelReplied, StepFinished, StepStarted
from hookagent.kernel.tool_executor import ToolExecutor
from hookagent.models.base import ModelResponse

__all__ = ["StepRunner"]


@final
class StepRunner:
    __slots__ = ("_inference", "_tools")

    def __init__(self, inference: Inference, tools: ToolExecutor) -> None:
        self._inference = inference
        self._tools = tools

    async def run(self, ctx: RunContext) -> None:
        state = ctx.state
        index = state.step_count + 1
        state.position.phase, state.position.step, state.position.call_id = "step", index, None
        if ctx.emit is not None:
            ctx.emit(StepStarted(index))
        if ctx.hooks.wants(BEFORE_STEP):
            before, _ = await ctx.hooks.fire(BEFORE_STEP, StepEvent(run=ctx.view, step=index))
            if before.outcome == "stop":
                state.stop_by(before)
                return
            state.add_reminder(before.contexts)
        started, wall = perf_counter(), time.time()
        response, contexts = await self._inference.infer(ctx)
        at, calls = -1, 0
        if response is not None:
            at = len(state.messages)
            state.messages.append(response.message)
            if ctx.emit is not None:
                ctx.emit(ModelReplied(index, response))
            state.add_reminder(contexts)
            tool_calls = response.message.tool_calls
            if tool_calls and ctx.durable is not None:
                for call in tool_calls:
                    ctx.durable.call(call.id, index, call.name, call.args, "planned")
            if tool_calls and not ctx.ended:
                calls = await self._run_tools(ctx, index, response, at, wall, started)
        elif ctx.ended:
            return
        self._record(ctx, index, response, at, calls, wall, perf_counter() - started)
        if ctx.hooks.wants(AFTER_STEP):
            after, _ = await ctx.hooks.fire(
                AFTER_STEP, StepEndEvent(run=ctx.view, step=index, record=state.steps[-1])
            )
            if after.outcome == "stop":
                state.stop_by(after)
            state.add_reminder(after.contexts)

    async def _run_tools(
        self,
        ctx: RunContext,
        index: int,
        response: ModelResponse,
        at: int,
        wall: float,
        started: float,
    ) -> int:
        """Run the reply's tool calls; how many. When the run is cancelled meanwhile, every
        call has its result (see `cancellation`), and the step is recorded as it stands."""
        calls = response.message.tool_calls
        try:
            await self._tools.run_all(ctx, calls)
        except asyncio.CancelledError:
            self._record(ctx, index, response, at, len(calls), wall, perf_counter() - started)
            raise
        return len(calls)

    def record_failure(self, ctx: RunContext) -> None:
        """Record a step that raised before it could record itself."""
        self._record(ctx, ctx.state.position.step, None, -1, 0, time.time(), 0.0)

    def _record(
        self,
        ctx: RunContext,
        index: int,
        response: ModelResponse | None,
        at: int,
        calls: int,
        started: float,
        duration: float,
    ) -> None:
        """Close the step in the table: its reply is message `at`, and it ran the last
        `calls` tool calls recorded (none when the model call failed)."""
        state = ctx.state
        if response is None:
            failure = state.error or "the model call failed"
            state.steps.append_step(index, -1, NO_USAGE, started, duration, 0, failure)
        else:
            state.steps.append_step(index, at, response.usage, started, duration, calls, None)
            state.usage = state.usage + response.usage
            if response.message.tool_calls:
                state.stop_block_streak = 0
            else:
                state.output = response.message.content
        ctx.tick()
        if ctx.emit is not None:
            ctx.emit(StepFinished(state.steps[-1]))
