"""StepRunner: before_step → inference → tool calls → record → after_step.

The step is recorded as columns in the state's `StepTable`; a `StepRecord` is built only for
someone who will read it (an after_step hook, a stream consumer).
"""

from __future__ import annotations

import asyncio
import time
from time import perf_counter
from typing import final

from hookagent.hooks._events import StepEndEvent, StepEvent
from hookagent.hooks._points import AFTER_STEP, BEFORE_STEP
from hookagent.kernel._context import RunContext
from hookagent.kernel._inference import Inference
from hookagent.kernel._step_table import NO_USAGE
from hookagent.kernel._tool_executor import ToolExecutor
from hookagent.models._base import ModelResponse

__all__ = ["StepRunner"]


@final
class StepRunner:
    __slots__ = ("_inference", "_tools")

    def __init__(self, inference: Inference, tools: ToolExecutor) -> None:
        self._inference = inference
        self._tools = tools

    async def run(self, ctx: RunContext) -> int:
        """One step, recorded (unless the run ended before its record); how many tool calls
        it ran."""
        # `ended` is read as the state's `stop_reason`, and the step count as the length of
        # its table, each in this frame: this runs every step.
        state, hooks = ctx.state, ctx.hooks
        index = len(state.steps) + 1
        state.position.phase, state.position.step, state.position.call_id = "step", index, None
        if hooks.wants(BEFORE_STEP):
            await ctx.consult(BEFORE_STEP, StepEvent(run=ctx.view, step=index))
            if state.stop_reason is not None:
                return 0
        started, wall = perf_counter(), time.time()
        response, contexts = await self._inference.infer(ctx)
        at, calls = -1, 0
        if response is not None:
            messages = state.messages
            at = len(messages)
            messages.append(response.message)
            if contexts:
                state.add_reminder(contexts)
            tool_calls = response.message.tool_calls
            if tool_calls and ctx.calls is not None:
                ctx.calls.planned(index, tool_calls)
            if tool_calls and state.stop_reason is None:
                calls = len(tool_calls)
                try:
                    await self._tools.run_all(ctx, tool_calls)
                except asyncio.CancelledError:  # every call has its result (`cancellation`)
                    self._record(ctx, index, response, at, calls, wall, perf_counter() - started)
                    raise
        elif state.stop_reason is not None:
            return 0
        self._record(ctx, index, response, at, calls, wall, perf_counter() - started)
        if hooks.wants(AFTER_STEP):
            await ctx.consult(
                AFTER_STEP, StepEndEvent(run=ctx.view, step=index, record=state.steps[-1])
            )
        return calls

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
