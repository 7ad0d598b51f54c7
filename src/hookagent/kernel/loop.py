"""The kernel: one loop, read top to bottom.

    session_start, execution_start, user_prompt
    repeat: before_step, inference, tools, after_step; should_continue / stop
    execution_end, session_end

Every rung is a composite with one concern; the loop only checks whether the run has ended.
Any exception on the way goes to the ErrorHandler (`on_error`), whose hooks decide.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Final, final

from hookagent.kernel import cancellation
from hookagent.kernel.context import RunContext
from hookagent.kernel.continuation import ContinuationEvaluator, StopResolver
from hookagent.kernel.failures import ErrorHandler
from hookagent.kernel.inference import Inference
from hookagent.kernel.lifecycle import ExecutionLifecycle
from hookagent.kernel.step import StepRunner
from hookagent.kernel.tool_executor import ToolExecutor

__all__ = ["Kernel"]

_AFTER_THE_END: Final = frozenset({"execution_end", "session_end"})
"""Rungs that run once the run has its final status."""


@final
class Kernel:
    __slots__ = ("_continuation", "_errors", "_lifecycle", "_steps")

    def __init__(self) -> None:
        self._errors = ErrorHandler()
        self._lifecycle = ExecutionLifecycle()
        self._steps = StepRunner(Inference(self._errors), ToolExecutor(self._errors))
        self._continuation = ContinuationEvaluator(StopResolver())

    async def run(self, ctx: RunContext, prompt: str | None, *, resume: bool = False) -> None:
        """Run from the start, or (`resume`) from the segment a durable run's last checkpoint
        began: the start, a turn of the loop, or the end."""
        durable = ctx.durable
        await self._safely(ctx, self._lifecycle.open(ctx, resumed=resume), "session_start")
        if not resume or (durable is not None and durable.segment == 0):
            if not ctx.ended:
                await self._safely(ctx, self._lifecycle.start(ctx, prompt), "execution_start")
            resume = False
        while not ctx.ended:
            if durable is not None and not resume:
                await durable.checkpoint(ctx.state)
            resume = False
            steps_before = ctx.state.step_count
            await self._safely(ctx, self._steps.run(ctx), "step")
            if ctx.state.step_count == steps_before and not ctx.ended:
                self._steps.record_failure(ctx)  # keeps step limits counting
            if not ctx.ended:
                await self._safely(ctx, self._continuation.decide(ctx), "should_continue")
        if durable is not None and not resume:
            await durable.checkpoint(ctx.state)
        await self._safely(ctx, self._lifecycle.finish(ctx), "execution_end")
        await self._safely(ctx, self._lifecycle.close(ctx), "session_end")

    async def cancelled(self, ctx: RunContext) -> None:
        """Record a run whose task was cancelled (see `cancellation`); the caller goes on
        with the cancellation. A run without a store ends here: execution_end, session_end
        (unless it was cancelled in those already)."""
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()  # delivered: what follows may await, and its hooks time out as usual
        ending = ctx.state.position.phase == "end"  # execution_end is running already
        cancellation.stop(ctx.state, durable=ctx.durable is not None)
        ctx.tick()
        if ctx.durable is None and not ending:
            await self._safely(ctx, self._lifecycle.finish(ctx), "execution_end")
            await self._safely(ctx, self._lifecycle.close(ctx), "session_end")

    async def _safely(self, ctx: RunContext, rung: Awaitable[None], where: str) -> None:
        try:
            await rung
        except Exception as exc:
            action = await self._errors.handle(ctx, exc, where=where, retryable=False)
            if action != "stop":
                return
            if not ctx.ended:
                ctx.state.finish("failed", "error", f"{where}: {exc}")
            elif where in _AFTER_THE_END:  # the run had finished; it fails all the same
                ctx.state.fail_after_end(f"{where}: {ctx.state.error or exc}")
