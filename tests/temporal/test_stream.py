"""A run on Temporal, watched: the same events as `Agent.stream` in memory (no deltas), in
order and once each, for a watcher that started it, one that came in mid-run, and across
continue-as-new; a waiting question shown, then the run going on once answered."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from rich.console import Console
from temporalio.client import Client
from temporalio.service import RPCError

import hookagent as h
from hookagent import live
from hookagent.cli._render import LiveRenderer
from hookagent.live import QuestionWaiting, StreamEvent
from hookagent.temporal import TemporalRuns, agent_worker
from temporal.test_continue import executions
from temporal.test_runs import build, io_agent, queue, waiting

pytestmark = pytest.mark.temporal


def seen(event: StreamEvent) -> tuple[Any, ...]:
    """What two runs of the same script show alike: no ids of runs, times or durations."""
    kind = type(event).__name__
    if isinstance(event, live.StepStarted):
        return (kind, event.step)
    if isinstance(event, live.ModelReplied):
        message = event.response.message
        return (kind, event.step, message.content, [c.name for c in message.tool_calls])
    if isinstance(event, live.ToolStarted):
        return (kind, event.step, event.call_id, event.name, dict(event.args))
    if isinstance(event, live.ToolFinished):
        return (kind, event.step, event.execution.call_id, event.execution.result.content)
    if isinstance(event, live.DecisionMade):
        return (kind, event.decision.point, event.decision.hook, event.decision.outcome)
    if isinstance(event, live.StepFinished):
        return (kind, event.record.index, len(event.record.executions))
    if isinstance(event, QuestionWaiting):
        return (kind, event.question["id"], event.question["tool_name"])
    assert isinstance(event, live.RunFinished), event
    return (kind, event.result.status, event.result.output)


async def in_memory(agent: h.Agent) -> list[tuple[Any, ...]]:
    """The events of the run in memory, whole replies, every question approved."""
    approve = h.Answer(approved=True, by="ops")
    return [seen(e) async for e in agent.stream("go", deltas=False, approver=lambda _: approve)]


async def listed(events: AsyncIterator[StreamEvent]) -> list[tuple[Any, ...]]:
    return [seen(event) async for event in events]


def rendered(event: StreamEvent) -> str:
    """The line `hookagent run` prints for `event`."""
    out = io.StringIO()
    LiveRenderer(Console(file=out, soft_wrap=True, no_color=True)).show(event)
    return out.getvalue()


@pytest.mark.parametrize(
    "make",
    [lambda: build("staging", "dev"), lambda: io_agent("staging", "qa")],
    ids=["in the workflow", "folds in activities"],
)
async def test_a_streamed_run_shows_what_agent_stream_shows_in_memory(
    client: Client, make: Callable[[], h.Agent]
) -> None:
    """Also when hooks that may do I/O fold in an activity (one rewrites a call, one blocks
    one): the live view's observers see each fold's outcome in the workflow."""
    expected = await in_memory(make())
    agent = make()
    async with agent_worker(client, agent, task_queue := queue()):
        runs = TemporalRuns(agent, client, task_queue)
        streamed = await listed(runs.stream("go", interval=0.05))
    assert streamed == expected
    kinds = [event[0] for event in streamed]
    assert {
        "ToolStarted",
        "ToolFinished",
        "DecisionMade",
        "ModelReplied",
    } <= set(kinds)
    assert kinds[-1] == "RunFinished" and kinds.count("RunFinished") == 1


async def test_a_waiting_question_is_shown_then_the_run_goes_on_once_answered(
    client: Client,
) -> None:
    expected = await in_memory(build("staging", "prod"))
    agent = build("staging", "prod")
    async with agent_worker(client, agent, task_queue := queue()):
        runs = TemporalRuns(agent, client, task_queue)
        run_id = await runs.start("go")
        await waiting(runs, run_id)  # mid-run: the first call is done, the second asks
        first, late = runs.watch(run_id, interval=0.05), runs.watch(run_id, since=3)
        shown: list[tuple[Any, ...]] = []
        async for event in first:
            shown.append(seen(event))
            if isinstance(event, QuestionWaiting):
                assert event.run_id == run_id and event.question["args"] == {"env": "prod"}
                assert f"waiting for an answer: Deploy? (question q1 of run {run_id})" in (
                    rendered(event)
                )
                await runs.answer(run_id, event.question["id"], True, by="ops")
        rest = await listed(late)
    question = ("QuestionWaiting", "q1", "deploy")
    assert shown.count(question) == 1
    assert [e for e in shown if e != question] == expected
    asked = shown.index(question)  # after the call was planned and before it ran
    assert shown[asked - 1][0] == "ToolStarted" and shown[asked + 1][0] == "DecisionMade"
    assert rest == expected[3:]  # a watcher from the fourth event on sees the rest


async def test_a_watcher_follows_the_run_across_continue_as_new(client: Client) -> None:
    envs = [f"staging-{i}" for i in range(6)]
    expected = await in_memory(build(*envs))
    agent = build(*envs)
    async with agent_worker(client, agent, task_queue := queue(), history=20):
        runs = TemporalRuns(agent, client, task_queue)
        run_id = await runs.start("go")
        slow = runs.watch(run_id, interval=0.5)  # falls behind the executions' ends
        streamed = [seen(await anext(slow))]
        await asyncio.sleep(1.0)
        streamed += await listed(slow)
        fresh = await listed(runs.watch(run_id))  # after the end: every execution's events
    assert await executions(client, run_id) >= 3
    assert streamed == expected
    assert fresh == expected


async def test_watching_a_run_that_does_not_exist_fails_naming_it(client: Client) -> None:
    agent = build("staging")
    runs = TemporalRuns(agent, client, queue())
    with pytest.raises(RPCError, match="workflow not found for ID: nope"):
        await anext(runs.watch("nope"))
