"""ExecutionLifecycle: session_start, execution_start and the user prompt on the way in;
execution_end and session_end on the way out.

A run that is not a subagent's opens its session each time a process takes it up, as a
Claude Code process does: `source` is `startup` for a new run in a new session, `resume` for
a run taken up again (`Agent.resume`) or one continuing a session's conversation, `clear` for
a new run of a session that starts its conversation afresh (`run(..., clear=True)`, as
Claude Code's `/clear`). It closes
the session when it ends (completed, failed or stopped), with the reason `other`, or
`prompt_input_exit` when its task was cancelled (Ctrl-C: the user left, as Claude Code says of a
user quitting at its prompt), a kept run's too, though it stays resumable; a run that pauses for
an answer has not ended, and opens the session again (`resume`) when taken up.
Both points are fired past the injected fold runner (`fire_now`): they belong to the
process, not to the run, so a resumed run runs their hooks again rather than replaying them.
"""

from __future__ import annotations

from typing import final

from hookagent._messages import UserMessage
from hookagent.hooks._events import PromptEvent, RunEvent
from hookagent.hooks._points import (
    EXECUTION_END,
    EXECUTION_START,
    SESSION_END,
    SESSION_START,
    USER_PROMPT,
)
from hookagent.kernel._context import RunContext

__all__ = ["ExecutionLifecycle"]


@final
class ExecutionLifecycle:
    async def open(self, ctx: RunContext, *, resumed: bool, cleared: bool = False) -> None:
        """session_start; its context reaches the model before the run's first request, and
        a first message its hooks give a new run enters it (through user_prompt) before the
        run's own prompt. `cleared`: a new run of a session whose conversation was cleared."""
        state = ctx.state
        if state.parent_run_id is not None or not ctx.hooks.wants(SESSION_START):
            return
        source = "resume" if resumed or state.messages else "clear" if cleared else "startup"
        event = RunEvent(run=ctx.view, source=source)
        opened, event = await ctx.hooks.fire_now(SESSION_START, event)
        if opened.outcome == "stop":
            state.stop_by(opened)
            return
        state.add_reminder(opened.contexts)
        if event.prompt is not None and source != "resume":  # a first message, as a user's
            await self.submit(ctx, event.prompt)

    async def start(self, ctx: RunContext, prompt: str | None) -> None:
        state = ctx.state
        state.position.phase = "start"
        if ctx.hooks.wants(EXECUTION_START):
            await ctx.consult(EXECUTION_START, RunEvent(run=ctx.view))
            if ctx.ended:
                return
        if prompt is not None:
            await self.submit(ctx, prompt)

    async def submit(self, ctx: RunContext, prompt: str) -> None:
        """A user message enters the run, unless a user_prompt hook refuses it."""
        state = ctx.state
        if not ctx.hooks.wants(USER_PROMPT):  # no event for nobody
            state.messages.append(UserMessage(content=prompt))
            return
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
        if ctx.hooks.wants(EXECUTION_END):
            await ctx.hooks.fire(EXECUTION_END, RunEvent(run=ctx.view))

    async def close(self, ctx: RunContext, reason: str = "other") -> None:
        """session_end, once the run has ended or its process leaves it (`reason`)."""
        if ctx.state.parent_run_id is None and ctx.hooks.wants(SESSION_END):
            await ctx.hooks.fire_now(SESSION_END, RunEvent(run=ctx.view, source=reason))
