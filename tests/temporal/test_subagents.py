"""Subagents on Temporal: each `Agent` call runs its child as a child workflow, with the
same messages, decisions and results as in memory; the child's questions are answered on
its own workflow; a parent cancelled cancels its child."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import (
    Client,
    WorkflowExecutionStatus,
    WorkflowFailureError,
    WorkflowUpdateFailedError,
)

import hookagent as h
from cli.run_cli import hookagent
from hookagent.capabilities.subagents import AgentRegistry, AgentSpec, AgentTool, Subagents
from hookagent.temporal import TemporalRuns, agent_worker
from hookagent.testing import FunctionModel, ScriptedModel, reply, turn
from temporal.kill import killed
from temporal.test_runs import deploy, queue, replays, shape, waiting

pytestmark = pytest.mark.temporal

HELPER = AgentSpec(
    name="helper", description="Deploys.", system_prompt="You deploy.", model="helper-model"
)


def spawns(env: str, helpers: int) -> Any:
    """One turn of `helpers` Agent calls (a1, a2…), each asking a helper to deploy."""
    args = {"description": "task", "prompt": f"deploy to {env}", "subagent_type": "helper"}
    return turn(
        "", *({"name": "Agent", "args": args, "id": f"a{i}"} for i in range(1, helpers + 1))
    )


def build(env: str = "staging", helpers: int = 1) -> h.Agent:
    """A parent that starts `helpers` helpers in one turn, each of which deploys; the
    parent's subagent_stop hook keeps each helper going once, and a deploy to prod asks
    first (the child inherits the hook)."""

    def ask(event: h.ToolCallEvent) -> h.HookResult | None:
        return h.HookResult.ask("Deploy?") if event.args["env"] == "prod" else None

    def started(event: h.SubagentEvent) -> h.HookResult:
        return h.HookResult.context(f"{event.agent_type} started by {event.run.agent_type}")

    async def stopping(event: h.SubagentEvent) -> h.HookResult | None:
        if event.stop_hook_active:
            return None
        return h.HookResult.block(f"check {event.output} again")

    def child(request: h.ModelRequest) -> Any:
        """By the replies in the child's history alone: children of one turn run at once."""
        replies = sum(m.role == "assistant" for m in request.messages)
        deploys = {"tool_calls": [{"name": "deploy", "args": {"env": env}, "id": "d1"}]}
        return [deploys, "deployed", "checked"][replies]

    return (
        h.AgentBuilder()
        .model(ScriptedModel([spawns(env, helpers), reply("done")], by_history=True))
        .model_alias("helper-model", FunctionModel(child))
        .tools(deploy)
        .with_(Subagents(AgentRegistry([HELPER])))
        .on(h.BEFORE_TOOL, ask, name="ask", match="deploy", inherit="all")
        .on(h.SUBAGENT_START, started, name="started")
        .on(h.SUBAGENT_STOP, stopping, name="stopping")
        .build()
    )


def subagents(agent: h.Agent) -> Subagents:
    tool = agent.tools["Agent"]
    assert isinstance(tool, AgentTool)
    return tool.owner


async def test_a_subagent_runs_as_a_child_workflow_as_it_runs_in_memory(client: Client) -> None:
    in_memory = build()
    local = await in_memory.run("go")
    [local_child] = subagents(in_memory).states
    agent = build()
    async with agent_worker(client, agent, task_queue := queue()):
        runs = TemporalRuns(agent, client, task_queue)
        run_id = await runs.start("go")
        result = await runs.result(run_id)
        child_id = f"{run_id}/a1"
        child = await runs.result(child_id)
        parent_history = await client.get_workflow_handle(run_id).fetch_history()
        await replays(client, run_id)
        await replays(client, child_id)
    assert shape(result) == shape(local)
    assert shape(child) == shape(h.RunResult.of(local_child))
    assert result.output == "done" and child.output == "checked"
    [call] = result.tool_calls
    assert call.result.content == "[Subagent: helper] checked"
    assert call.result.data["agent_id"] == child_id
    assert (child.state.parent_run_id, child.state.agent_type) == (run_id, "helper")
    assert child.state.metadata == {"subagents.depth": 1}
    points = [d.point for d in result.decisions]
    assert points == ["subagent_start", "subagent_stop"]  # the stop: a block, in the parent
    starts = [
        e
        for e in parent_history.events
        if e.HasField("start_child_workflow_execution_initiated_event_attributes")
    ]
    assert len(starts) == 1


async def test_subagents_of_one_turn_run_as_child_workflows_at_once(client: Client) -> None:
    local = await build(helpers=2).run("go")
    agent = build(helpers=2)
    async with agent_worker(client, agent, task_queue := queue()):
        result = await TemporalRuns(agent, client, task_queue).run("go")
    assert [c.result.content for c in result.tool_calls] == ["[Subagent: helper] checked"] * 2
    assert [c.result.data["agent_id"] for c in result.tool_calls] == [
        f"{result.run_id}/a1",
        f"{result.run_id}/a2",
    ]
    assert shape(result)[:4] == shape(local)[:4]  # the decisions of two children interleave
    assert sorted(map(str, shape(result)[4])) == sorted(map(str, shape(local)[4]))


def bomb() -> h.Agent:
    """An agent whose subagent starts itself until the depth limit (3) refuses."""
    spec = AgentSpec(name="bomb", description="Spawns itself.", system_prompt="You are bomb.")

    def model(request: h.ModelRequest) -> Any:
        last = request.messages[-1]
        if isinstance(last, h.ToolResultMessage):
            return f"depth report: {last.content}"
        args = {"description": "d", "prompt": "go deeper", "subagent_type": "bomb"}
        return {"tool_calls": [{"name": "Agent", "args": args, "id": "a1"}]}

    return h.AgentBuilder().model(FunctionModel(model)).with_(Subagents([spec])).build()


async def test_subagents_of_subagents_are_child_workflows_down_to_the_depth_limit(
    client: Client,
) -> None:
    local = await bomb().run("explode")
    agent = bomb()
    async with agent_worker(client, agent, task_queue := queue()):
        runs = TemporalRuns(agent, client, task_queue)
        result = await runs.run("explode")
        deepest = await runs.result(f"{result.run_id}/a1/a1/a1")
    assert shape(result) == shape(local)
    assert deepest.state.metadata == {"subagents.depth": 3}
    [refusal] = [d for d in deepest.decisions if d.hook == "subagents:depth_limit"]
    assert "Maximum nesting depth (3)" in (refusal.reason or "")


@contextlib.asynccontextmanager
async def asking(client: Client) -> AsyncIterator[tuple[TemporalRuns, str]]:
    """A run whose subagent waits on its question (a deploy to prod), on a worker."""
    agent = build("prod")
    async with agent_worker(client, agent, task_queue := queue()):
        runs = TemporalRuns(agent, client, task_queue)
        run_id = await runs.start("go")
        await waiting(runs, run_id)
        yield runs, run_id


async def test_a_question_inside_a_subagent_is_listed_and_answered_from_the_command_line(
    client: Client, temporal_address: str, tmp_path: Path
) -> None:
    async with asking(client) as (runs, run_id):
        child_id = f"{run_id}/a1"
        [question] = await runs.questions(run_id)  # the parent lists its child's question
        assert (question["run_id"], question["id"], question["tool_name"]) == (
            child_id,
            "q1",
            "deploy",
        )
        assert await runs.questions(child_id) == [question]
        with pytest.raises(WorkflowUpdateFailedError) as refused:
            stop = {"agent_id": "nope", "output": "x"}  # only a running child may stop
            await client.get_workflow_handle(run_id).execute_update("subagent_stop", stop)
        assert "no subagent 'nope' runs here" in str(refused.value.cause)
        listed = await asyncio.to_thread(
            hookagent, tmp_path, "temporal", "questions", "--address", temporal_address, run_id
        )
        assert listed.returncode == 0, listed.stderr
        assert json.loads(listed.stdout) == question
        on = ("--temporal", temporal_address, "--reason", "fine", "--json")
        approved = await asyncio.to_thread(hookagent, tmp_path, "approve", run_id, *on)
        assert approved.returncode == 0, approved.stderr
        assert json.loads(approved.stdout) == [
            {"run_id": child_id, "question": "q1", "approved": True}
        ]
        result = await runs.result(run_id)
        child = await runs.result(child_id)
    assert result.output == "done"
    assert child.tool_calls[0].result.content.startswith("deployed to prod")
    assert any("cli via question q1" in str(d) for d in child.decisions), child.decisions


async def test_a_cancelled_parent_cancels_its_subagent(client: Client) -> None:
    async with asking(client) as (runs, run_id):
        await client.get_workflow_handle(run_id).cancel()
        with pytest.raises(WorkflowFailureError):
            await runs.result(run_id)
        child = client.get_workflow_handle(f"{run_id}/a1")
        for _ in range(600):
            status = (await child.describe()).status
            if status != WorkflowExecutionStatus.RUNNING:
                break
            await asyncio.sleep(0.05)
    assert status == WorkflowExecutionStatus.CANCELED


async def test_a_worker_killed_while_a_subagent_runs_leaves_it_to_another_worker_once(
    client: Client, temporal_address: str, tmp_path: Path
) -> None:
    """The subagent's model call holds when its worker is killed: another worker asks the
    model again and finishes both runs; the child workflow started once, its tool ran once."""
    result = await killed(client, temporal_address, tmp_path, "subagent", "model")
    assert (result.status, result.output) == ("completed", "logged")
    assert result.tool_calls[0].result.content == "[Subagent: logger] done"
    assert (tmp_path / "log").read_text() == "L0\n"
    child_id = f"{result.state.run_id}/a1"
    executions = [e async for e in client.list_workflows(f'WorkflowId = "{child_id}"')]
    assert len(executions) == 1, executions
    history = await client.get_workflow_handle(result.state.run_id).fetch_history()
    starts = [
        e
        for e in history.events
        if e.HasField("start_child_workflow_execution_initiated_event_attributes")
    ]
    assert len(starts) == 1
