"""A run's own options on Temporal: `limits`, `output_type`, and a time limit measured on
the workflow's clock; what a run there cannot honour is refused, naming the option."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel
from temporalio.client import Client

import hookagent as h
from hookagent.capabilities.subagents import AgentRegistry, AgentSpec, Subagents
from hookagent.policies import CostLimit
from hookagent.temporal import TemporalRuns, agent_worker
from hookagent.testing import ScriptedModel, turn
from temporal.test_runs import build, queue, replays, shape

pytestmark = pytest.mark.temporal


class City(BaseModel):
    name: str
    population: int


async def test_per_run_limits_stop_the_run_as_in_memory(client: Client) -> None:
    limits = {"max_steps": 1}
    local = await build("staging", "qa").run("go", limits=limits)
    agent = build("staging", "qa")
    async with agent_worker(client, agent, task_queue := queue()):
        result = await TemporalRuns(agent, client, task_queue).run("go", limits=limits)
    assert shape(result) == shape(local)
    assert (result.status, result.stop_reason) == ("stopped", "steps_limit")


async def test_a_per_run_output_type_ends_in_a_parsed_answer(client: Client) -> None:
    answer = turn("", {"name": "final_result", "args": {"name": "Lyon", "population": 522000}})
    agent = h.AgentBuilder().model(ScriptedModel([answer], by_history=True)).build()
    async with agent_worker(client, agent, task_queue := queue()):
        result = await TemporalRuns(agent, client, task_queue).run("go", output_type=City)
    assert result.parsed == City(name="Lyon", population=522000)


async def test_a_time_limit_reads_the_workflows_clock_and_replays_the_same(
    client: Client,
) -> None:
    """A question that waits out its 1.5 s timeout moves workflow time past max_seconds;
    with no run cached, every workflow task replays the limit's checks to the same end."""
    agent = build("prod", "prod", timeout=1.5, default="approve")
    worker = agent_worker(client, agent, task_queue := queue(), max_cached_workflows=0)
    async with worker:
        runs = TemporalRuns(agent, client, task_queue)
        run_id = await runs.start("go", limits={"max_seconds": 1})
        result = await runs.result(run_id)
        await replays(client, run_id)
    assert (result.status, result.stop_reason) == ("stopped", "time_limit")
    assert len(result.tool_calls) == 1 and result.state.elapsed >= 1.5


async def test_what_a_run_on_temporal_cannot_honour_is_refused_naming_it(
    client: Client,
) -> None:
    class Local(BaseModel):
        x: int

    agent = build("staging")
    runs = TemporalRuns(agent, client, "nowhere")
    refusals: list[tuple[Any, str]] = [
        (runs.start("go", output_type=Local), "output_type"),
        (runs.start("go", limits={"max_cost": CostLimit(1.0)}), "limits['max_cost']"),
        (runs.start("go", limits={"max_turns": 3}), "limits['max_turns']"),
    ]
    for started, named in refusals:
        with pytest.raises(h.ConfigError) as refused:
            await started
        assert refused.value.key == named, refused.value
    helper = AgentSpec(
        name="helper", description="Helps.", system_prompt="You help.", model="nowhere:x"
    )
    with_children = (
        h.AgentBuilder().model(ScriptedModel([])).with_(Subagents(AgentRegistry([helper]))).build()
    )
    for refused_call in (  # a subagent that cannot be built, before any workflow starts
        lambda: agent_worker(client, with_children, "nowhere"),
        lambda: TemporalRuns(with_children, client, "nowhere"),
    ):
        with pytest.raises(h.ConfigError, match="unknown model provider 'nowhere'") as refused:
            refused_call()
        assert refused.value.key == "subagent 'helper'", refused.value
