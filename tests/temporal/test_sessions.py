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
from hookagent.testing import ScriptedModel, reply, turn
from temporal.test_runs import build, deploy, queue, waiting

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


def deploying(runs_: int) -> h.Agent:
    """An agent asking before each prod deploy, for `runs_` runs of one session."""
    script = [turn("", {"name": "deploy", "args": {"env": "prod"}, "id": "c1"}), reply("ok")]
    return build_with(script * runs_)


def build_with(script: list[Any]) -> h.Agent:
    def ask(event: h.ToolCallEvent) -> h.HookResult:
        return h.HookResult.ask("Deploy?")

    return (
        h.AgentBuilder()
        .model(ScriptedModel(script))
        .tools(deploy)
        .on(h.BEFORE_TOOL, ask, name="ask")
        .build()
    )


async def answered_in(runs: TemporalRuns, session: str, approved: bool, **answer: Any) -> Any:
    """Run 1 of `session` asks and is answered; run 2 of the session starts: what it does."""
    first = await runs.start("deploy", session=session)
    await waiting(runs, first)
    await runs.answer(first, "q1", approved, **answer)
    assert (await runs.result(first)).status == "completed"
    await asyncio.sleep(0.6)  # past a ttl of 0.5 s
    return await runs.start("deploy again", session=session)


async def test_an_approval_of_scope_session_covers_the_call_in_the_sessions_next_runs(
    client: Client,
) -> None:
    agent = deploying(3)
    async with agent_worker(client, agent, task_queue := queue()):
        runs = TemporalRuns(agent, client, task_queue)
        session = f"s-{uuid.uuid4().hex[:8]}"
        second = await answered_in(runs, session, True, scope="session", by="ops")
        result = await runs.result(second)  # not asked: the approval of run 1 covers it
        third = await runs.result(await runs.start("once more", session=session))
    for ran in (result, third):
        assert ran.status == "completed"
        assert ran.tool_calls[0].result.content.startswith("deployed to prod")
        assert any("ops via approval (scope session)" in str(d) for d in ran.decisions)


async def test_a_denial_or_an_approval_of_scope_run_or_past_its_ttl_does_not_carry(
    client: Client,
) -> None:
    agent = deploying(2 * 3)
    async with agent_worker(client, agent, task_queue := queue()):
        runs = TemporalRuns(agent, client, task_queue)
        for approved, answer in [
            (False, {"reason": "no"}),
            (True, {"scope": "run"}),
            (True, {"scope": "session", "ttl": 0.5}),
        ]:
            session = f"s-{uuid.uuid4().hex[:8]}"
            second = await answered_in(runs, session, approved, **answer)
            [question] = await waiting(runs, second)  # asked again
            assert question["tool_name"] == "deploy"
            await runs.answer(second, "q1", False, reason="done")
            await runs.result(second)
