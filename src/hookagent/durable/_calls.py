"""`JournaledCalls`: a run's tool calls, exactly once across crashes and takeovers.

Each call is journaled as `planned` (the reply asked for it), `approved` (before_tool let it
through), `started` (durable before the tool runs) and `done`/`failed` with its result. A
segment run again takes a result it finds in the journal; a call found started but never
ended is in doubt, and `in_doubt.settle_doubt` decides what becomes of it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, final

from hookagent._messages import ToolCall
from hookagent.durable import _codec as codec
from hookagent.durable._in_doubt import settle_doubt
from hookagent.durable._reconcile import RECONCILE, note
from hookagent.durable._seam import Journal
from hookagent.kernel._context import RunContext
from hookagent.kernel._seams import RunTool
from hookagent.tools._base import ToolResult

__all__ = ["JournaledCalls"]


@final
@dataclass(frozen=True, slots=True)
class JournaledCalls:
    """The `CallLog` of a run kept in `journal`."""

    journal: Journal

    def planned(self, step: int, calls: Sequence[ToolCall], /) -> None:
        for call in calls:
            self.journal.call(call.id, step, call.name, call.args, "planned")

    async def execute(
        self,
        ctx: RunContext,
        call: ToolCall,
        args: Mapping[str, Any],
        attempt: int,
        run: RunTool,
        /,
    ) -> tuple[ToolResult, int]:
        """Exactly once: a result this segment already got is taken from the journal; a call
        that was started but never recorded as ended is in doubt and is not simply run again;
        otherwise `started` is made durable before the tool runs, and its result after."""
        journal, state = self.journal, ctx.state
        journal.call(call.id, state.position.step, call.name, args, "approved")
        key = journal.key("tool", state.position.step, call.id)
        settled = journal.key(RECONCILE, state.position.step, call.id)
        entry = journal.find(key)
        if entry is not None:
            if (reconciled := journal.find(settled)) is not None:  # as the first pass had it
                note(ctx, codec.load("decision", reconciled.data))
            recorded: ToolResult = codec.load("result", entry.data)
            return recorded, attempt
        if call.id in journal.doubtful:
            journal.doubtful.discard(call.id)
            doubt = await settle_doubt(ctx, call, args, journal, settled)
            if doubt is not None:
                journal.record(key, "tool", codec.dump("result", doubt))
                return doubt, attempt
        journal.call(call.id, state.position.step, call.name, args, "started")
        await journal.barrier(state)  # a crash from here on leaves the call in doubt
        result, attempt = await run(ctx, call, args, attempt)
        data, result = codec.stored("result", result)  # what a resumed run will read
        journal.record(key, "tool", data)
        journal.finish_call(call.id, "failed" if result.is_error else "done", data)
        await journal.barrier(state)
        return result, attempt
