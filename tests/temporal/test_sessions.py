"""Sessions on Temporal: a run of a session continues the conversation of the session's
newest run in a workflow of its own; sessions and their runs are listed through
visibility; a session whose newest run has not ended takes no new run."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from temporalio.client import Client

import hookagent as h
from hookagent.temporal import TemporalRuns, agent_worker
from hookagent.testing import ScriptedModel, reply
from temporal.test_runs import build, queue, waiting

pytestmark = pytest.mark.temporal


def chat() -> h.Agent:
    return (
        h.AgentBuilder()
        .model(ScriptedModel([reply("first"), reply("second")], by_history=True))
        .build()
    )


async def listed(runs: TemporalRuns, session: str, count: int) -> list[Any]:
    """The session's runs once visibility shows `count` of them ended."""
    for _ in range(200):
        found = await runs.runs(session)
        if len(found) == count and all(r.status == "completed" for r in found):
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"visibility never listed {count} ended runs: {found}")


async def test_a_session_continues_its_conversation_in_a_new_workflow(client: Client) -> None:
    session = f"s-{uuid.uuid4().hex[:8]}"
    agent = chat()
    async with agent_worker(client, agent, task_queue := queue()):
        runs = TemporalRuns(agent, client, task_queue)
        first = await runs.run("hello", session=session)
        second = await runs.run("and again", session=session)
    assert (first.output, second.output) == ("first", "second")
    assert [str(m.content) for m in second.state.messages] == [
        "hello",
        "first",
        "and again",
        "second",
    ]
    assert second.state.session_id == session
    found = await listed(runs, session, 2)
    assert [r.run_id for r in found] == [second.state.run_id, first.state.run_id]
    assert [r.prompt for r in found] == ["and again", "hello"]
    [row] = [s for s in await runs.sessions() if s["session"] == session]
    assert (row["runs"], row["head"]) == (2, second.state.run_id)


async def test_a_session_whose_newest_run_waits_or_left_no_result_takes_no_new_run(
    client: Client,
) -> None:
    session = f"s-{uuid.uuid4().hex[:8]}"
    agent = build("prod")
    async with agent_worker(client, agent, task_queue := queue()):
        runs = TemporalRuns(agent, client, task_queue)
        run_id = await runs.start("go", session=session)
        await waiting(runs, run_id)
        with pytest.raises(
            h.ConfigError, match=f"session {session} has a run that is not finished"
        ):
            await runs.start("more", session=session)
        await runs.answer(run_id, "q1", False, reason="no")
        assert (await runs.result(run_id)).status == "completed"
        cut = f"s-{uuid.uuid4().hex[:8]}"
        cut_run = await runs.start("go", session=cut)
        await waiting(runs, cut_run)
        await client.get_workflow_handle(cut_run).terminate("operator")
        with pytest.raises(h.ConfigError, match="workflow is terminated"):
            await runs.start("more", session=cut)
