"""A sync function called through a gate runs on a worker thread, as an agent's sync tools
do: the caller's event loop runs on while it works, and cancelling the call abandons it."""

from __future__ import annotations

import asyncio
import threading

import pytest

from hookagent._threads import ABANDONED
from hookagent.gate import ToolGate


async def test_the_loop_runs_on_while_a_sync_function_works() -> None:
    release = threading.Event()
    ticks = 0

    def slow() -> tuple[bool, str]:
        return release.wait(5), threading.current_thread().name

    async def tick() -> None:
        nonlocal ticks
        while ticks < 5:
            await asyncio.sleep(0.01)
            ticks += 1
        release.set()

    ticker = asyncio.create_task(tick())
    result = await ToolGate().call("slow", {}, execute=slow)
    await ticker
    released, thread = result.value
    assert released, "the loop was held while the function worked"
    assert thread.startswith("hookagent-worker")


async def test_blocking_false_calls_a_sync_function_on_the_loop() -> None:
    gate = ToolGate()
    result = await gate.call("here", {}, execute=threading.current_thread, blocking=False)
    assert result.value is threading.current_thread()

    @gate.wrap(blocking=False)
    def where() -> str:
        return threading.current_thread().name

    def call_where() -> tuple[str, str]:  # from a thread with no loop, as sync code calls it
        return where(), threading.current_thread().name

    ran, caller = await asyncio.to_thread(call_where)
    assert ran == caller


async def test_a_cancelled_call_abandons_its_thread_and_says_so() -> None:
    started, release = threading.Event(), threading.Event()

    def slow() -> str:
        started.set()
        release.wait(10)
        return "done"

    task = asyncio.create_task(ToolGate().call("slow", {}, execute=slow))
    try:
        assert await asyncio.to_thread(started.wait, 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError) as raised:
            await task
        assert ABANDONED in getattr(raised.value, "__notes__", ())
    finally:
        release.set()
