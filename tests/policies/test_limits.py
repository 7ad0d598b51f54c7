"""Limits stop a run that would go on, with clear stop reasons; a run that answers on its
last allowed step completes."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import hookagent as h
from hookagent.testing import FunctionModel, ScriptedModel, reply, tool_call, turn


@h.tool
def ping() -> str:
    """Answer pong."""
    return "pong"


def looping_model() -> FunctionModel:
    return FunctionModel(lambda request: tool_call("ping"))


async def test_step_limit_ends_a_run_that_keeps_calling_tools() -> None:
    agent = h.AgentBuilder().model(looping_model()).tools(ping).limits(max_steps=3).build()
    result = await agent.run("go")
    assert (result.status, result.stop_reason) == ("stopped", "steps_limit")
    assert len(result.steps) == 3
    [decision] = [d for d in result.decisions.at(h.SHOULD_CONTINUE) if d.outcome == "stop"]
    assert decision.hook == "limits:step_limit"
    assert "3 steps" in (decision.reason or "")


async def test_default_step_limit_is_twenty() -> None:
    result = await h.AgentBuilder().model(looping_model()).tools(ping).build().run("go")
    assert result.stop_reason == "steps_limit"
    assert len(result.steps) == 20


async def test_token_limit_counts_input_and_output_tokens() -> None:
    usage = h.Usage(input_tokens=600, output_tokens=500, requests=1)
    model = ScriptedModel([turn("", {"name": "ping"}, usage=usage)] * 3)
    agent = h.AgentBuilder().model(model).tools(ping).limits(max_tokens=2000).build()
    result = await agent.run("go")
    assert result.stop_reason == "token_limit"
    assert result.usage.total_tokens == 2200
    assert len(result.steps) == 2


async def test_time_limit_is_checked_between_steps() -> None:
    async def slow(request: h.ModelRequest) -> h.ModelResponse:
        await asyncio.sleep(0.02)
        return tool_call("ping")

    agent = h.AgentBuilder().model(FunctionModel(slow)).tools(ping).limits(max_seconds=0.01).build()
    result = await agent.run("go")
    assert result.stop_reason == "time_limit"
    assert len(result.steps) == 1
    assert result.state.elapsed >= 0.02


async def test_a_user_hook_cannot_outvote_a_limit() -> None:
    agent = (
        h.AgentBuilder()
        .model(looping_model())
        .tools(ping)
        .limits(max_steps=2)
        .on(h.SHOULD_CONTINUE, lambda e: h.HookResult.continue_("keep going"), priority=1000)
        .build()
    )
    result = await agent.run("go")
    assert result.stop_reason == "steps_limit"


async def test_without_tool_call_presence_the_run_ends_after_one_step() -> None:
    model = ScriptedModel([tool_call("ping")])
    agent = h.AgentBuilder().model(model).tools(ping).limits(tool_call_presence=False).build()
    result = await agent.run("go")
    assert (result.status, len(result.steps)) == ("completed", 1)


async def test_a_limit_can_be_removed() -> None:
    model = ScriptedModel([tool_call("ping")] * 3 + [reply("done")])
    agent = h.AgentBuilder().model(model).tools(ping).limits(max_steps=None).build()
    assert (await agent.run("go")).status == "completed"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: h.StepLimit(0), "StepLimit(max_steps)"),
        (lambda: h.StepLimit(-3), "StepLimit(max_steps)"),
        (lambda: h.StepLimit(2.5), "whole number"),
        (lambda: h.TokenLimit(0), "TokenLimit(max_tokens)"),
        (lambda: h.TimeLimit(-1.0), "TimeLimit(max_seconds)"),
        (lambda: h.AgentBuilder().limits(max_steps=0), "StepLimit(max_steps)"),
    ],
)
def test_zero_and_negative_limits_are_config_errors(make: object, message: str) -> None:
    with pytest.raises(h.ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make()  # type: ignore[operator]


async def test_a_run_that_answers_on_its_last_allowed_step_completes() -> None:
    agent = h.AgentBuilder().model(ScriptedModel(["the answer"])).limits(max_steps=1).build()
    result = await agent.run("go")
    assert (result.status, result.stop_reason, result.output) == (
        "completed",
        "completed",
        "the answer",
    )
    two = ScriptedModel([tool_call("ping"), "done"])
    result = await h.AgentBuilder().model(two).tools(ping).limits(max_steps=2).build().run("go")
    assert (result.status, result.output, len(result.steps)) == ("completed", "done", 2)


async def test_a_stop_hook_cannot_buy_a_step_past_the_limit() -> None:
    agent = (
        h.AgentBuilder()
        .model(ScriptedModel(["first", "second"]))
        .limits(max_steps=1)
        .on(h.STOP, lambda e: h.HookResult.block("check again"))
        .build()
    )
    result = await agent.run("go")
    assert (result.status, result.stop_reason, len(result.steps)) == ("stopped", "steps_limit", 1)


@pytest.mark.parametrize(
    ("limits", "usage", "hook", "stop_reason", "says"),
    [
        (
            {"max_steps": 2},
            None,
            "limits:step_limit",
            "steps_limit",
            "step limit reached (2 steps)",
        ),
        (
            {"max_tokens": 150},
            h.Usage(input_tokens=60, output_tokens=40, requests=1),
            "limits:token_limit",
            "token_limit",
            "token limit reached (200 of 150 tokens)",
        ),
    ],
)
async def test_a_limit_stops_a_run_a_hook_keeps_going_without_tool_calls(
    limits: dict[str, Any], usage: h.Usage | None, hook: str, stop_reason: str, says: str
) -> None:
    """No tool calls, so only the hook's `continue` says the run would go on: the limit
    reads the decision so far, and its stop names it."""
    model = ScriptedModel([turn("again", usage=usage)] * 5)
    agent = (
        h.AgentBuilder()
        .model(model)
        .limits(**limits)
        .on(h.SHOULD_CONTINUE, lambda e: h.HookResult.continue_("one more"))
        .build()
    )
    result = await agent.run("go")
    assert (result.status, result.stop_reason, len(result.steps)) == ("stopped", stop_reason, 2)
    [decision] = [d for d in result.decisions.at(h.SHOULD_CONTINUE) if d.outcome == "stop"]
    assert (decision.hook, decision.reason) == (hook, says)
