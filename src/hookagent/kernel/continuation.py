"""Whether the loop goes round again.

`ContinuationEvaluator` asks should_continue hooks (limits, tool-call presence…): `continue`
means another step, `stop` ends the run at once. With no opinion either way the run would end
normally, so `StopResolver` asks the stop hooks, which may refuse — within a budget.
"""

from __future__ import annotations

from typing import final

from hookagent.hooks.events import ContinueEvent, StopEvent
from hookagent.hooks.points import SHOULD_CONTINUE, STOP
from hookagent.kernel.context import RunContext
from hookagent.messages import UserMessage

__all__ = ["ContinuationEvaluator", "StopResolver"]


@final
class StopResolver:
    async def resolve(self, ctx: RunContext) -> None:
        """End the run, unless a stop hook blocks the stop (then the reason is the next
        instruction for the model)."""
        state = ctx.state
        state.position.phase = "stop"
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
        state = ctx.state
        state.position.phase = "continue"
        calls = state.steps.last_call_count()
        decision, _ = await ctx.hooks.fire(
            SHOULD_CONTINUE, ContinueEvent(run=ctx.view, step=state.position.step, tool_calls=calls)
        )
        if decision.outcome == "stop":
            state.stop_by(decision)
            return
        state.add_reminder(decision.contexts)
        if decision.outcome == "continue":
            if decision.message:
                state.messages.append(UserMessage(content=decision.message, synthetic=True))
            return
        await self._stop.resolve(ctx)
