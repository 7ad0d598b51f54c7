"""An agent's run on a Temporal worker: the same result and records as in memory, questions
answered by an update or by their default, and the calls' states."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from temporalio.client import Client, WorkflowHistory, WorkflowUpdateFailedError
from temporalio.worker import Replayer

import hookagent as h
from hookagent.temporal import TemporalRuns, agent_worker
from hookagent.temporal._workflow import AgentRun
from hookagent.testing import ScriptedModel, reply, turn

pytestmark = pytest.mark.temporal


@h.tool
def deploy(env: str) -> str:
    """Deploy to an environment."""
    return f"deployed to {env}"


def deploys(*envs: str) -> list[Any]:
    return [
        turn("", {"name": "deploy", "args": {"env": e}, "id": f"c{i}"}) for i, e in enumerate(envs)
    ]


def build(*envs: str, timeout: float | None = None, default: str = "deny") -> h.Agent:
    def ask(event: h.ToolCallEvent) -> h.HookResult | None:
        if not event.args["env"].startswith("prod"):
            return None
        return h.HookResult.ask("Deploy?", timeout=timeout, default=default)

    def note(event: h.ToolResultEvent) -> h.HookResult:
        return h.HookResult.context(f"{event.tool_name} ran")

    return (
        h.AgentBuilder()
        .model(ScriptedModel([*deploys(*envs), reply("ok")], by_history=True))
        .tools(deploy)
        .on(h.BEFORE_TOOL, ask, name="ask")
        .on(h.AFTER_TOOL, note, name="note")
        .build()
    )


async def replays(client: Client, run_id: str, history: WorkflowHistory | None = None) -> None:
    """The run's history (its newest execution's by default) replays through the workflow
    with no nondeterminism error."""
    history = history or await client.get_workflow_handle(run_id).fetch_history()
    await Replayer(workflows=[AgentRun]).replay_workflow(history)


def queue() -> str:
    return f"q-{uuid.uuid4().hex[:8]}"


def shape(result: h.RunResult[Any]) -> Any:
    """What two runs of the same script must share: no ids, times or durations."""
    return (
        result.status,
        result.stop_reason,
        result.output,
        [(m.role, str(getattr(m, "content", ""))) for m in result.state.messages],
        [(d.point, d.hook, d.outcome, d.reason, tuple(d.contexts)) for d in result.decisions],
        [(c.name, dict(c.args), c.result.content) for c in result.tool_calls],
    )


async def test_a_run_with_a_tool_call_ends_as_the_same_run_in_memory(client: Client) -> None:
    local = await build("staging").run("go")
    agent = build("staging")
    async with agent_worker(client, agent, task_queue := queue()):
        runs = TemporalRuns(agent, client, task_queue)
        run_id = await runs.start("go")
        result = await runs.result(run_id)
        assert shape(result) == shape(local)
        assert result.status == "completed" and result.output == "ok"
        assert await runs.calls(run_id) == {"c0": {"step": 1, "name": "deploy", "state": "done"}}
        queried = await runs.decisions(run_id)
        assert [(d.point, d.hook) for d in queried] == [(d.point, d.hook) for d in result.decisions]


def gated(verdict: str) -> h.Agent:
    """An agent whose before_tool hook `gate` says `verdict`: agents of both verdicts have
    the same policy version (the same hook names and tools), and other code."""

    def gate(event: h.ToolCallEvent) -> h.HookResult:
        if verdict == "block":
            return h.HookResult.block("not here")
        return h.HookResult.context("checked")

    return (
        h.AgentBuilder()
        .model(ScriptedModel([*deploys("staging"), reply("ok")], by_history=True))
        .tools(deploy)
        .on(h.BEFORE_TOOL, gate, name="gate")
        .build()
    )


async def test_two_agents_of_one_policy_version_in_one_process_run_their_own_hooks(
    client: Client,
) -> None:
    mine, other = gated("context"), gated("block")
    assert mine.policy_version == other.policy_version
    local = await gated("context").run("go")
    async with (
        agent_worker(client, mine, mine_queue := queue(), max_cached_workflows=0),
        agent_worker(client, other, queue()),  # served after: it must not take mine's runs
    ):
        runs = TemporalRuns(mine, client, mine_queue)
        result = await runs.result(await runs.start("go"))
    assert shape(result) == shape(local)
    assert [d.outcome for d in result.decisions if d.point == "before_tool"] == ["context"]


async def waiting(runs: TemporalRuns, run_id: str, ask: str = "q1") -> list[dict[str, Any]]:
    """The run's questions, once it asks `ask` (polled: a query does not wait)."""
    for _ in range(1200):  # up to a minute: a loaded machine may retry a workflow task
        found = await runs.questions(run_id)
        if any(q["id"] == ask for q in found):
            return found
        await asyncio.sleep(0.05)
    raise AssertionError("the run asked nothing")


async def test_an_ask_pauses_the_workflow_until_an_update_answers_it(client: Client) -> None:
    agent = build("prod", "prod")
    async with agent_worker(client, agent, task_queue := queue()):
        runs = TemporalRuns(agent, client, task_queue)
        run_id = await runs.start("go")
        [question] = await waiting(runs, run_id)
        assert (question["id"], question["tool_name"], question["args"]) == (
            "q1",
            "deploy",
            {"env": "prod"},
        )
        assert (await runs.state(run_id)).status == "running"
        assert (await runs.calls(run_id))["c0"]["state"] == "planned"
        with pytest.raises(WorkflowUpdateFailedError):  # no such question
            await runs.answer(run_id, "q9", True)
        with pytest.raises(WorkflowUpdateFailedError, match="update failed"):  # stale
            await runs.answer(run_id, "q1", True, seen="another call's fingerprint")
        assert question["fingerprint"]
        await runs.answer(run_id, "q1", True, reason="looks fine", by="ops", scope="run")
        result = await runs.result(run_id)  # the second deploy is covered by scope run
        await replays(client, run_id)
    assert result.status == "completed"
    assert [c.result.content.split("\n")[0] for c in result.tool_calls] == ["deployed to prod"] * 2
    answered = [str(d) for d in result.decisions]
    assert any("ops via question q1" in a for a in answered), answered
    assert any("via approval (scope run)" in a for a in answered), answered


async def test_a_question_nobody_answers_takes_its_default_when_it_times_out(
    client: Client,
) -> None:
    agent = build("prod", timeout=1.0, default="deny")
    async with agent_worker(client, agent, task_queue := queue()):
        runs = TemporalRuns(agent, client, task_queue)
        result = await runs.run("go")
    [call] = result.tool_calls
    assert call.result.is_error and call.blocked
    assert any("default deny" in str(d) for d in result.decisions), result.decisions


def io_agent(*envs: str) -> h.Agent:
    """Async hooks (as command and http hooks are): they rewrite a call, read the run, and
    one stops a call; a sync one asks before a deploy to prod."""

    async def region(event: h.ToolCallEvent) -> h.HookResult | None:
        await asyncio.sleep(0)
        if event.args["env"] == "staging":
            return h.HookResult.modify(args={"env": "staging-eu"})
        if event.args["env"] == "qa":
            return h.HookResult.block("qa is frozen")
        return None

    def ask(event: h.ToolCallEvent) -> h.HookResult | None:
        return h.HookResult.ask("Deploy?") if event.args["env"] == "prod" else None

    async def count(event: h.ToolResultEvent) -> h.HookResult:
        return h.HookResult.context(f"{len(event.run.messages)} messages so far")

    return (
        h.AgentBuilder()
        .model(ScriptedModel([*deploys(*envs), reply("ok")], by_history=True))
        .tools(deploy)
        .on(h.BEFORE_TOOL, region, name="region")
        .on(h.BEFORE_TOOL, ask, name="ask")
        .on(h.AFTER_TOOL, count, name="count")
        .build()
    )


async def test_folds_of_hooks_that_may_do_io_run_in_activities_as_in_memory(
    client: Client,
) -> None:
    local = await io_agent("staging", "qa").run("go")
    agent = io_agent("staging", "qa")
    async with agent_worker(client, agent, task_queue := queue()):
        runs = TemporalRuns(agent, client, task_queue)
        run_id = await runs.start("go")
        result = await runs.result(run_id)
        history = await client.get_workflow_handle(run_id).fetch_history()
        await replays(client, run_id)
    assert shape(result) == shape(local)
    assert [c.result.content for c in result.tool_calls] == [
        "deployed to staging-eu\n\n<system-reminder>\n2 messages so far\n</system-reminder>",
        "Tool call 'deploy' was blocked by user:region: qa is frozen",
    ]
    kinds = [
        e.activity_task_scheduled_event_attributes.activity_type.name
        for e in history.events
        if e.HasField("activity_task_scheduled_event_attributes")
    ]
    assert kinds.count("hookagent.fold") == 3  # before_tool twice, after_tool once (c0)
    assert "hookagent.tool" in kinds and "hookagent.model" in kinds


async def test_a_worker_that_keeps_no_run_in_memory_replays_every_step_to_the_same_end(
    client: Client,
) -> None:
    """Every workflow task replays the run from its history: pure folds, fold activities,
    model and tool activities and a question answered by an update all replay the same."""
    local = await io_agent("staging", "qa", "prod").run("go", approver=lambda q: True)
    agent = io_agent("staging", "qa", "prod")
    worker = agent_worker(client, agent, task_queue := queue(), max_cached_workflows=0)
    async with worker:
        runs = TemporalRuns(agent, client, task_queue)
        run_id = await runs.start("go")
        await waiting(runs, run_id)
        await runs.answer(run_id, "q1", True)
        result = await runs.result(run_id)
    ours, theirs = shape(result), shape(local)
    assert (ours[:4], ours[5]) == (theirs[:4], theirs[5])  # all but who answered the ask
    assert [(d.point, d.hook, d.outcome) for d in result.decisions] == [
        (d.point, d.hook, d.outcome) for d in local.decisions
    ]
    assert len(result.tool_calls) == 3 and result.status == "completed"
