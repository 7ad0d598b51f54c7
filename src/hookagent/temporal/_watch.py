"""Watching a run on Temporal: its live view's events, polled from the workflow.

The watcher keeps a cursor (how many events it has seen) and asks the run's `events` query
for what came since, every `interval` seconds until the run ends. A query reads and changes
nothing, adds nothing to the run's history, and reaches a closed execution too (a worker
replays it to answer). Polling is chosen over an update that waits for the next event: each
update is written to the run's history (and would hasten continue-as-new), and a closed
execution takes no update, so no watcher could read the end of one.

Across continue-as-new the run keeps its workflow id and numbers its events on: when the
newest execution starts past the cursor, the events in between are read from the execution
it continued from (`previous`, back as far as needed). When the run ends, the rest of its
events come from its last execution, then `RunFinished`.

A query a worker fails to answer (one that has just closed the execution, or is replaying
it, may) is asked again, `TRIES` times in all, before the watch fails with its error.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any, Final, final

from temporalio.client import Client, WorkflowHandle, WorkflowQueryFailedError

from hookagent.kernel._result import RunResult
from hookagent.live._events import QuestionWaiting, RunFinished, StreamEvent
from hookagent.temporal._live import decode
from hookagent.temporal._workflow import AgentRun

__all__ = ["TRIES", "watch"]

TRIES: Final = 3


async def watch(
    client: Client,
    run_id: str,
    finish: Callable[[str], RunResult[Any]],
    *,
    since: int = 0,
    interval: float = 0.2,
) -> AsyncIterator[StreamEvent]:
    """Run `run_id`'s events from number `since` on, each question as it starts waiting,
    then `RunFinished` with `finish` of its final state (`RunState.to_json`)."""
    ended = asyncio.ensure_future(client.get_workflow_handle(run_id).result())
    follow = _Follow(client, run_id, since)
    try:
        while True:
            over = ended.done()  # before the query: then it reads the last events
            events, questions = await follow.read(None)
            for event in events:
                yield event
            for question in questions:
                yield QuestionWaiting(run_id, question)
            if over:
                break
            await asyncio.wait({ended}, timeout=interval)
        yield RunFinished(finish(ended.result()))
    finally:
        ended.cancel()
        await asyncio.wait({ended})
        if not ended.cancelled():
            ended.exception()  # read: a failure the watch did not raise is not logged later


@final
class _Follow:
    """What a watcher has seen of one run: its cursor, and the questions it was shown."""

    def __init__(self, client: Client, run_id: str, since: int) -> None:
        self._client, self._run_id = client, run_id
        self.cursor = since
        self._asked: set[str] = set()

    async def read(self, execution: str | None) -> tuple[list[StreamEvent], list[dict[str, Any]]]:
        """Every event from the cursor to the end of `execution` (None: the newest), the
        executions it continued from first; and the questions it waits on not shown yet."""
        handle = self._client.get_workflow_handle(self._run_id, run_id=execution)
        found: list[StreamEvent] = []
        while True:
            page = await _query(handle, self.cursor)
            if page["first"] > self.cursor:  # it continued as new since the last read
                if page["previous"] is None:
                    raise ValueError(f"run {self._run_id} has no event {self.cursor}")
                found += (await self.read(page["previous"]))[0]
            found += [decode(data) for data in page["events"]]
            self.cursor = page["next"]
            if self.cursor >= page["end"]:
                break
        waiting = [q for q in page["questions"] if q["id"] not in self._asked]
        self._asked.update(q["id"] for q in waiting)
        return found, waiting


async def _query(handle: WorkflowHandle[Any, Any], since: int) -> dict[str, Any]:
    """The run's `events` page from `since`, asked up to `TRIES` times."""
    tried = 1
    while True:
        try:
            return await handle.query(AgentRun.events, since)
        except WorkflowQueryFailedError:
            if tried == TRIES:
                raise
            await asyncio.sleep(0.2 * tried)
            tried += 1
