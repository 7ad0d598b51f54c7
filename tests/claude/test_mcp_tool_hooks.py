"""`mcp_tool` handlers against a real MCP SDK server (tests/capabilities/mcp_server.py): the
handler's input, with `${path}` references to the event substituted, goes to the tool; its
text is read as a command hook's stdout; `isError` results and servers that cannot start are
non-blocking errors unless the handler fails closed; an unknown server is refused at load."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent._errors import ConfigError
from hookagent.capabilities.mcp import StdioServer
from hookagent.claude._options import ClaudeHookOptions
from hookagent.testing import ScriptedModel, reply, tool_call

from .hookscripts import settings

SERVER = str(Path(__file__).parents[1] / "capabilities" / "mcp_server.py")
WHERE = "hooks.PreToolUse[0].hooks[0]"


@h.tool
def Bash(command: str) -> str:
    """Pretend to run a shell command."""
    return f"ran: {command}"


def build(tmp_path: Path, handler: dict[str, Any], servers: dict[str, Any]) -> h.Agent[Any]:
    file = settings(tmp_path, {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]})
    options = ClaudeHookOptions(project_dir=str(tmp_path), mcp_servers=servers)
    return (
        h.AgentBuilder()
        .model(ScriptedModel([tool_call("Bash", command="ls"), reply("done")]))
        .tools(Bash)
        .with_settings(file, project_dir=tmp_path, options=options)
        .build()
    )


async def run_bash(tmp_path: Path, handler: dict[str, Any], **server: Any) -> h.RunResult[Any]:
    config = server.get("config", StdioServer(command=sys.executable, args=[SERVER]))
    return await build(tmp_path, handler, {"math": config}).run("list")


def mcp(tool: str, **fields: Any) -> dict[str, Any]:
    return {"type": "mcp_tool", "server": "math", "tool": tool, **fields}


def decision(kind: str, reason: str) -> str:
    out = {"hookEventName": "PreToolUse", "permissionDecision": kind}
    return json.dumps({"hookSpecificOutput": {**out, "permissionDecisionReason": reason}})


def no_error(result: h.RunResult[Any]) -> bool:
    return all(v.error is None for d in result.decisions.at(h.BEFORE_TOOL) for v in d.votes)


def only_vote(result: h.RunResult[Any]) -> h.Vote:
    [decided] = result.decisions.at(h.BEFORE_TOOL)
    [vote] = decided.votes
    return vote


async def test_an_allow_lets_the_call_run(tmp_path: Path) -> None:
    result = await run_bash(tmp_path, mcp("echo", input={"text": decision("allow", "fine")}))
    assert result.tool_calls[0].result.content == "ran: ls"
    assert no_error(result)


async def test_plain_text_is_success(tmp_path: Path) -> None:
    result = await run_bash(tmp_path, mcp("echo", input={"text": "looks fine"}))
    assert result.tool_calls[0].result.content == "ran: ls"
    assert no_error(result)


async def test_a_deny_blocks_with_its_reason_and_input_references_are_substituted(
    tmp_path: Path,
) -> None:
    text = decision("deny", "no ${tool_input.command} from ${tool_name} today${missing.key}")
    result = await run_bash(tmp_path, mcp("echo", input={"text": text}))
    [call] = result.tool_calls
    assert call.blocked and "no ls from Bash today" in call.result.content


async def test_an_is_error_result_is_a_non_blocking_error(tmp_path: Path) -> None:
    result = await run_bash(tmp_path, mcp("fail", input={"message": "guard down"}))
    assert result.tool_calls[0].result.content == "ran: ls"
    error = only_vote(result).error or ""
    assert "math/fail returned an error" in error and "guard down" in error


async def test_an_is_error_result_blocks_when_the_handler_fails_closed(tmp_path: Path) -> None:
    result = await run_bash(tmp_path, mcp("fail", onFailure="block"))
    assert result.tool_calls[0].blocked


@pytest.mark.parametrize("on_failure", ["continue", "block"])
async def test_a_server_that_cannot_start(tmp_path: Path, on_failure: str) -> None:
    broken = StdioServer(command=str(tmp_path / "no-such-server"), connect_timeout=10)
    handler = mcp("echo", input={"text": "x"}, onFailure=on_failure)
    result = await run_bash(tmp_path, handler, config=broken)
    assert result.tool_calls[0].blocked is (on_failure == "block")
    assert "MCP server 'math' could not be reached" in (only_vote(result).error or "")


def test_a_server_that_is_not_configured_is_refused_at_load(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        build(tmp_path, {"type": "mcp_tool", "server": "guard", "tool": "check"}, {})
    message = str(caught.value)
    assert str(tmp_path / "settings.json") in message
    assert f"{WHERE}.server" in message and 'MCP server "guard" is not configured' in message


def test_a_handler_without_tool_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match='needs a non-empty "tool"') as caught:
        build(tmp_path, {"type": "mcp_tool", "server": "math"}, {})
    assert f"{WHERE}.tool" in str(caught.value)


async def test_the_timeout_is_a_non_blocking_error(tmp_path: Path) -> None:
    result = await run_bash(tmp_path, mcp("slow", input={"seconds": 30}, timeout=1))
    assert result.tool_calls[0].result.content == "ran: ls"
    assert "math/slow timed out after 1 s" in (only_vote(result).error or "")
