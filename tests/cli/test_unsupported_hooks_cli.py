"""The command line never skips a configured hook without a word: settings holding hooks
hookagent would not run are refused by `run` (exit 2) and `hooks check` / `hooks test`, unless
`--allow-unsupported-hooks`; `run` prints every warning `hooks check` prints; a failing
command hook's error is in `run --json`."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from . import run_cli

TOOLS = """
import hookagent as h

def configure(builder):
    @h.tool
    def Bash(command: str) -> str:
        \"\"\"Pretend to run a command.\"\"\"
        print(f"BASH RAN {command}")
        return f"ran {command}"

    builder.tools(Bash)
"""
RM_GUARD = {"type": "mcp-tool", "server": "guard", "tool": "check"}


def project(tmp_path: Path, hooks: dict[str, Any]) -> Path:
    (tmp_path / "settings.json").write_text(json.dumps({"hooks": hooks}))
    (tmp_path / "tools.py").write_text(textwrap.dedent(TOOLS))
    turns = [
        {"tool_calls": [{"name": "Bash", "args": {"command": "rm -rf build"}}]},
        {"text": "done"},
    ]
    (tmp_path / "turns.json").write_text(json.dumps(turns))
    return tmp_path


def run(root: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    args = ("--model", "scripted:turns.json", "--settings", "settings.json", "--plugin", "tools.py")
    return run_cli.hookagent(root, "run", "clean up", *args, *extra, timeout=120)


def warnings(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("warning: ")]


@pytest.mark.parametrize(
    ("hooks", "key", "named"),
    [
        pytest.param(
            {"PreToolUse": [{"matcher": "Bash", "hooks": [RM_GUARD]}]},
            "hooks.PreToolUse[0].hooks[0].type",
            'type "mcp-tool"',
            id="mcp-tool-type",
        ),
        pytest.param(
            {"PreToolUse": [{"hooks": [{"type": "comand", "command": "exit 2"}]}]},
            "hooks.PreToolUse[0].hooks[0].type",
            'unknown handler type "comand"',
            id="misspelled-type",
        ),
        pytest.param(
            {"PreToolUser": [{"hooks": [{"type": "command", "command": "exit 2"}]}]},
            "hooks.PreToolUser",
            'unknown event "PreToolUser"',
            id="unknown-event",
        ),
    ],
)
def test_run_refuses_settings_with_a_hook_it_would_skip(
    tmp_path: Path, hooks: dict[str, Any], key: str, named: str
) -> None:
    out = run(project(tmp_path, hooks))
    assert out.returncode == 2, out.stderr
    [error] = [line for line in out.stderr.splitlines() if line.startswith("error: ")]
    assert error.startswith(f"error: settings.json, {key}: ")
    assert named in error and "--allow-unsupported-hooks" in error
    assert "BASH RAN" not in out.stdout  # nothing ran


def test_allowed_the_run_goes_on_prints_the_warning_and_records_it(tmp_path: Path) -> None:
    root = project(tmp_path, {"PreToolUse": [{"matcher": "Bash", "hooks": [RM_GUARD]}]})
    out = run(root, "--allow-unsupported-hooks", "--json")
    assert out.returncode == 0, out.stderr
    where = "settings.json, hooks.PreToolUse[0].hooks[0].type"
    assert warnings(out.stderr) == [
        f'warning: {where}: unknown handler type "mcp-tool" (did you mean "mcp_tool"?); not run'
    ]
    data = json.loads(out.stdout[out.stdout.index("{") :])  # after the tool's own print
    [noted] = [d for d in data["decisions"] if d["point"] == "execution_start"]
    assert (noted["decision"], noted["hook"]) == ("modify", "claude:settings")
    assert where in noted["reason"]


def test_allowed_in_a_session_the_note_shows_in_sessions_show(tmp_path: Path) -> None:
    root = project(tmp_path, {"PreToolUse": [{"matcher": "Bash", "hooks": [RM_GUARD]}]})
    out = run(root, "--allow-unsupported-hooks", "--session", "s", "--store", "s.db")
    assert out.returncode == 0, out.stderr
    show = run_cli.hookagent(root, "sessions", "show", "s", "--store", "s.db", "--json")
    [noted] = [d for d in json.loads(show.stdout)["decisions"] if d["point"] == "execution_start"]
    assert "hooks.PreToolUse[0].hooks[0].type" in noted["reason"]
    text = run_cli.hookagent(root, "sessions", "show", "s", "--store", "s.db")
    assert (
        "execution_start: modify by claude:settings — 1 configured hook(s) not run" in text.stdout
    )


def test_run_prints_every_warning_hooks_check_prints(tmp_path: Path) -> None:
    hooks = {
        "PostToolUse": [
            {
                "matcher": "Edit(",
                "hooks": [{"type": "command", "command": "fmt $CLAUDE_FILE_PATHS"}],
            }
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "true", "if": "Bash(git *)"}]}],
        "TeammateIdle": [{"hooks": [{"type": "command", "command": "notify-send failed"}]}],
    }
    root = project(tmp_path, hooks)
    check = run_cli.hookagent(
        root, "hooks", "check", "--no-discover", "--settings", "settings.json"
    )
    assert check.returncode == 1  # errors found
    assert [line for line in check.stdout.splitlines() if line.startswith("error: ")] == [
        "error: settings.json, hooks.TeammateIdle: hookagent does not fire TeammateIdle"
    ]
    allowed = run_cli.hookagent(
        root,
        "hooks",
        "check",
        "--no-discover",
        "--settings",
        "settings.json",
        "--allow-unsupported-hooks",
    )
    assert allowed.returncode == 0, allowed.stdout
    assert len(warnings(allowed.stdout)) == 4  # matcher, dead variable, `if`, TeammateIdle
    out = run(root, "--allow-unsupported-hooks", "--json")
    assert out.returncode == 0, out.stderr
    assert warnings(out.stderr) == warnings(allowed.stdout)


def test_hooks_test_refuses_settings_with_a_hook_it_would_skip(tmp_path: Path) -> None:
    root = project(tmp_path, {"PreToolUse": [{"matcher": "Bash", "hooks": [RM_GUARD]}]})
    (root / "p.json").write_text(json.dumps({"tool_name": "Bash", "tool_input": {}}))
    args = ("hooks", "test", "PreToolUse", "--input", "p.json", "--no-discover")
    refused = run_cli.hookagent(root, *args, "--settings", "settings.json")
    assert refused.returncode == 2 and "hooks.PreToolUse[0].hooks[0].type" in refused.stderr
    allowed = run_cli.hookagent(
        root, *args, "--settings", "settings.json", "--allow-unsupported-hooks", "--json"
    )
    assert allowed.returncode == 0, allowed.stderr
    assert "not run" in allowed.stderr and json.loads(allowed.stdout)["hooks"] == []
    unknown = run_cli.hookagent(root, "hooks", "test", "PreToolUser", "--input", "p.json")
    assert unknown.returncode == 2 and 'unknown event "PreToolUser"' in unknown.stderr


def test_a_failing_command_hook_leaves_its_error_in_run_json(tmp_path: Path) -> None:
    broken = (
        f"{sys.executable} -c \"import sys; print('guard broke', file=sys.stderr); sys.exit(1)\""
    )
    failing = [
        {"type": "command", "command": broken},
        {"type": "command", "command": "echo '{not json'"},
        {"type": "command", "command": "sleep 30", "timeout": 1},
    ]
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": failing}]}
    out = run(project(tmp_path, hooks), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout[out.stdout.index("{") :])
    [decision] = [d for d in data["decisions"] if d["point"] == "before_tool"]
    [vote] = decision["votes"]  # the event's handlers run together: one vote naming each
    assert vote["hook"] == "claude:PreToolUse"
    errors = vote["error"].split("; settings.json:")
    assert errors[0] == "settings.json:hooks.PreToolUse[0].hooks[0]: guard broke"
    assert errors[1].startswith("hooks.PreToolUse[0].hooks[1]: hook output is not valid JSON")
    assert errors[2] == "hooks.PreToolUse[0].hooks[2]: timed out after 1 s"
    assert data["tool_calls"][0]["result"] == "ran rm -rf build"  # they fail open, as in Claude


def test_resume_rebuilds_the_agent_under_the_same_rule(tmp_path: Path) -> None:
    ask = (
        'echo \'{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
        '"permissionDecision": "ask", "permissionDecisionReason": "sure?"}}\''
    )
    asking = {"matcher": "Bash", "hooks": [{"type": "command", "command": ask}]}
    root = project(tmp_path, {"PreToolUse": [asking]})
    store = ("--store", "s.db")
    paused = run(root, "--session", "s", *store)
    assert paused.returncode == 3, paused.stderr
    approved = run_cli.hookagent(root, "approve", "s", *store)
    assert approved.returncode == 0, approved.stderr
    # the settings gain a hook hookagent would not run: the saved options do not allow it
    (root / "settings.json").write_text(
        json.dumps({"hooks": {"PreToolUse": [asking, {"hooks": [RM_GUARD]}]}})
    )
    refused = run_cli.hookagent(root, "resume", "s", *store)
    assert refused.returncode == 2
    assert "settings.json, hooks.PreToolUse[1].hooks[0].type: " in refused.stderr
    (root / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [asking]}}))
    resumed = run_cli.hookagent(root, "resume", "s", *store)
    assert resumed.returncode == 0, resumed.stderr
