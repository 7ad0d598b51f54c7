"""StepRunner: before_step → inference → tool calls → record → after_step."""

from __future__ import annotations

import time
from time import perf_counter
from typing import final

from hookagent.hooks.events import StepEndEvent, StepEvent
from hookagent.hooks.points import AFTER_STEP, BEFORE_STEP
from hookagent.kernel.context import RunContext
from hookagent.kernel.inference import Inference
from hookagent.kernel.records import StepKind, StepRecord, ToolExecution
from hookagent.kernel.stream import ModelReplied, StepFinished, StepStarted
from hookagent.kernel.tool_executor import ToolExecutor
from hookagent.models.base import ModelResponse
from hookagent.usage import Usage

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
        executions: list[ToolExecution] = []
        if response is not None:
            state.messages.append(response.message)
            if ctx.emit is not None:
                ctx.emit(ModelReplied(index, response))
            state.add_reminder(contexts)
            if response.message.tool_calls and not ctx.ended:
                executions = await self._tools.run_all(ctx, response.message.tool_calls)
        elif ctx.ended:
            return
        record = self._record(ctx, index, response, executions, wall, perf_counter() - started)
        if ctx.hooks.wants(AFTER_STEP):
            after, _ = await ctx.hooks.fire(
                AFTER_STEP, StepEndEvent(run=ctx.view, step=index, record=record)
            )
            if after.outcome == "stop":
                state.stop_by(after)
            state.add_reminder(after.contexts)

    def record_failure(self, ctx: RunContext) -> None:
        """Record a step that raised before it could record itself."""
        self._record(ctx, ctx.state.position.step, None, [], time.time(), 0.0)

    def _record(
        self,
        ctx: RunContext,
        index: int,
        response: ModelResponse | None,
        executions: list[ToolExecution],
        started: float,
        duration: float,
    ) -> StepRecord:
        state = ctx.state
        kind: StepKind
        if response is None or any(e.result.is_error for e in executions):
            kind = "error"
        elif response.message.tool_calls:
            kind = "tool_execution"
        else:
            kind = "final_response"
        errors = tuple(e.result.content for e in executions if e.result.is_error)
        if response is None:
            errors = (state.error or "the model call failed",)
        record = StepRecord(
            index=index,
            kind=kind,
            response=None if response is None else response.message,
            executions=tuple(executions),
            usage=response.usage if response is not None else Usage(),
            started_at=started,
            duration=duration,
            errors=errors,
        )
        state.steps.append(record)
        if response is not None:
            state.usage = state.usage + response.usage
            if not response.message.tool_calls:
                state.output = response.message.content
        if record.has_tool_calls:
            state.stop_block_streak = 0
        ctx.tick()
        if ctx.emit is not None:
            ctx.emit(StepFinished(record))
        return record
