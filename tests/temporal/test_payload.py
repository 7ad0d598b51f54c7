"""A run whose payloads outgrow the limit a worker is given (`payload_limit`; the server's
own is 2 MiB): a model request over it fails the run with an error naming the run, the
size and what to do, never the server's; a state too large to continue as new keeps the
run going in its workflow."""

from __future__ import annotations

import pytest
from temporalio.client import Client

import hookagent as h
from hookagent.temporal import TemporalRuns, agent_worker
from hookagent.testing import ScriptedModel, reply
from temporal.test_runs import build, queue, replays

pytestmark = pytest.mark.temporal


async def test_a_model_request_over_the_payload_limit_fails_the_run_saying_why(
    client: Client,
) -> None:
    agent = h.AgentBuilder().model(ScriptedModel([reply("never")])).build()
    async with agent_worker(client, agent, task_queue := queue(), payload_limit=2000):
        runs = TemporalRuns(agent, client, task_queue)
        run_id = await runs.start("x" * 3000)
        result = await runs.result(run_id)
        small = await runs.run("short")
    assert (result.status, result.stop_reason) == ("failed", "error")
    error = str(result.state.error)
    assert f"run {run_id}: the model request is " in error
    assert "over the 2000-byte payload limit" in error
    assert "Summarization" in error
    assert small.output == "never"  # under the limit, the same worker runs it


@pytest.mark.parametrize(("limit", "continued"), [(4000, False), (2_000_000, True)])
async def test_a_state_over_the_limit_does_not_continue_as_new_and_the_run_goes_on(
    client: Client, limit: int, continued: bool
) -> None:
    """Each model request of this run is under 4000 bytes; its state, to continue as new
    with, is over."""
    local = await build(*["staging"] * 6).run("go")
    agent = build(*["staging"] * 6)
    async with agent_worker(client, agent, queue_ := queue(), history=20, payload_limit=limit):
        runs = TemporalRuns(agent, client, queue_)
        run_id = await runs.start("go")
        result = await runs.result(run_id)
        last = await client.get_workflow_handle(run_id).fetch_history()
    assert result.output == local.output == "ok"
    assert len(result.tool_calls) == 6
    assert result.status == "completed"
    started = last.events[0].workflow_execution_started_event_attributes
    assert bool(started.continued_execution_run_id) is continued
    await replays(client, run_id)
