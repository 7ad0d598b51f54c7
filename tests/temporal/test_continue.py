"""A run whose history grows past the worker's limit continues as new at its next turn, and
ends as the same run uninterrupted: messages, decisions, calls, and approvals in scope."""

from __future__ import annotations

import pytest
from temporalio.client import Client

from hookagent.temporal import TemporalRuns, agent_worker
from temporal.test_runs import build, queue, replays, shape, waiting

pytestmark = pytest.mark.temporal


async def executions(client: Client, run_id: str) -> int:
    """How many workflow executions the run took (each replays without nondeterminism)."""
    count, execution = 0, None
    while True:
        handle = client.get_workflow_handle(run_id, run_id=execution)
        history = await handle.fetch_history()
        await replays(client, run_id, history)
        count += 1
        started = history.events[0].workflow_execution_started_event_attributes
        execution = started.continued_execution_run_id or None
        if execution is None:
            return count


async def test_a_long_run_continues_as_new_and_ends_as_one_run_uninterrupted(
    client: Client,
) -> None:
    envs = [f"staging-{i}" for i in range(6)]
    local = await build(*envs).run("go")
    agent = build(*envs)
    async with agent_worker(client, agent, task_queue := queue(), history=20):
        runs = TemporalRuns(agent, client, task_queue)
        run_id = await runs.start("go")
        result = await runs.result(run_id)
        calls = await runs.calls(run_id)
    assert shape(result) == shape(local)
    assert len(calls) == 6 and {c["state"] for c in calls.values()} == {"done"}
    assert await executions(client, run_id) >= 3


async def test_an_approval_of_scope_run_reaches_past_a_continue_as_new(client: Client) -> None:
    agent = build("prod", "prod", "prod", "prod")
    async with agent_worker(client, agent, task_queue := queue(), history=20):
        runs = TemporalRuns(agent, client, task_queue)
        run_id = await runs.start("go")
        await waiting(runs, run_id)
        await runs.answer(run_id, "q1", True, scope="run", by="ops")
        result = await runs.result(run_id)
    assert [c.result.content.split("\n")[0] for c in result.tool_calls] == ["deployed to prod"] * 4
    covered = [d for d in result.decisions if "approval (scope run)" in str(d)]
    assert len(covered) == 3, result.decisions
    assert await executions(client, run_id) >= 2
