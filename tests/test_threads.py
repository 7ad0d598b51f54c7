"""The worker threads that run blocking user code: results, errors, context, abandonment."""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest

from hookagent._threads import ABANDONED, abandoned, in_thread

WHO: contextvars.ContextVar[str] = contextvars.ContextVar("who", default="nobody")


async def test_a_call_runs_on_a_daemon_thread_and_returns_its_value() -> None:
    def where(x: int, *, y: int) -> tuple[int, bool, int]:
        thread = threading.current_thread()
        return thread.ident or 0, thread.daemon, x + y

    ident, daemon, total = await in_thread(where, 1, y=2)
    assert (daemon, total) == (True, 3)
    assert ident != threading.get_ident()


async def test_errors_and_the_callers_context_travel() -> None:
    def fail() -> None:
        raise ValueError(WHO.get())

    WHO.set("caller")
    with pytest.raises(ValueError, match="caller"):
        await in_thread(fail)


async def test_stop_iteration_becomes_an_error_instead_of_hanging() -> None:
    def stop() -> None:
        raise StopIteration("empty")

    with pytest.raises(RuntimeError, match="StopIteration raised in a worker thread: empty"):
        await asyncio.wait_for(in_thread(stop), 5)


async def test_a_cancelled_wait_abandons_the_call_and_says_so() -> None:
    release, finished = threading.Event(), threading.Event()

    def stuck() -> str:
        release.wait(10)
        finished.set()
        return "late"

    task = asyncio.create_task(in_thread(stuck))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError) as caught:
        await task
    assert abandoned(caught.value) and ABANDONED in caught.value.__notes__
    assert not finished.is_set(), "the call runs on, abandoned"
    # a stuck call never starves the next one: another thread takes it
    assert await asyncio.wait_for(in_thread(lambda: "next"), 5) == "next"
    release.set()
    assert await asyncio.to_thread(finished.wait, 5)


async def test_many_calls_at_once_all_finish() -> None:
    gate = threading.Barrier(8, timeout=5)
    results = await asyncio.gather(*(in_thread(gate.wait) for _ in range(8)))
    assert sorted(results) == list(range(8))
