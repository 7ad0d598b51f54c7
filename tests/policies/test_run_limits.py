"""`agent.run(..., limits=...)` replaces the agent's limits for that run only."""

from __future__ import annotations

import pytest

import hookagent as h
from hookagent.testing import FunctionModel, tool_call


@h.tool
def ping() -> str:
    """Answer pong."""
    return "pong"


def looping_agent(**limits: int | None) -> h.Agent:
    model = FunctionModel(lambda request: tool_call("ping"))
    return h.AgentBuilder().model(model).tools(ping).limits(**limits).build()


async def test_a_run_limit_overrides_the_agents_for_that_run_only() -> None:
    agent = looping_agent(max_steps=5)
    short = await agent.run("go", limits={"max_steps": 2})
    assert (short.status, short.stop_reason, len(short.steps)) == ("stopped", "steps_limit", 2)
    assert (short.stop_message or "").startswith("step limit reached (2 steps)")
    assert short.output is None
    again = await agent.run("go")
    assert (again.stop_reason, len(again.steps)) == ("steps_limit", 5)


async def test_a_run_limit_can_be_raised_and_others_removed() -> None:
    agent = looping_agent(max_steps=2, max_tokens=1)
    result = await agent.run("go", limits={"max_steps": 4, "max_tokens": None})
    assert (result.stop_reason, len(result.steps)) == ("steps_limit", 4)


async def test_stream_and_run_sync_take_limits() -> None:
    agent = looping_agent(max_steps=5)
    events = [e async for e in agent.stream("go", limits={"max_steps": 1})]
    finished = events[-1]
    assert isinstance(finished, h.RunFinished)
    assert len(finished.result.steps) == 1


def test_run_sync_passes_limits_through() -> None:
    result = looping_agent(max_steps=5).run_sync("go", limits={"max_steps": 3})
    assert (result.stop_reason, len(result.steps)) == ("steps_limit", 3)


async def test_run_setups_are_cached_per_set_of_limits() -> None:
    agent = looping_agent()
    first = agent._setup_for(None, {"max_steps": 3, "max_seconds": 9})
    assert agent._setup_for(None, {"max_seconds": 9, "max_steps": 3}) is first
    assert agent._setup_for(None, {}) is agent._setup_for(None)


@pytest.mark.parametrize(
    ("limits", "key"),
    [
        ({"max_steps": 0}, "limits['max_steps']"),
        ({"max_steps": 1.5}, "limits['max_steps']"),
        ({"max_tokens": "many"}, "limits['max_tokens']"),
        ({"max_cost": -1}, "limits['max_cost']"),
        ({"max_turns": 3}, "limits['max_turns']"),
        ([("max_steps", 3)], "limits"),
    ],
)
async def test_bad_run_limits_are_config_errors_naming_the_key(limits: object, key: str) -> None:
    with pytest.raises(h.ConfigError) as info:
        await looping_agent().run("go", limits=limits)  # type: ignore[arg-type]
    assert info.value.key == key
