"""tool_refused: the hooks there hear of a call before_tool refused, before its error result
is recorded, so what they add reaches the model with the refusal.

A refusal is a hook's block, a rule's, or an approval's denial; the last is told apart by the
answer the before_tool decision carries.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hookagent._messages import ToolCall
from hookagent.hooks._decision import Decision
from hookagent.hooks._events import ToolRefusedEvent
from hookagent.hooks._points import TOOL_REFUSED
from hookagent.kernel._context import RunContext

__all__ = ["refused"]


async def refused(
    ctx: RunContext, call: ToolCall, args: Mapping[str, Any], before: Decision
) -> tuple[str, ...]:
    """Fire tool_refused for `call`, which `before` blocked; the context its hooks give.
    A `stop` there ends the run (the call stays refused)."""
    decision, _ = await ctx.hooks.fire(
        TOOL_REFUSED,
        ToolRefusedEvent(
            run=ctx.view,
            step=ctx.state.position.step,
            call_id=call.id,
            tool_name=call.name,
            args=args,
            reason=before.reason,
            by=before.hook,
            denial=before.answer,
        ),
    )
    if decision.outcome == "stop":
        ctx.state.stop_by(decision)
    return decision.contexts
