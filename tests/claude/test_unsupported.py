"""Settings holding hooks hookagent would not run are refused, or run without them when the
user says so: then each run records what was not run."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent.claude._bridge import NOT_RUN_KEY
from hookagent.testing import ScriptedModel, reply, tool_call

from .hookscripts import settings

RM_GUARD = {"type": "mcp-tool", "server": "guard", "tool": "check"}
"""A guard of a type hookagent does not know: loaded silently, it would let `rm -rf` through."""


@h.tool
def Bash(command: str) -> str:
    """Pretend to run a shell command."""
    return f"ran: {command}"


def builder(*turns: h.ModelResponse) -> h.AgentBuilder:
    return h.AgentBuilder().model(ScriptedModel(list(turns))).tools(Bash)


CASES = [
    pytest.param(
        {"PreToolUse": [{"matcher": "Bash", "hooks": [RM_GUARD]}]},
        "hooks.PreToolUse[0].hooks[0].type",
        "mcp-tool",
        'unknown handler type "mcp-tool" (did you mean "mcp_tool"?)',
        id="unknown-type",
    ),
    pytest.param(
        {"PreToolUse": [{"hooks": [{"type": "comand", "command": "guard.sh"}]}]},
        "hooks.PreToolUse[0].hooks[0].type",
        "comand",
        'unknown handler type "comand" (did you mean "command"?)',
        id="misspelled-type",
    ),
    pytest.param(
        {"PreToolUser": [{"hooks": [{"type": "command", "command": "guard.sh"}]}]},
        "hooks.PreToolUser",
        "PreToolUser",
        'unknown event "PreToolUser"',
        id="unknown-event",
    ),
    pytest.param(
        {"CwdChanged": [{"hooks": [{"type": "command", "command": "reload-env.sh"}]}]},
        "hooks.CwdChanged",
        "CwdChanged",
        "hookagent does not fire CwdChanged",
        id="event-not-fired",
    ),
]


@pytest.mark.parametrize(("hooks", "key", "value", "message"), CASES)
def test_settings_with_a_hook_hookagent_would_not_run_are_refused(
    tmp_path: Path, hooks: dict[str, Any], key: str, value: str, message: str
) -> None:
    file = settings(tmp_path, hooks)
    with pytest.raises(h.ConfigError) as caught:
        builder().with_settings(file, project_dir=tmp_path)
    error = caught.value
    assert (error.file, error.key, error.value) == (str(file), key, value)
    assert str(error).startswith(f"{file}, {key}: {message}")
    assert "--allow-unsupported-hooks" in str(error) and "allow_unsupported=True" in str(error)


def test_the_refusal_counts_the_others(tmp_path: Path) -> None:
    hooks = {
        "PreToolUse": [{"hooks": [RM_GUARD, {"type": "mcp-tool", "server": "s", "tool": "t"}]}],
        "Nope": [{"hooks": []}],
    }
    with pytest.raises(h.ConfigError, match=r"\(and 2 more: hooks\.PreToolUse\[0\]\.hooks\[1\]"):
        builder().with_settings(settings(tmp_path, hooks), project_dir=tmp_path)


async def test_allowed_they_are_logged_and_every_run_records_them(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    file = settings(tmp_path, {"PreToolUse": [{"matcher": "Bash", "hooks": [RM_GUARD]}]})
    caplog.set_level(logging.WARNING, logger="hookagent.claude")
    agent = (
        builder(tool_call("Bash", command="rm -rf build"), reply("done"))
        .with_settings(file, project_dir=tmp_path, allow_unsupported=True)
        .build()
    )
    where = f"{file}, hooks.PreToolUse[0].hooks[0].type"
    assert [r.getMessage() for r in caplog.records] == [
        f'{where}: unknown handler type "mcp-tool" (did you mean "mcp_tool"?); not run'
    ]
    result = await agent.run("clean up")
    assert result.status == "completed"
    assert result.tool_calls[0].result.content == "ran: rm -rf build"  # as the user allowed
    assert result.state.metadata[NOT_RUN_KEY] == [
        f'{where}: unknown handler type "mcp-tool" (did you mean "mcp_tool"?)'
    ]
    [decision] = result.decisions.at(h.EXECUTION_START)
    [vote] = decision.votes
    assert (vote.hook, vote.decision) == ("claude:settings", "modify")
    assert decision.reason == vote.reason
    assert vote.reason is not None and vote.reason.startswith("1 configured hook(s) not run")
    assert where in vote.reason


def test_hooks_switched_off_by_disable_all_hooks_are_not_refused(tmp_path: Path) -> None:
    hooks = {"PreToolUse": [{"hooks": [RM_GUARD]}]}
    file = settings(tmp_path, hooks, disableAllHooks=True)
    builder().with_settings(file, project_dir=tmp_path).build()
