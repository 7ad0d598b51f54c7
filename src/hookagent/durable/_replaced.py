"""A result an after_tool hook put in place of the tool's, bounded as the tool's own is.

A layer that keeps a run records each fold's outcome before the run acts on it (a store's
journal, a workflow's history). A result a hook gave is cut there first, so the record, the
hooks after it and the model hold the preview and the file's path, never the whole text.
"""

from __future__ import annotations

from dataclasses import replace

from hookagent._messages import ToolCall
from hookagent.hooks._engine import Folded
from hookagent.hooks._events import ToolResultEvent
from hookagent.spill._results import ToolOutputs

__all__ = ["bound_replaced", "over_limit"]


def over_limit(
    outputs: ToolOutputs, event: ToolResultEvent, folded: Folded[ToolResultEvent]
) -> bool:
    """Whether the fold put a result in place of `event`'s that is over its tool's limit."""
    given = folded.event.result
    limit = outputs.limit(event.tool_name)
    return given is not event.result and limit is not None and len(given.content) > limit


async def bound_replaced(
    outputs: ToolOutputs, run_id: str, event: ToolResultEvent, folded: Folded[ToolResultEvent]
) -> None:
    """The result the fold put in place, cut and saved in the run's folder when over its
    tool's limit (as `ToolOutputs.bound` cuts the tool's own)."""
    given = folded.event.result
    if given is not event.result:
        call = ToolCall(id=event.call_id, name=event.tool_name, args=event.args)
        folded.event = replace(folded.event, result=await outputs.bound(run_id, call, given))
