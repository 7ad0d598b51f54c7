"""What each barrier of a durable run writes: a barrier within a segment writes the run's
scalars as they stood when its segment began (they are encoded once a turn); a pause and
the end write them as they stand; a resumed run reads its checkpoint's."""

from __future__ import annotations

import json
from typing import Any

import hookagent as h
from hookagent.store import Flush, MemoryStore
from hookagent.testing import ScriptedModel, reply, turn


class Recording(MemoryStore):
    def __init__(self) -> None:
        super().__init__()
        self.flushes: list[Flush] = []

    async def flush(self, flush: Flush) -> None:
        self.flushes.append(flush)
        await super().flush(flush)


@h.tool
def echo(text: str) -> str:
    """Echo the text."""
    return text


def agent(store: MemoryStore, steps: int) -> h.Agent:
    turns: list[Any] = [
        turn("", {"name": "echo", "args": {"text": f"t{i}"}, "id": f"c{i}"}) for i in range(steps)
    ]
    model = ScriptedModel([*turns, reply("done")])
    return h.AgentBuilder().model(model).tools(echo).store(store).build()


async def test_barriers_within_a_segment_keep_its_scalars_and_the_end_writes_fresh_ones() -> None:
    store = Recording()
    result = await agent(store, 3).run("go", session="s")
    assert result.status == "completed"
    *within, end = store.flushes
    for flush in within:
        assert flush.status in ("queued", "running")
        if flush.checkpoint is not None:
            assert flush.scalars == flush.checkpoint.scalars
            segment_scalars = flush.scalars
        else:
            assert flush.scalars == segment_scalars
    scalars = json.loads(end.scalars)
    assert (end.status, scalars["status"], scalars["output"]) == ("completed", "completed", "done")
    assert scalars["usage"]["requests"] == 4
    run = await store.run(result.run_id)
    assert run is not None and run.scalars == end.scalars


async def test_a_pause_writes_the_scalars_as_they_stand() -> None:
    store = Recording()

    def ask(event: h.ToolCallEvent) -> h.HookResult:
        return h.HookResult.ask("Echo?")

    model = ScriptedModel(
        [turn("", {"name": "echo", "args": {"text": "t"}, "id": "c0"}), reply("done")]
    )
    built = h.AgentBuilder().model(model).tools(echo).store(store).on(h.BEFORE_TOOL, ask).build()
    result = await built.run("go", session="s")
    assert result.status == "waiting"
    paused = next(f for f in store.flushes if f.questions)
    assert paused.status == "waiting"
    assert json.loads(paused.scalars)["status"] == "waiting"
    position = json.loads(paused.scalars)["position"]
    assert (position["phase"], position["call_id"]) == ("tool", "c0")
