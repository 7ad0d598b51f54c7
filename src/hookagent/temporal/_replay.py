"""A run on Temporal as `sessions.replay` replays it: its prompt, the model's replies, each
executed call's result and the decisions made, read from the run's final state in its
workflow history (a query while it still runs)."""

from __future__ import annotations

from temporalio.client import Client

from hookagent._messages import AssistantMessage
from hookagent.sessions._replay import Recording
from hookagent.temporal._sessions import inspect

__all__ = ["recording"]


async def recording(client: Client, run_id: str) -> Recording:
    """What run `run_id` did, for a replay through other hooks."""
    entry, state, _ = await inspect(client, run_id)
    return Recording(
        run_id=run_id,
        prompt=entry.prompt,
        replies=[m for m in state.messages if isinstance(m, AssistantMessage)],
        results={e.call_id: e.result for s in state.steps for e in s.executions if not e.blocked},
        decisions=list(state.decisions),
    )
