"""The model calls of prompt and agent handlers count in the run's usage: `RunResult.usage`
shows them, a token limit sees them and a cost limit prices them."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent._usage import Usage
from hookagent.claude._options import ClaudeHookOptions
from hookagent.models._prices import Price
from hookagent.policies._cost import COST_HOOK_CALLS, COST_USD, CostLimit
from hookagent.testing import ScriptedModel, reply, tool_call

from .hookscripts import settings


@h.tool
def Bash(command: str) -> str:
    """Pretend to run a shell command."""
    return f"ran: {command}"


def judge(*answers: dict[str, Any], tokens: int = 1000) -> ScriptedModel:
    spent = Usage(input_tokens=tokens, output_tokens=10, requests=1)
    return ScriptedModel([reply(json.dumps(a), usage=spent) for a in answers])


def agent(
    tmp_path: Path, hooks: dict[str, Any], turns: list[Any], judge_model: ScriptedModel
) -> h.AgentBuilder:
    options = ClaudeHookOptions(project_dir=str(tmp_path), prompt_model=judge_model)
    return (
        h.AgentBuilder()
        .model(ScriptedModel(turns))
        .tools(Bash)
        .with_settings(settings(tmp_path, hooks), project_dir=tmp_path, options=options)
    )


def pre_tool(kind: str) -> dict[str, Any]:
    handler = {"type": kind, "prompt": "Allow only harmless commands: $ARGUMENTS"}
    return {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}


def step_usage() -> Usage:
    return Usage(input_tokens=5, output_tokens=5, requests=1)


async def test_a_prompt_hooks_model_call_is_in_the_runs_usage(tmp_path: Path) -> None:
    turns = [tool_call("Bash", command="ls"), reply("done", usage=step_usage())]
    built = agent(tmp_path, pre_tool("prompt"), turns, judge({"ok": True, "reason": "fine"}))
    result = await built.build().run("list")
    assert result.status == "completed"
    assert result.usage.input_tokens >= 1000  # the judge's call, beside the agent's
    assert result.usage.output_tokens >= 10
    assert result.to_dict()["usage"]["input_tokens"] == result.usage.input_tokens


async def test_a_token_limit_sees_a_prompt_hooks_tokens(tmp_path: Path) -> None:
    turns = [
        tool_call("Bash", command="ls"),
        tool_call("Bash", command="pwd"),
        reply("done"),
    ]
    answers = judge({"ok": True, "reason": "fine"}, {"ok": True, "reason": "fine"})
    built = agent(tmp_path, pre_tool("prompt"), turns, answers).limits(max_tokens=500)
    result = await built.build().run("look around")
    assert result.status == "stopped" and result.stop_reason == "token_limit"
    assert len(result.tool_calls) == 1  # the judge's 1,010 tokens ended the run after a step


async def test_an_agent_hooks_model_calls_are_in_the_runs_usage(tmp_path: Path) -> None:
    turns = [tool_call("Bash", command="ls"), reply("done")]
    built = agent(tmp_path, pre_tool("agent"), turns, judge({"ok": True, "reason": "fine"}))
    result = await built.build().run("list")
    assert result.status == "completed"
    assert result.usage.input_tokens == 1000 and result.usage.requests == 3


async def test_a_failing_judge_adds_nothing(tmp_path: Path) -> None:
    turns = [tool_call("Bash", command="ls"), reply("done")]
    broken = ScriptedModel([])  # runs out: the hook fails open, no usage to count
    result = await agent(tmp_path, pre_tool("prompt"), turns, broken).build().run("list")
    assert result.status == "completed"
    assert result.usage.input_tokens == 0


# -- cost ------------------------------------------------------------------------------------
def billed(response: h.ModelResponse, model: str, usage: Usage) -> h.ModelResponse:
    return replace(response, model_name=model, usage=usage)


def named(model: str, *answers: dict[str, Any]) -> ScriptedModel:
    spent = Usage(input_tokens=1000, output_tokens=10, requests=1)
    return ScriptedModel([billed(reply(json.dumps(a)), model, spent) for a in answers])


def walk(model: str = "agent-1") -> list[Any]:
    """Two tool calls, then an answer: the judge's cost can end the run after the first."""
    turns = [tool_call("Bash", command="ls"), tool_call("Bash", command="pwd"), reply("done")]
    return [billed(turn, model, step_usage()) for turn in turns]


PRICES = {"agent-1": Price(input=1, output=1), "judge-1": Price(input=10, output=10)}
"""The judge's 1,010 tokens cost $0.0101, the agent's 10 a step $0.00001."""


@pytest.mark.parametrize("kind", ["prompt", "agent"])
async def test_a_cost_limit_prices_a_hooks_model_calls(tmp_path: Path, kind: str) -> None:
    ok = {"ok": True, "reason": "fine"}
    built = agent(tmp_path, pre_tool(kind), walk(), named("judge-1", ok, ok))
    limit = CostLimit(0.01, prices=PRICES)
    result = await built.with_(limit).build().run("look around")
    assert (result.status, result.stop_reason) == ("stopped", "cost_limit")
    assert len(result.tool_calls) == 1  # ended at the should_continue after the judge's call
    assert result.state.metadata[COST_USD.name] == pytest.approx(0.0101 + 0.00001)
    assert result.state.metadata[COST_HOOK_CALLS.name] == 1
    assert (result.stop_message or "").startswith("cost limit reached ($0.0101 of $0.01)")


async def test_under_the_limit_the_hooks_cost_is_in_the_total(tmp_path: Path) -> None:
    ok = {"ok": True, "reason": "fine"}
    built = agent(tmp_path, pre_tool("prompt"), walk(), named("judge-1", ok, ok))
    result = await built.with_(CostLimit(1.0, prices=PRICES)).build().run("look around")
    assert result.status == "completed" and len(result.tool_calls) == 2
    assert result.state.metadata[COST_USD.name] == pytest.approx(2 * 0.0101 + 3 * 0.00001)
    assert result.state.metadata[COST_HOOK_CALLS.name] == 2


async def test_an_unpriced_hook_model_is_told_as_an_unpriced_agent_model_is(
    tmp_path: Path,
) -> None:
    ok = {"ok": True, "reason": "fine"}
    priced_agent = {"agent-1": PRICES["agent-1"]}
    built = agent(tmp_path, pre_tool("prompt"), walk(), named("mystery-judge", ok, ok))
    hook = await built.with_(CostLimit(1.0, prices=priced_agent)).build().run("go")
    unpriced = agent(tmp_path, {}, walk("mystery-judge"), named("judge-1"))
    own = await unpriced.with_(CostLimit(1.0)).build().run("go")
    assert (hook.status, hook.stop_reason) == (own.status, own.stop_reason) == ("stopped", "guard")
    assert (hook.stop_message or "").split(" (hook")[0] == (own.stop_message or "").split(" (hook")[
        0
    ]
    assert "no price for model 'mystery-judge'" in (hook.stop_message or "")
    assert len(hook.tool_calls) == 1  # its call ran; the run ended before another step


async def test_ignore_counts_an_unpriced_hook_model_as_free(tmp_path: Path) -> None:
    ok = {"ok": True, "reason": "fine"}
    built = agent(tmp_path, pre_tool("prompt"), walk(), named("mystery-judge", ok, ok))
    limit = CostLimit(1.0, prices=PRICES, unknown="ignore")
    result = await built.with_(limit).build().run("go")
    assert result.status == "completed"
    assert result.state.metadata[COST_USD.name] == pytest.approx(3 * 0.00001)
