"""Hook scripts as people write them for Claude Code: bash with jq, run unchanged."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import hookagent as h
from hookagent.claude._options import ClaudeHookOptions
from hookagent.testing import ScriptedModel, reply, tool_call

pytestmark = pytest.mark.skipif(shutil.which("jq") is None, reason="jq is not installed")

BLOCK_RM = """#!/usr/bin/env bash
cmd=$(jq -r '.tool_input.command // empty')
if echo "$cmd" | grep -qE 'rm[[:space:]]+-rf'; then
  echo "Blocked: $cmd" >&2
  exit 2
fi
exit 0
"""
PROTECT_ENV = """#!/usr/bin/env bash
read -r line
path=$(echo "$line" | jq -r '.tool_input.file_path // empty')
case "$path" in
  *.env|*/.env)
    jq -n --arg p "$path" '{hookSpecificOutput: {hookEventName: "PreToolUse",
      permissionDecision: "deny", permissionDecisionReason: ("protected file: " + $p)}}'
    ;;
esac
"""


@h.tool
def Bash(command: str) -> str:
    """Pretend to run a command."""
    return f"ran {command}"


@h.tool
def Write(file_path: str, content: str) -> str:
    """Pretend to write a file."""
    return f"wrote {file_path}"


def install(tmp_path: Path) -> Path:
    hooks = tmp_path / ".claude" / "hooks"
    hooks.mkdir(parents=True)
    for name, body in (("block_rm.sh", BLOCK_RM), ("protect_env.sh", PROTECT_ENV)):
        (hooks / name).write_text(body)
        (hooks / name).chmod(0o755)
    settings = {
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [
                        {
                            "type": "command",
                            "command": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/block_rm.sh',
                        }
                    ],
                },
                {
                    "matcher": "Edit|Write",
                    "hooks": [
                        {
                            "type": "command",
                            "command": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/protect_env.sh',
                        }
                    ],
                },
            ]
        }
    }
    path = tmp_path / ".claude" / "settings.json"
    path.write_text(json.dumps(settings))
    return path


async def test_bash_and_jq_scripts_block_and_deny_as_in_claude_code(tmp_path: Path) -> None:
    settings = install(tmp_path)
    model = ScriptedModel(
        [
            tool_call("Bash", command="rm -rf /tmp/x"),
            tool_call("Write", file_path=".env", content="KEY=1"),
            tool_call("Write", file_path="notes.txt", content="ok"),
            reply("done"),
        ]
    )
    agent = (
        h.AgentBuilder()
        .model(model)
        .tools(Bash, Write)
        .with_settings(
            settings, project_dir=tmp_path, options=ClaudeHookOptions(project_dir=str(tmp_path))
        )
        .build()
    )
    result = await agent.run("tidy")
    rm, env, notes = result.tool_calls
    assert rm.blocked and "Blocked: rm -rf /tmp/x" in rm.result.content
    assert env.blocked and f"protected file: {tmp_path.resolve() / '.env'}" in env.result.content
    assert notes.result.content == "wrote notes.txt"
