"""The kernel: one loop, read top to bottom.

    session_start, execution_start, user_prompt
    repeat: before_step, inference, tools, after_step; should_continue / stop
    execution_end, session_end

Every rung is a composite with one concern; the loop only checks whether the run has ended.
Any exception on the way goes to the ErrorHandler (`on_error`), whose hooks decide.

Whether the loop goes round again is decided here too: `ContinuationEvaluator` asks
should_continue hooks (limits, tool-call presence…): `continue` means another step, `stop`
ends the run at once. With no opinion either way the run would end normally, so
`StopResolver` asks the stop hooks, which may refuse — within a budget.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Final, final

from hookagent._messages import UserMessage
from hookagent.hooks._events import ContinueEvent, StopEvent
from hookagent.hooks._points import SESSION_END, SESSION_START, SHOULD_CONTINUE, STOP
from hookagent.kernel import _cancellation as cancellation
from hookagent.kernel._context import RunContext
from hookagent.kernel._failures import ErrorHandler
from hookagent.kernel._inference import Inference
from hookagent.kernel._lifecycle import ExecutionLifecycle
from hookagent.kernel._step import StepRunner
from hookagent.kernel._tool_executor import ToolExecutor

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

    async def run(  # noqa: C901  # one frame: its loop's turn is paid per step
        self,
        ctx: RunContext,
        prompt: str | None,
        *,
        resumed: bool = False,
        mid_run: bool = False,
        opened: bool = False,
        cleared: bool = False,
    ) -> None:
        """Run from the start, or take a run up again (`resumed`): `mid_run` when it is
        taken up at a turn of the loop or at its end, whose checkpoint (`ctx.turn`) was
        taken already, rather than at its start. `opened`: the run goes on in the same
        session without a new process taking it up (a workflow continued as new), so
        session_start does not fire again. `cleared`: a new run of a session whose
        conversation was cleared (session_start's source `clear`)."""
        if not opened and ctx.hooks.wants(SESSION_START):  # (no coroutine for no hooks)
            opening = self._lifecycle.open(ctx, resumed=resumed, cleared=cleared)
            await self._safely(ctx, opening, "session_start")
        if not mid_run and not ctx.ended:
            await self._safely(ctx, self._lifecycle.start(ctx, prompt), "execution_start")
        turn, state, steps, continuation = ctx.turn, ctx.state, self._steps, self._continuation
        # The two rungs of every turn are awaited here rather than through `_safely`: one
        # coroutine less each, per step; and after a step that called tools, the loop goes
        # round with no coroutine at all when the limits' continue is routine. `ended` is
        # read as the state's `stop_reason`.
        while state.stop_reason is None:
            if turn is not None and not mid_run:
                await turn(state)
            mid_run = False
            try:
                calls = await steps.run(ctx)  # a step that returns has recorded itself, or ended
            except Exception as exc:
                calls = 0
                await self._failed(ctx, exc, "step")
                if state.stop_reason is None and len(state.steps) < state.position.step:
                    steps.record_failure(ctx)  # keeps step limits counting
            if state.stop_reason is None:
                quiet = ctx.quiet_continue
                if calls and quiet is not None:
                    state.position.phase = "continue"
                    if quiet(ctx.view, calls):  # the limits' routine continue: no fold
                        continue
                try:
                    await continuation.decide(ctx)
                except Exception as exc:
                    await self._failed(ctx, exc, "should_continue")
        if turn is not None and not mid_run:
            await turn(ctx.state)
        await self._safely(ctx, self._lifecycle.finish(ctx), "execution_end")
        if ctx.hooks.wants(SESSION_END):
            await self._safely(ctx, self._lifecycle.close(ctx), "session_end")

    async def cancelled(self, ctx: RunContext) -> None:
        """Record a run whose task was cancelled (see `cancellation`); the caller goes on
        with the cancellation. A run nobody keeps ends here: execution_end. Either way the
        process leaves the session: session_end, reason `prompt_input_exit` (unless it was
        cancelled in those already)."""
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()  # delivered: what follows may await, and its hooks time out as usual
        ending = ctx.state.position.phase == "end"  # execution_end is running already
        cancellation.stop(ctx.state, kept=ctx.kept)
        ctx.tick()
        if ending:
            return
        if not ctx.kept:
            await self._safely(ctx, self._lifecycle.finish(ctx), "execution_end")
        await self._safely(ctx, self._lifecycle.close(ctx, cancellation.LEFT), "session_end")

    async def _safely(self, ctx: RunContext, rung: Awaitable[None], where: str) -> None:
        try:
            await rung
        except Exception as exc:
            await self._failed(ctx, exc, where)

    async def _failed(self, ctx: RunContext, exc: Exception, where: str) -> None:
        """The error handler's word on a rung that raised; a `stop` fails the run."""
        action = await self._errors.handle(ctx, exc, where=where, retryable=False)
        if action != "stop":
            return
        if not ctx.ended:
            ctx.state.finish("failed", "error", f"{where}: {exc}")
        elif where in _AFTER_THE_END:  # the run had finished; it fails all the same
            ctx.state.fail_after_end(f"{where}: {ctx.state.error or exc}")


# -- whether the loop goes round again ---------------------------------------------------


@final
class StopResolver:
    async def resolve(self, ctx: RunContext) -> None:
        """End the run, unless a stop hook blocks the stop (then the reason is the next
        instruction for the model)."""
        state = ctx.state
        state.position.phase = "stop"
        quiet = ctx.quiet_stop
        if quiet is not None and quiet():  # no hook there would vote: the run completes
            state.finish("completed", "completed")
            return
        decision, event = await ctx.hooks.fire(
            STOP,
            StopEvent(
                run=ctx.view,
                step=state.position.step,
                output=state.output,
                stop_hook_active=state.stop_block_streak > 0,
            ),
        )
        if decision.outcome == "stop":
            state.stop_by(decision)
            return
        if decision.outcome == "block":
            if state.stop_block_streak >= ctx.budgets.stop_blocks:
                state.finish(
                    "stopped",
                    "retry_limit",
                    f"stop hooks refused to stop {state.stop_block_streak} times in a "
                    f"row (budget: {ctx.budgets.stop_blocks} consecutive stop-blocks); "
                    f"last reason: {decision.reason}",
                )
                return
            state.stop_block_streak += 1
            state.messages.append(
                UserMessage(content=decision.reason or "Continue.", synthetic=True)
            )
            state.add_reminder(decision.contexts)
            return
        state.output = event.output
        state.finish("completed", "completed")


@final
class ContinuationEvaluator:
    __slots__ = ("_stop",)

    def __init__(self, stop: StopResolver) -> None:
        self._stop = stop

    async def decide(self, ctx: RunContext) -> None:
        """The should_continue fold, unless the loop went round without it (after a step
        that called tools, `RunContext.quiet_continue` said it would be the limits' routine
        continue); after a step with no tool calls, when it would record nothing, the run
        goes on to the stop without it."""
        state = ctx.state
        state.position.phase = "continue"
        calls = state.steps.last_call_count()
        quiet = ctx.quiet_continue
        if not calls and quiet is not None and quiet(ctx.view, 0):
            await self._stop.resolve(ctx)
            return
        decision, _ = await ctx.consult(
            SHOULD_CONTINUE, ContinueEvent(run=ctx.view, step=state.position.step, tool_calls=calls)
        )
        if state.stop_reason is not None:
            return
        if decision.outcome == "continue":
            if decision.message:
                state.messages.append(UserMessage(content=decision.message, synthetic=True))
            return
        await self._stop.resolve(ctx)
