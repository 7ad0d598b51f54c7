"""A PermissionRequest hook's `continue: false`, and a deny with `interrupt: true`, end the
run as `continue: false` from any other hook does; a plain deny refuses the call only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent.claude._options import ClaudeHookOptions
from hookagent.testing import ScriptedModel, reply, tool_call

from .hookscripts import group, script, settings


@h.tool
def Bash(command: str) -> str:
    """Pretend to run a shell command."""
    return f"ran: {command}"


ASK = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}


def permission(**output: Any) -> dict[str, Any]:
    """A PermissionRequest answer denying the call, with `output` beside it."""
    decision = {"behavior": "deny", "message": "not on this host", **output.pop("deny", {})}
    specific = {"hookEventName": "PermissionRequest", "decision": decision}
    return {"hookSpecificOutput": specific, **output}


async def run_with(tmp_path: Path, answer: dict[str, Any]) -> tuple[h.RunResult[Any], int]:
    ask = script(tmp_path, "ask", f"print(json.dumps({ASK!r}))\n")
    permit = script(tmp_path, "permit", f"print(json.dumps({answer!r}))\n")
    file = settings(
        tmp_path, {"PreToolUse": [group(ask, "Bash")], "PermissionRequest": [group(permit)]}
    )
    model = ScriptedModel([tool_call("Bash", command="rm -rf build"), reply("went on")])
    agent = (
        h.AgentBuilder()
        .model(model)
        .tools(Bash)
        .with_settings(file, project_dir=tmp_path, options=ClaudeHookOptions())
        .build()
    )
    result = await agent.run("clean", approver=lambda q: pytest.fail("the hook answers"))
    return result, model.remaining


async def test_continue_false_ends_the_run_with_its_stop_reason(tmp_path: Path) -> None:
    answer = permission(**{"continue": False, "stopReason": "change freeze"})
    result, remaining = await run_with(tmp_path, answer)
    assert (result.status, result.stop_reason) == ("stopped", "hook_stop")
    assert (result.stop_message or "").startswith("change freeze (hook claude:PermissionRequest")
    assert remaining == 1 and result.output is None
    [call] = result.tool_calls
    assert call.blocked and "change freeze" in call.result.content


async def test_continue_false_without_a_stop_reason_names_the_event(tmp_path: Path) -> None:
    result, _ = await run_with(tmp_path, permission(**{"continue": False}))
    assert result.status == "stopped"
    assert (result.stop_message or "").startswith("a PermissionRequest hook stopped the run")


async def test_a_deny_that_interrupts_ends_the_run_with_its_message(tmp_path: Path) -> None:
    result, remaining = await run_with(tmp_path, permission(deny={"interrupt": True}))
    assert (result.status, result.stop_reason) == ("stopped", "hook_stop")
    assert (result.stop_message or "").startswith("not on this host (hook claude:Permission")
    assert remaining == 1


@pytest.mark.parametrize("deny", [{}, {"interrupt": False}])
async def test_a_plain_deny_refuses_the_call_and_the_run_goes_on(
    tmp_path: Path, deny: dict[str, Any]
) -> None:
    result, remaining = await run_with(tmp_path, permission(deny=deny))
    assert (result.status, result.output, remaining) == ("completed", "went on", 0)
    [call] = result.tool_calls
    assert call.blocked and "not on this host" in call.result.content
