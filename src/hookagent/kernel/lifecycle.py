"""ExecutionLifecycle: execution_start and the user prompt on the way in, execution_end out."""

from __future__ import annotations

from typing import final

from hookagent.hooks.events import PromptEvent, RunEvent
from hookagent.hooks.points import EXECUTION_END, EXECUTION_START, USER_PROMPT
from hookagent.kernel.context import RunContext
from hookagent.messages import UserMessage

__all__ = ["ExecutionLifecycle"]


@final
class ExecutionLifecycle:
    async def start(self, ctx: RunContext, prompt: str | None) -> None:
        state = ctx.state
        state.position.phase = "start"
        if ctx.hooks.wants(EXECUTION_START):
            started, _ = await ctx.hooks.fire(EXECUTION_START, RunEvent(run=ctx.view))
            if started.outcome == "stop":
                state.stop_by(started)
                return
            state.add_reminder(started.contexts)
        if prompt is not None:
            await self.submit(ctx, prompt)

    async def submit(self, ctx: RunContext, prompt: str) -> None:
        """A user message enters the run, unless a user_prompt hook refuses it."""
        state = ctx.state
        decision, event = await ctx.hooks.fire(
            USER_PROMPT, PromptEvent(run=ctx.view, prompt=prompt)
        )
        if decision.outcome == "stop":
            state.stop_by(decision)
            return
        if decision.outcome == "block":
            state.finish(
                "stopped", "guard", f"prompt blocked by {decision.hook}: {decision.reason}"
            )
            return
        state.messages.append(UserMessage(content=event.prompt))
        state.add_reminder(decision.contexts)

    async def finish(self, ctx: RunContext) -> None:
        state = ctx.state
        state.position.phase = "end"
        ctx.tick()
        if state.stop_reason is None:
            state.finish("completed", "completed")
        await ctx.hooks.fire(EXECUTION_END, RunEvent(run=ctx.view))
