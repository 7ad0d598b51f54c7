"""The CLI with Claude Code settings: `run --settings`, `hooks check`, `hooks test`."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from . import run_cli

GUARD = """
import json, sys
payload = json.loads(sys.stdin.read())
if "rm -rf" in payload["tool_input"].get("command", ""):
    print("rm -rf is not allowed here", file=sys.stderr)
    sys.exit(2)
"""
STOP_GATE = """
import json, sys
if not json.loads(sys.stdin.read())["stop_hook_active"]:
    print(json.dumps({"decision": "block", "reason": "run the tests"}))
"""
TOOLS = """
import hookagent as h

def configure(builder):
    @h.tool
    def Bash(command: str) -> str:
        \"\"\"Pretend to run a command.\"\"\"
        return f"ran {command}"

    builder.tools(Bash)
"""


def project(tmp_path: Path) -> Path:
    (tmp_path / ".claude" / "hooks").mkdir(parents=True)
    for name, body in (("guard", GUARD), ("stop_gate", STOP_GATE)):
        (tmp_path / ".claude" / "hooks" / f"{name}.py").write_text(textwrap.dedent(body))
    hook = '"$CLAUDE_PROJECT_DIR"/.claude/hooks/{}.py'
    settings = {
        "permissions": {"allow": ["Bash(ls:*)"]},
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [
                        {"type": "command", "command": f"{sys.executable} {hook.format('guard')}"}
                    ],
                }
            ],
            "Stop": [
                {
                    "hooks": [
                        {
                            "type": "command",
                            "command": f"{sys.executable} {hook.format('stop_gate')}",
                        }
                    ]
                }
            ],
        },
    }
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(settings))
    (tmp_path / "tools.py").write_text(textwrap.dedent(TOOLS))
    return tmp_path


def hookagent(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli.hookagent(cwd, *args, timeout=120)


def test_run_with_settings_blocks_rm_rf_and_a_stop_hook_forces_one_more_step(
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    turns = [
        {"tool_calls": [{"name": "Bash", "args": {"command": "rm -rf build"}}]},
        {"text": "done"},
        {"text": "tests ran, done"},
    ]
    (root / "turns.json").write_text(json.dumps(turns))
    out = hookagent(
        root,
        "run",
        "clean up",
        "--model",
        "scripted:turns.json",
        "--settings",
        ".claude/settings.json",
        "--plugin",
        "tools.py",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    [call] = data["tool_calls"]
    assert call["is_error"] and "rm -rf is not allowed here" in call["result"]
    stops = [d for d in data["decisions"] if d["point"] == "stop"]
    assert [(d["decision"], d["reason"]) for d in stops] == [("block", "run the tests")]
    assert data["output"] == "tests ran, done"
    transcripts = list((root / ".hookagent" / "transcripts").glob("*.jsonl"))
    assert len(transcripts) == 1 and transcripts[0].read_text().count("\n") >= 4


def test_hooks_check_lists_handlers_and_their_points(tmp_path: Path) -> None:
    root = project(tmp_path)
    out = hookagent(root, "hooks", "check", "--no-discover", "--settings", ".claude/settings.json")
    assert out.returncode == 0, out.stderr
    assert "PreToolUse" in out.stdout and "before_tool" in out.stdout
    assert "Stop" in out.stdout and "stop" in out.stdout
    assert "2 handlers" in out.stdout


def test_hooks_check_names_the_file_and_path_of_a_bad_setting(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": -1}]}]
                }
            }
        )
    )
    out = hookagent(tmp_path, "hooks", "check", "--no-discover", "--settings", "bad.json")
    assert out.returncode == 2
    assert "bad.json" in out.stderr and "hooks.PreToolUse[0].hooks[0].timeout" in out.stderr


def test_hooks_test_runs_matching_hooks_on_a_payload(tmp_path: Path) -> None:
    root = project(tmp_path)
    payload = {"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}, "tool_use_id": "t1"}
    (root / "payload.json").write_text(json.dumps(payload))
    out = hookagent(
        root,
        "hooks",
        "test",
        "PreToolUse",
        "--input",
        "payload.json",
        "--settings",
        ".claude/settings.json",
        "--no-discover",
        "--json",
    )
    assert out.returncode == 1, out.stderr  # the hooks deny it
    assert "the hooks deny this PreToolUse" in out.stderr
    report = json.loads(out.stdout)
    assert report["decision"] == "deny"
    assert report["reason"] == "rm -rf is not allowed here"
    [hook] = report["hooks"]
    assert hook["exit_code"] == 2 and "guard.py" in hook["command"]
    assert set(report) >= {
        "updated_input",
        "additional_context",
        "continue",
        "stop_reason",
        "system_message",
    }


def test_hooks_test_with_a_command_and_no_match(tmp_path: Path) -> None:
    (tmp_path / "p.json").write_text(json.dumps({"tool_name": "Read", "tool_input": {}}))
    allow = (
        'echo \'{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
        '"permissionDecision": "allow"}}\''
    )
    out = hookagent(
        tmp_path, "hooks", "test", "PreToolUse", "--input", "p.json", "--command", allow, "--json"
    )
    assert json.loads(out.stdout)["decision"] == "allow"
    root = project(tmp_path / "proj")
    (root / "p.json").write_text(json.dumps({"tool_name": "Read", "tool_input": {}}))
    none = hookagent(
        root,
        "hooks",
        "test",
        "PreToolUse",
        "--input",
        "p.json",
        "--settings",
        ".claude/settings.json",
        "--no-discover",
        "--json",
    )
    assert json.loads(none.stdout) | {"hooks": []} == json.loads(none.stdout)
    assert json.loads(none.stdout)["decision"] == "none"


def test_run_with_real_file_tools_and_bash(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    turns = [
        {"tool_calls": [{"name": "Write", "args": {"file_path": "hello.txt", "content": "hi\n"}}]},
        {"tool_calls": [{"name": "Bash", "args": {"command": "cat hello.txt && pwd"}}]},
        {"tool_calls": [{"name": "Read", "args": {"file_path": "../outside.txt"}}]},
        {"text": "done"},
    ]
    (tmp_path / "turns.json").write_text(json.dumps(turns))
    out = hookagent(
        tmp_path,
        "run",
        "go",
        "--model",
        "scripted:turns.json",
        "--root",
        "work",
        "--allow-bash",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    write, bash, escape = json.loads(out.stdout)["tool_calls"]
    assert (work / "hello.txt").read_text() == "hi\n" and not write["is_error"]
    assert bash["result"].startswith("hi\n") and str(work.resolve()) in bash["result"]
    assert escape["is_error"] and "outside" in escape["result"]
    assert not (tmp_path / "outside.txt").exists()


def test_hooks_test_prints_a_reason_with_brackets_as_it_is(tmp_path: Path) -> None:
    """A hook's words are not read as console markup: `[red]` is printed, not eaten."""
    (tmp_path / "p.json").write_text(json.dumps({"tool_name": "Bash", "tool_input": {}}))
    deny = 'echo "no: [bold]rm[/bold] on [red]/[/red]" >&2; exit 2'
    out = hookagent(tmp_path, "hooks", "test", "PreToolUse", "--input", "p.json", "--command", deny)
    assert "decision: deny — no: [bold]rm[/bold] on [red]/[/red]" in out.stdout
