"""A command hook that fails (exit 1, invalid JSON, a timeout) leaves its vote, with its error,
in the decision records, as a failing Python hook does; the action goes on as in Claude Code
unless the handler says `onFailure: "block"`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent.testing import ScriptedModel, reply, tool_call

from .hookscripts import group, script, settings


@h.tool
def Bash(command: str) -> str:
    """Pretend to run a shell command."""
    return f"ran: {command}"


FAILURES = [
    pytest.param(
        "print('guard broke', file=sys.stderr); sys.exit(1)", {}, "guard broke", id="exit-1"
    ),
    pytest.param("print('{not json')", {}, "", id="invalid-json"),
    pytest.param(
        "import time; time.sleep(30)", {"timeout": 0.5}, "timed out after 0.5 s", id="timeout"
    ),
]


async def run(tmp_path: Path, body: str, handler: dict[str, Any]) -> h.RunResult[Any]:
    command = script(tmp_path, "guard", body)
    file = settings(tmp_path, {"PreToolUse": [group(command, "Bash", **handler)]})
    agent = (
        h.AgentBuilder()
        .model(ScriptedModel([tool_call("Bash", command="ls"), reply("done")]))
        .tools(Bash)
        .with_settings(file, project_dir=tmp_path)
        .build()
    )
    return await agent.run("list")


@pytest.mark.parametrize(("body", "handler", "error"), FAILURES)
async def test_a_failing_command_hook_leaves_a_vote_with_its_error(
    tmp_path: Path, body: str, handler: dict[str, Any], error: str
) -> None:
    result = await run(tmp_path, body, handler)
    [call] = result.tool_calls
    assert call.result.content == "ran: ls"  # fails open, as in Claude Code
    [decision] = result.decisions.at(h.BEFORE_TOOL)
    assert decision.outcome == "proceed"
    [vote] = decision.votes
    assert vote.hook == "claude:PreToolUse" and vote.error is not None
    assert vote.error.startswith(f"{tmp_path / 'settings.json'}:hooks.PreToolUse[0].hooks[0]: ")
    assert error in vote.error
    votes = result.to_dict()["decisions"][0]["votes"]
    assert votes[0]["error"] == vote.error  # as `run --json` prints it


async def test_invalid_json_names_the_problem(tmp_path: Path) -> None:
    result = await run(tmp_path, "print('{not json')", {})
    [decision] = result.decisions.at(h.BEFORE_TOOL)
    assert "JSON" in (decision.votes[0].error or "")


async def test_a_failure_with_on_failure_block_blocks_and_keeps_the_error(tmp_path: Path) -> None:
    result = await run(tmp_path, "sys.exit(1)", {"onFailure": "block"})
    [call] = result.tool_calls
    assert call.blocked
    [decision] = result.decisions.at(h.BEFORE_TOOL)
    assert decision.outcome == "block"
    assert "exit code 1" in (decision.votes[0].error or "")
