"""`prompt` handlers: a model judges the event and answers `{ok, reason, impossible}`, read per
event as Claude Code reads it; a broken answer, a model error or the timeout fails open with
an error in the vote, unless the handler or the run fails closed."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent._messages import AssistantMessage
from hookagent.claude._options import ClaudeHookOptions
from hookagent.models._base import ModelRequest
from hookagent.testing import FunctionModel, ScriptedModel, reply, tool_call

from .hookscripts import settings


@h.tool
def Bash(command: str) -> str:
    """Pretend to run a shell command."""
    return f"ran: {command}"


GUARD = "Refuse destructive shell commands. Event: $ARGUMENTS. Costs \\$0."


class Judge:
    """A model that answers prompt hooks and remembers what it was asked."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.asked: list[ModelRequest] = []

    def __call__(self, request: ModelRequest) -> Any:
        self.asked.append(request)
        answer = self.answers.pop(0)
        if callable(answer):
            return answer()
        return answer if isinstance(answer, str) else json.dumps(answer)


def build(
    tmp_path: Path,
    hooks: dict[str, Any],
    agent_model: h.Model,
    judge: Judge | None = None,
    **options: Any,
) -> h.Agent:
    file = settings(tmp_path, hooks)
    prompt_model = FunctionModel(judge, name="judge") if judge is not None else None
    opts = ClaudeHookOptions(project_dir=str(tmp_path), prompt_model=prompt_model, **options)
    return (
        h.AgentBuilder()
        .model(agent_model)
        .tools(Bash)
        .with_settings(file, project_dir=tmp_path, options=opts)
        .build()
    )


def pre_tool(**handler: Any) -> dict[str, Any]:
    entry = {"type": "prompt", "prompt": GUARD, **handler}
    return {"PreToolUse": [{"matcher": "Bash", "hooks": [entry]}]}


def bash_turns(command: str = "rm -rf build") -> ScriptedModel:
    return ScriptedModel([tool_call("Bash", command=command), reply("done")])


async def test_ok_true_lets_the_call_run_and_the_prompt_carries_the_event(
    tmp_path: Path,
) -> None:
    judge = Judge({"ok": True, "reason": "harmless"})
    result = await build(tmp_path, pre_tool(), bash_turns("ls"), judge).run("list")
    assert result.tool_calls[0].result.content == "ran: ls"
    [request] = judge.asked
    question = request.messages[-1].content
    assert question.startswith("Refuse destructive shell commands. Event: {")
    assert question.endswith(". Costs $0.")
    event = json.loads(question[question.index("{") : question.rindex("}") + 1])
    assert (event["tool_name"], event["tool_input"]) == ("Bash", {"command": "ls"})
    assert request.output is not None and request.output.schema["required"] == ["ok", "reason"]


async def test_ok_false_denies_and_ends_the_turn_with_the_reason(tmp_path: Path) -> None:
    judge = Judge({"ok": False, "reason": "deletes the build"})
    result = await build(tmp_path, pre_tool(), bash_turns(), judge).run("clean")
    [call] = result.tool_calls
    assert call.blocked and "deletes the build" in call.result.content
    assert result.status == "stopped" and "deletes the build" in (result.stop_message or "")


async def test_continue_on_block_returns_the_reason_to_the_model(tmp_path: Path) -> None:
    seen: list[str] = []

    def agent(request: ModelRequest) -> Any:
        if len(request.messages) == 1:
            return tool_call("Bash", command="rm -rf build")
        seen.append(request.messages[-1].content)
        return reply("understood")

    judge = Judge({"ok": False, "reason": "deletes the build"})
    hooks = pre_tool(continueOnBlock=True)
    result = await build(tmp_path, hooks, FunctionModel(agent), judge).run("clean")
    assert result.status == "completed" and result.output == "understood"
    assert result.tool_calls[0].blocked
    assert "deletes the build" in seen[0]  # the reason reached the model


async def test_without_a_fast_model_the_agents_own_model_judges(tmp_path: Path) -> None:
    def agent(request: ModelRequest) -> Any:
        if request.output is not None and request.output.name == "hook_verdict":
            return json.dumps({"ok": False, "reason": "not today"})
        return tool_call("Bash", command="ls") if len(request.messages) == 1 else reply("ok")

    model = FunctionModel(agent)
    result = await build(tmp_path, pre_tool(continueOnBlock=True), model).run("list")
    assert result.tool_calls[0].blocked and "not today" in result.tool_calls[0].result.content


@pytest.mark.parametrize("continue_on_block", [False, True])
async def test_post_tool_use_ok_false_ends_the_run_or_feeds_the_reason_back(
    tmp_path: Path, continue_on_block: bool
) -> None:
    entry = {"type": "prompt", "prompt": "Was it safe?", "continueOnBlock": continue_on_block}
    hooks = {"PostToolUse": [{"matcher": "Bash", "hooks": [entry]}]}
    judge = Judge({"ok": False, "reason": "it printed a secret"})
    result = await build(tmp_path, hooks, bash_turns("env"), judge).run("show")
    if continue_on_block:
        assert result.status == "completed"
        [decision] = result.decisions.at(h.AFTER_TOOL)
        assert decision.contexts == ("it printed a secret",)  # fed back to the model
    else:
        assert result.status == "stopped" and "it printed a secret" in (result.stop_message or "")


async def test_user_prompt_submit_ok_false_blocks_the_prompt(tmp_path: Path) -> None:
    hooks = {"UserPromptSubmit": [{"hooks": [{"type": "prompt", "prompt": "On topic?"}]}]}
    judge = Judge({"ok": False, "reason": "off topic"})
    model = ScriptedModel([reply("never asked")])
    result = await build(tmp_path, hooks, model, judge).run("tell me a joke")
    assert result.output != "never asked" and model.remaining == 1
    [decision] = result.decisions.at(h.USER_PROMPT)
    assert decision.outcome == "block" and "off topic" in (decision.reason or "")


def stop_hooks() -> dict[str, Any]:
    return {"Stop": [{"hooks": [{"type": "prompt", "prompt": "Are the tests passing?"}]}]}


async def test_stop_ok_false_continues_the_model_with_the_reason_and_shows_it_the_run(
    tmp_path: Path,
) -> None:
    judge = Judge(
        {"ok": False, "reason": "no test run is in the transcript"},
        {"ok": True, "reason": "tests ran"},
    )
    model = ScriptedModel([reply("all done"), reply("ran the tests: green")])
    result = await build(tmp_path, stop_hooks(), model, judge).run("fix it")
    assert result.status == "completed" and result.output == "ran the tests: green"
    first = judge.asked[0]
    evidence = first.messages[0].content
    assert "user: fix it" in evidence and "assistant: all done" in evidence
    assert isinstance(first.messages[1], AssistantMessage)
    assert "Are the tests passing?" in first.messages[-1].content
    assert '"impossible": true' in (first.system_prompt or "")  # offered on Stop only
    [blocked] = result.decisions.at(h.STOP)
    assert blocked.outcome == "block" and "no test run" in (blocked.reason or "")


async def test_impossible_lets_the_stop_through(tmp_path: Path) -> None:
    judge = Judge({"ok": False, "impossible": True, "reason": "there is no test suite"})
    result = await build(tmp_path, stop_hooks(), ScriptedModel([reply("done")]), judge).run("x")
    assert result.status == "completed" and result.output == "done"


FAILURES = [
    pytest.param("I think it is fine", {}, "not JSON", id="not-json"),
    pytest.param({"ok": "yes"}, {}, 'boolean "ok"', id="ok-not-boolean"),
    pytest.param({"ok": False}, {}, 'without a "reason"', id="no-reason"),
    pytest.param(RuntimeError("rate limited"), {}, "rate limited", id="model-error"),
    pytest.param("slow", {"timeout": 0.2}, "timed out after 0.2 s", id="timeout"),
]


def answer_of(spec: Any) -> Callable[[], Any]:
    def answer() -> Any:
        if isinstance(spec, Exception):
            raise spec
        if spec == "slow":
            return asyncio.sleep(5, "{}")
        return spec if isinstance(spec, str) else json.dumps(spec)

    return answer


@pytest.mark.parametrize(("answer", "handler", "error"), FAILURES)
async def test_a_failing_prompt_hook_fails_open_with_an_error_vote(
    tmp_path: Path, answer: Any, handler: dict[str, Any], error: str
) -> None:
    judge = Judge(answer_of(answer))
    result = await build(tmp_path, pre_tool(**handler), bash_turns("ls"), judge).run("list")
    assert result.tool_calls[0].result.content == "ran: ls"
    [decision] = result.decisions.at(h.BEFORE_TOOL)
    [vote] = decision.votes
    assert vote.error is not None and error in vote.error


@pytest.mark.parametrize("where", ["handler", "run"])
async def test_failing_closed_blocks(tmp_path: Path, where: str) -> None:
    judge = Judge("no idea")
    if where == "handler":
        agent = build(tmp_path, pre_tool(onFailure="block"), bash_turns("ls"), judge)
    else:
        agent = build(tmp_path, pre_tool(), bash_turns("ls"), judge, on_failure_default="block")
    result = await agent.run("list")
    assert result.tool_calls[0].blocked


def test_prompt_on_session_start_is_refused_as_claude_code_never_runs_it(tmp_path: Path) -> None:
    hooks = {"SessionStart": [{"hooks": [{"type": "prompt", "prompt": "ok?"}]}]}
    with pytest.raises(h.ConfigError, match='does not run "prompt" handlers on SessionStart'):
        h.AgentBuilder().with_settings(settings(tmp_path, hooks), project_dir=tmp_path)


def test_a_model_that_cannot_be_used_is_refused_naming_the_handler(tmp_path: Path) -> None:
    hooks = pre_tool(model="nowhere:judge-1")
    with pytest.raises(h.ConfigError) as caught:
        h.AgentBuilder().with_settings(settings(tmp_path, hooks), project_dir=tmp_path)
    assert caught.value.key == "hooks.PreToolUse[0].hooks[0].model"
    assert caught.value.file == str(tmp_path / "settings.json")


async def test_a_tool_gate_asks_the_configured_prompt_model(tmp_path: Path) -> None:
    from hookagent.gate import ToolGate

    judge = Judge({"ok": False, "reason": "deletes the build"})
    options = ClaudeHookOptions(
        project_dir=str(tmp_path), prompt_model=FunctionModel(judge, name="judge")
    )
    file = settings(tmp_path, pre_tool(continueOnBlock=True))
    async with ToolGate().with_settings(file, project_dir=tmp_path, options=options) as gate:
        result = await gate.call("Bash", {"command": "rm -rf build"}, execute=lambda **_: "ran")
    assert result.blocked and "deletes the build" in result.result.content


async def test_a_tool_gate_without_a_model_fails_open_saying_what_to_set(tmp_path: Path) -> None:
    from hookagent.gate import ToolGate

    file = settings(tmp_path, pre_tool())
    options = ClaudeHookOptions(project_dir=str(tmp_path))
    async with ToolGate().with_settings(file, project_dir=tmp_path, options=options) as gate:
        result = await gate.call("Bash", {"command": "ls"}, execute=lambda **_: "ran")
    assert result.ok
    [vote] = [v for d in result.decisions for v in d.votes if v.error]
    assert "ClaudeHookOptions.prompt_model" in (vote.error or "")
