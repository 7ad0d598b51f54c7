"""A cancelled run stops where it is, says so, and never reports itself completed."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

import hookagent as h
from hookagent._threads import ABANDONED
from hookagent.live._events import StreamEvent
from hookagent.store import MemoryStore
from hookagent.testing import ScriptedModel, reply, turn


class Gate:
    """A sync tool that blocks until released, telling the test when it has started."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.runs = 0

        @h.tool
        def slow(label: str) -> str:
            """Work for a while."""
            self.runs += 1
            self.started.set()
            self.release.wait(10)
            return f"did {label}"

        self.tool = slow

    async def wait_started(self) -> None:
        assert await asyncio.to_thread(self.started.wait, 10), "the tool never started"


@pytest.fixture
def gate() -> Iterator[Gate]:
    made = Gate()
    yield made
    made.release.set()  # the abandoned thread ends with the test


def two_calls() -> ScriptedModel:
    return ScriptedModel(
        [
            turn(
                "Working.",
                {"name": "slow", "args": {"label": "a"}, "id": "c1"},
                {"name": "slow", "args": {"label": "b"}, "id": "c2"},
            ),
            reply("done"),
        ]
    )


def agent(
    gate: Gate, model: ScriptedModel, ended: list[h.RunView] | None = None, **kw: Any
) -> h.Agent:
    builder = h.AgentBuilder().model(model).tools(gate.tool)
    if "store" in kw:
        builder.store(kw["store"])
    if ended is not None:
        builder.on(h.EXECUTION_END, lambda e: ended.append(e.run), name="ended")
        builder.on(h.SESSION_END, lambda e: ended.append(e.run), name="session_ended")
    if "reasons" in kw:
        builder.on(h.SESSION_END, lambda e: kw["reasons"].append(e.source), name="reason")
    return builder.build()


async def test_task_cancel_mid_sync_tool_stops_the_run_as_cancelled(gate: Gate) -> None:
    ended: list[h.RunView] = []
    reasons: list[str] = []
    task = asyncio.create_task(agent(gate, two_calls(), ended, reasons=reasons).run("go"))
    await gate.wait_started()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert task.cancelled()
    run, closed = ended  # execution_end saw the run stopped, not completed; session_end too
    assert closed is run
    assert (run.status, run.stop_reason) == ("stopped", "user_requested")
    (step,) = run.steps
    first, second = step.executions
    assert first.result.is_error and first.result.content.startswith("Interrupted")
    assert ABANDONED in first.result.content
    assert first.result.data == {"state": "interrupted", "call_id": "c1"}
    assert second.result.content == "Not run: the run was cancelled before this call."
    assert gate.runs == 1
    assert reasons == ["prompt_input_exit"]  # the user left, as Claude Code says it


async def test_a_cancelled_stream_yields_the_stopped_result_then_is_cancelled(gate: Gate) -> None:
    seen: list[StreamEvent] = []

    async def consume() -> None:
        async for event in agent(gate, two_calls()).stream("go"):
            seen.append(event)

    task = asyncio.create_task(consume())
    await gate.wait_started()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    finished = [e for e in seen if isinstance(e, h.RunFinished)]
    assert len(finished) == 1 and seen[-1] is finished[0]
    result = finished[0].result
    assert (result.status, result.stop_reason) == ("stopped", "user_requested")
    assert result.stop_message == "cancelled"
    shown = [e.execution.result.content[:11] for e in seen if isinstance(e, h.ToolFinished)]
    assert shown == ["Interrupted", "Not run: th"]
    assert any(isinstance(e, h.StepFinished) for e in seen)


async def test_an_async_tool_is_cancelled_with_the_run_and_no_thread_is_left() -> None:
    entered = asyncio.Event()

    @h.tool
    async def wait() -> str:
        """Wait forever."""
        entered.set()
        await asyncio.Event().wait()
        return "never"

    ended: list[h.RunEvent] = []
    model = ScriptedModel([turn("", {"name": "wait", "args": {}}), reply("done")])
    built = h.AgentBuilder().model(model).tools(wait).on(h.EXECUTION_END, ended.append).build()
    task = asyncio.create_task(built.run("go"))
    await entered.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    result = ended[0].run.steps[0].executions[0].result
    assert result.content.startswith("Interrupted") and ABANDONED not in result.content


async def test_a_timeout_around_run_still_raises_timeout_error(gate: Gate) -> None:
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.2):
            await agent(gate, two_calls()).run("go")
    assert gate.runs == 1


async def test_a_cancelled_durable_run_is_left_resumable_with_the_call_in_doubt(gate: Gate) -> None:
    store = MemoryStore()
    ended: list[h.RunView] = []
    reasons: list[str] = []
    model = two_calls()
    cancellable = agent(gate, model, ended, store=store, reasons=reasons)
    task = asyncio.create_task(cancellable.run("go", session="s"))
    await gate.wait_started()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert reasons == ["prompt_input_exit"], "the process left the session all the same"
    assert len(ended) == 1, "session_end only: a durable run has not ended, no execution_end"
    session = await store.session("s")
    assert session is not None and session.head_run_id is not None
    run = await store.run(session.head_run_id)
    assert run is not None and run.status == "running"
    assert run.lease_until < time.time(), "the lease was released"
    rows = await store.load(run.id)
    assert rows is not None
    assert {c.call_id: c.state for c in rows.calls}["c1"] == "started"
    gate.release.set()
    resumed = await agent(gate, model, ended, store=store, reasons=reasons).resume(run.id)
    assert resumed.status == "completed"
    assert reasons == ["prompt_input_exit", "other"]
    assert [view.status for view in ended[1:]] == ["completed", "completed"]  # at its end
    first, second = resumed.steps[0].executions
    assert first.result.content.startswith("In doubt")
    assert second.result.content == "did b"
    assert gate.runs == 2  # c1 once (abandoned, not run again), c2 once


class Together:
    """An async tool whose calls run at the same time; `wait=True` ones never end."""

    name = "together"
    description = "Run alongside the others."
    parameters: ClassVar[dict[str, Any]] = {"type": "object", "properties": {"wait": {}}}
    concurrent = True

    def __init__(self) -> None:
        self.waiting = asyncio.Event()

    async def __call__(self, args: Any, ctx: Any, /) -> h.ToolResult:
        if args.get("wait"):
            self.waiting.set()
            await asyncio.Event().wait()
        return h.ToolResult(content="quick one done")


async def test_calls_running_together_keep_what_they_finished_when_cancelled() -> None:
    tool, ended = Together(), list[h.RunEvent]()
    model = ScriptedModel(
        [
            turn(
                "",
                {"name": "together", "args": {"wait": True}, "id": "c1"},
                {"name": "together", "args": {}, "id": "c2"},
            ),
            reply("done"),
        ]
    )
    built = h.AgentBuilder().model(model).tools(tool).on(h.EXECUTION_END, ended.append).build()
    task = asyncio.create_task(built.run("go"))
    await tool.waiting.wait()
    await asyncio.sleep(0.01)  # the quick call ends meanwhile
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    waited, quick = ended[0].run.steps[0].executions
    assert waited.result.content.startswith("Interrupted")
    assert quick.result.content == "quick one done"
