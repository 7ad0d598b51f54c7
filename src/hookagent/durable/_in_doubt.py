"""A call the run started but never recorded as ended: what its resumed run does with it.

In order: the tool's `reconcile` (done takes its result, not done runs the call), then an
idempotent tool runs again, then a before_tool fold told about the doubt may approve a
rerun with an `ask`; otherwise the model is told the call may or may not have taken effect.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from hookagent._messages import ToolCall
from hookagent.durable._reconcile import settle
from hookagent.durable._seam import Journal
from hookagent.hooks._events import ToolCallEvent
from hookagent.hooks._points import BEFORE_TOOL
from hookagent.kernel._context import RunContext
from hookagent.tools._base import ToolResult

__all__ = ["settle_doubt", "unless_hooks_rerun"]


async def settle_doubt(
    ctx: RunContext,
    call: ToolCall,
    args: Mapping[str, Any],
    durable: Journal,
    settled: str,
) -> ToolResult | None:
    """The result to give for an in-doubt call, or None to run it again. The tool's
    `reconcile`, if it has one, is asked first: done gives its result, not done runs
    the call. Otherwise the call runs again when its tool is idempotent, or a
    before_tool fold told about the doubt ends in an approved ask."""
    answer = await settle(ctx, call, args, durable, settled)
    if answer is not None and answer.outcome == "not_done":
        return None
    if answer is not None and answer.result is not None:
        return answer.result
    if ctx.traits[call.name].idempotent:
        return None
    return await unless_hooks_rerun(ctx, call, args, lost="the run was interrupted")


async def unless_hooks_rerun(
    ctx: RunContext, call: ToolCall, args: Mapping[str, Any], *, lost: str
) -> ToolResult | None:
    """What a call left in doubt gives once its tool could not settle it: None (run it
    again) when a before_tool fold told about the doubt ends in an approved ask; else its
    refusal, or the in-doubt result the model reads (`lost`: what ended the call unseen).
    A `stop` there ends the run."""
    if ctx.hooks.wants(BEFORE_TOOL):
        at, frozen = ctx.state.position.step, MappingProxyType(dict(args))
        event = ToolCallEvent(
            run=ctx.view, step=at, call_id=call.id, tool_name=call.name, args=frozen, in_doubt=True
        )
        decision, _ = await ctx.hooks.fire(BEFORE_TOOL, event)
        if decision.outcome == "ask":
            return None
        if decision.outcome in ("block", "stop"):
            if decision.outcome == "stop":
                ctx.state.stop_by(decision)
            why = f"blocked by {decision.hook}: {decision.reason}"
            return ToolResult.error(f"In doubt and not run again: {why}.")
    return ToolResult.error(
        f"In doubt: {call.name!r} was started before {lost} and its end was never "
        "recorded, so it may or may not have taken effect. It was not run again; check its "
        "effect before calling it again.",
        data={"state": "in_doubt", "call_id": call.id},
    )
