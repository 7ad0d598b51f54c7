"""The model calls of prompt and agent handlers count in the run's usage: `RunResult.usage`
shows them and a token limit sees them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import hookagent as h
from hookagent.claude.options import ClaudeHookOptions
from hookagent.testing import ScriptedModel, reply, tool_call
from hookagent.usage import Usage

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
