"""`agent` handlers: a read-only subagent (Read, Grep, Glob, LS over the project) checks the
condition and answers `{ok, reason}`, read as a prompt handler's with `continueOnBlock`;
failures fail open with an error vote, unless the handler fails closed."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent._messages import ToolResultMessage
from hookagent.claude._options import ClaudeHookOptions
from hookagent.gate import ToolGate
from hookagent.models._base import ModelRequest
from hookagent.testing import FunctionModel, ScriptedModel, reply, tool_call

from .hookscripts import settings


@h.tool
def Bash(command: str) -> str:
    """Pretend to run a shell command."""
    return f"ran: {command}"


def checker(*, reads: str, answer: Any, seen: list[ModelRequest]) -> FunctionModel:
    """A subagent model that reads `reads` and then answers."""

    def turn(request: ModelRequest) -> Any:
        seen.append(replace(request, messages=list(request.messages)))  # a live view
        if not any(isinstance(m, ToolResultMessage) for m in request.messages):
            return tool_call("Read", file_path=reads)
        now = answer.pop(0) if isinstance(answer, list) else answer
        if now == "slow":
            return asyncio.sleep(5, "{}")
        return now if isinstance(now, str) else json.dumps(now)

    return FunctionModel(turn, name="checker")


def build(tmp_path: Path, hooks: dict[str, Any], agent_model: h.Model, judge: h.Model) -> h.Agent:
    options = ClaudeHookOptions(project_dir=str(tmp_path), prompt_model=judge)
    return (
        h.AgentBuilder()
        .model(agent_model)
        .tools(Bash)
        .with_settings(settings(tmp_path, hooks), project_dir=tmp_path, options=options)
        .build()
    )


def pre_tool(**handler: Any) -> dict[str, Any]:
    entry = {"type": "agent", "prompt": "Check POLICY.md allows this: $ARGUMENTS", **handler}
    return {"PreToolUse": [{"matcher": "Bash", "hooks": [entry]}]}


async def test_the_subagent_reads_the_project_and_its_no_goes_back_to_the_model(
    tmp_path: Path,
) -> None:
    (tmp_path / "POLICY.md").write_text("Never deploy on Fridays.")
    seen: list[ModelRequest] = []
    judge = checker(
        reads="POLICY.md", answer={"ok": False, "reason": "policy: no deploys"}, seen=seen
    )
    model = ScriptedModel([tool_call("Bash", command="deploy"), reply("ok, not deploying")])
    result = await build(tmp_path, pre_tool(), model, judge).run("deploy")
    [call] = result.tool_calls
    assert call.blocked and "policy: no deploys" in call.result.content
    assert result.status == "completed" and result.output == "ok, not deploying"  # goes on
    first, second = seen
    assert '"command":"deploy"' in first.messages[-1].content
    assert {t.name for t in first.tools} == {"Read", "Glob", "Grep", "LS"}  # read-only
    [read] = [m for m in second.messages if isinstance(m, ToolResultMessage)]
    assert "Never deploy on Fridays." in read.content


async def test_ok_true_lets_the_call_run(tmp_path: Path) -> None:
    (tmp_path / "POLICY.md").write_text("Anything goes.")
    judge = checker(reads="POLICY.md", answer={"ok": True, "reason": "allowed"}, seen=[])
    model = ScriptedModel([tool_call("Bash", command="ls"), reply("done")])
    result = await build(tmp_path, pre_tool(), model, judge).run("list")
    assert result.tool_calls[0].result.content == "ran: ls"


async def test_stop_unmet_continues_the_model(tmp_path: Path) -> None:
    (tmp_path / "DONE").write_text("")
    judge = checker(
        reads="DONE",
        answer=[
            {"ok": False, "impossible": True, "reason": "DONE is empty"},
            {"ok": True, "reason": "filled"},
        ],
        seen=[],
    )
    hooks = {"Stop": [{"hooks": [{"type": "agent", "prompt": "Is DONE filled in?"}]}]}
    model = ScriptedModel([reply("finished"), reply("filled it in")])
    agent = build(tmp_path, hooks, model, judge)
    result = await agent.run("work")
    assert result.output == "filled it in"  # no `impossible` for agent hooks: blocked
    [blocked] = result.decisions.at(h.STOP)
    assert "DONE is empty" in (blocked.reason or "")


@pytest.mark.parametrize(
    ("answer", "handler", "error"),
    [
        pytest.param("looks fine to me", {}, "agent hook answer is not JSON", id="not-json"),
        pytest.param("slow", {"timeout": 0.3}, "timed out after 0.3 s", id="timeout"),
    ],
)
async def test_a_failing_agent_hook_fails_open_with_an_error_vote(
    tmp_path: Path, answer: Any, handler: dict[str, Any], error: str
) -> None:
    (tmp_path / "POLICY.md").write_text("x")
    judge = checker(reads="POLICY.md", answer=answer, seen=[])
    model = ScriptedModel([tool_call("Bash", command="ls"), reply("done")])
    result = await build(tmp_path, pre_tool(**handler), model, judge).run("list")
    assert result.tool_calls[0].result.content == "ran: ls"
    [decision] = result.decisions.at(h.BEFORE_TOOL)
    [vote] = decision.votes
    assert vote.error is not None and error in vote.error


async def test_on_failure_block_fails_closed(tmp_path: Path) -> None:
    (tmp_path / "POLICY.md").write_text("x")
    judge = checker(reads="POLICY.md", answer="no idea", seen=[])
    model = ScriptedModel([tool_call("Bash", command="ls"), reply("done")])
    result = await build(tmp_path, pre_tool(onFailure="block"), model, judge).run("list")
    assert result.tool_calls[0].blocked


def test_agent_on_session_start_is_refused_as_claude_code_never_runs_it(tmp_path: Path) -> None:
    hooks = {"SessionStart": [{"hooks": [{"type": "agent", "prompt": "ok?"}]}]}
    with pytest.raises(h.ConfigError, match='does not run "agent" handlers on SessionStart'):
        h.AgentBuilder().with_settings(settings(tmp_path, hooks), project_dir=tmp_path)


async def test_a_tool_gate_runs_agent_handlers_with_its_own_checker(tmp_path: Path) -> None:
    (tmp_path / "POLICY.md").write_text("Never deploy on Fridays.")
    judge = checker(reads="POLICY.md", answer={"ok": False, "reason": "policy: no"}, seen=[])
    options = ClaudeHookOptions(project_dir=str(tmp_path), prompt_model=judge)
    gate = ToolGate().with_settings(
        settings(tmp_path, pre_tool()), project_dir=tmp_path, options=options
    )
    result = await gate.call("Bash", {"command": "deploy"}, execute=lambda command: "ran")
    assert result.blocked and "policy: no" in result.result.content
    await gate.aclose()


async def test_agent_handlers_of_hooks_no_agent_or_gate_installed_fail_as_the_handler_says(
    tmp_path: Path,
) -> None:
    from hookagent.claude._bridge import ClaudeHooks
    from hookagent.claude._sources import discover
    from hookagent.hooks._registry import HookRegistry
    from hookagent.kernel._dispatch import Dispatcher
    from hookagent.kernel._state import RunState

    judge = checker(reads="POLICY.md", answer={"ok": True, "reason": "fine"}, seen=[])
    options = ClaudeHookOptions(project_dir=str(tmp_path), prompt_model=judge)
    file = settings(tmp_path, pre_tool(onFailure="block"))
    claude = ClaudeHooks(discover(tmp_path, explicit=[file], include_standard=False), options)
    state = RunState(run_id="run-1", session_id="s")
    hooks = Dispatcher(HookRegistry(claude.hooks()), state, approver=None, watch=None)
    event = h.ToolCallEvent(
        run=hooks.view, step=1, call_id="c1", tool_name="Bash", args={"command": "ls"}
    )
    decision, _ = await hooks.fire(h.BEFORE_TOOL, event)
    assert decision.outcome == "block"
    assert "agent handlers run where an agent or a tool gate installed the settings" in str(
        decision.reason
    )
