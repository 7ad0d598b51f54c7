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
    first = agent._setups.of(None, {"max_steps": 3, "max_seconds": 9})
    assert agent._setups.of(None, {"max_seconds": 9, "max_steps": 3}) is first
    assert agent._setups.of(None, {}) is agent._setups.of(None)


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


ACME = {"input_tokens": 1_000_000, "output_tokens": 0}
"""A million input tokens a call: $1 at the price below."""


def _acme_agent(*capabilities: object) -> h.Agent:
    from hookagent.testing import ScriptedModel

    turn = {"tool_calls": [{"name": "ping"}], "usage": ACME, "model": "acme-1"}
    builder = h.AgentBuilder().model(ScriptedModel([turn] * 5)).tools(ping)
    for capability in capabilities:
        builder.with_(capability)
    return builder.limits(max_steps=10, max_tokens=None).build()


async def test_a_run_max_cost_prices_models_as_the_agents_cost_limit_does() -> None:
    from hookagent.models._prices import Price
    from hookagent.policies._cost import CostLimit

    agent = _acme_agent(CostLimit(100, prices={"acme-1": Price(input=1.0, output=1.0)}))
    result = await agent.run("go", limits={"max_cost": 2})
    assert (result.stop_reason, len(result.steps)) == ("cost_limit", 2)


async def test_a_run_max_cost_can_be_a_cost_limit_with_its_own_prices() -> None:
    from hookagent.models._prices import Price
    from hookagent.policies._cost import CostLimit

    limit = CostLimit(3, prices={"acme-1": Price(input=1.0, output=1.0)})
    result = await _acme_agent().run("go", limits={"max_cost": limit})
    assert (result.stop_reason, len(result.steps)) == ("cost_limit", 3)


async def test_a_run_max_cost_without_prices_names_the_unpriced_model() -> None:
    result = await _acme_agent().run("go", limits={"max_cost": 2})
    assert result.stop_reason == "guard"
    assert "no price for model 'acme-1'" in (result.stop_message or "")
