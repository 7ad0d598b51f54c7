"""A run whose own code holds the event loop past its lease (blocking calls in a coroutine)
keeps its lease: renewal does not wait for the loop, so no other worker can claim the run
from a process that is alive and running it. A process frozen as a whole still loses it
(tests/store/test_takeover_cli.py)."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest

import hookagent as h
from hookagent.durable._loop_free import LoopFreeRenewal
from hookagent.durable._runner import DurableRuns
from hookagent.kernel._state import RunState
from hookagent.store._open import open_store
from hookagent.store._records import RunRecord
from hookagent.testing import ScriptedModel, reply, tool_call
from store.conftest import postgres_server
from store.test_takeover_cli import store_url

__all__ = ["postgres_server", "store_url"]

LEASE = 1.0


def claimed_by_another_worker(url: str) -> RunRecord | None:
    """What a worker polling the store gets when it tries to take session s's run now."""

    async def claim() -> RunRecord | None:
        store = open_store(url)
        await store.open()
        try:
            session = await store.session("s")
            assert session is not None and session.head_run_id is not None
            return await store.claim_run(session.head_run_id, "thief", time.time(), 60.0)
        finally:
            await store.close()

    return asyncio.run(claim())


async def test_code_holding_the_event_loop_past_the_lease_does_not_lose_it(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = store_url
    monkeypatch.setenv("HOOKAGENT_LEASE_SECONDS", str(LEASE))
    effects: list[str] = []
    taken: list[RunRecord | None] = []

    def thief() -> None:
        time.sleep(LEASE * 2)  # the loop has been held for two leases
        taken.append(claimed_by_another_worker(url))

    @h.tool
    async def build() -> str:
        """A coroutine that blocks: it holds the event loop for two and a half leases."""
        effects.append("build")
        other = threading.Thread(target=thief)
        other.start()
        time.sleep(LEASE * 2.5)  # noqa: ASYNC251 - holding the loop is the point
        other.join()
        return "built"

    model = ScriptedModel([tool_call("build", "c1"), reply("done")])
    store = open_store(url)
    agent = h.AgentBuilder().model(model).tools(build).store(store).build()
    try:
        result = await agent.run("go", session="s")
    finally:
        await store.close()
    assert taken == [None]  # the run was still held when the other worker tried
    assert result.status == "completed" and effects == ["build"]


async def test_a_renewal_off_the_loop_that_finds_the_lease_gone_marks_the_run_lost(
    tmp_path: Path,
) -> None:
    store = open_store(tmp_path / "sessions.db")
    runs = DurableRuns(store, "v1", worker="me")
    durable = await runs.start("go", RunState(run_id="r1"), "s")
    assert await store.claim_run("r1", "thief", time.time() + 3600, 60.0) is not None
    renewal = LoopFreeRenewal(store, durable, 0.3)  # type: ignore[arg-type]
    try:
        for _ in range(200):
            if durable.lost:
                break
            time.sleep(0.01)  # noqa: ASYNC251 - the loop is held: only the thread can tell
    finally:
        await renewal.stop()
    assert durable.lost
    with pytest.raises(h.LeaseLost, match="me no longer holds it, thief took the run over"):
        await durable.barrier(RunState(run_id="r1"))
    await store.close()
