"""`hookagent run` with an asyncRewake Stop hook and with a skill's front-matter hooks."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

from . import run_cli

REVIEW = """
import json, sys
payload = json.loads(sys.stdin.read())
if not payload["stop_hook_active"]:
    print("app.py:3: SQL injection in the search query", file=sys.stderr)
    sys.exit(2)
"""
SKILL = """\
---
name: careful
description: Work carefully.
hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - type: command
          command: "echo 'not while careful is loaded' >&2; exit 2"
---
Be careful.
"""
PLUGIN = """
import hookagent as h
from hookagent.capabilities.skills import Skills
from hookagent.claude._options import ClaudeHookOptions

def configure(builder):
    @h.tool
    def Bash(command: str) -> str:
        \"\"\"Pretend to run a command.\"\"\"
        return f"ran {command}"

    builder.tools(Bash).with_(Skills("skills", hook_options=ClaudeHookOptions()))
"""


def run(root: Path, turns: list[dict[str, object]], *args: str) -> dict[str, object]:
    (root / "turns.json").write_text(json.dumps(turns))
    out = run_cli.hookagent(
        root, "run", "work", "--model", "scripted:turns.json", "--json", *args, timeout=120
    )
    assert out.returncode == 0, out.stderr
    data: dict[str, object] = json.loads(out.stdout)
    return data


def test_an_async_rewake_stop_hook_exiting_2_keeps_the_run_going(tmp_path: Path) -> None:
    (tmp_path / "review.py").write_text(textwrap.dedent(REVIEW))
    command = f"{sys.executable} review.py"
    hooks = {"Stop": [{"hooks": [{"type": "command", "command": command, "asyncRewake": True}]}]}
    (tmp_path / "settings.json").write_text(json.dumps({"hooks": hooks}))
    turns: list[dict[str, object]] = [{"text": "done"}, {"text": "fixed the query"}]
    data = run(tmp_path, turns, "--settings", "settings.json")
    assert data["output"] == "fixed the query"
    stops = [d for d in data["decisions"] if d["point"] == "stop"]  # type: ignore[attr-defined]
    assert any("SQL injection" in (d["reason"] or "") for d in stops)


def test_a_skills_hooks_run_once_the_skill_is_loaded(tmp_path: Path) -> None:
    (tmp_path / "skills" / "careful").mkdir(parents=True)
    (tmp_path / "skills" / "careful" / "SKILL.md").write_text(SKILL)
    (tmp_path / "plugin.py").write_text(textwrap.dedent(PLUGIN))
    turns: list[dict[str, object]] = [
        {"tool_calls": [{"name": "Bash", "args": {"command": "ls"}}]},
        {"tool_calls": [{"name": "Skill", "args": {"name": "careful"}}]},
        {"tool_calls": [{"name": "Bash", "args": {"command": "ls"}}]},
        {"text": "done"},
    ]
    data = run(tmp_path, turns, "--plugin", "plugin.py")
    first, _, second = data["tool_calls"]  # type: ignore[misc]
    assert first["result"] == "ran ls"
    assert second["is_error"] and "not while careful is loaded" in second["result"]


def test_a_bad_front_matter_hook_is_exit_2_naming_file_key_and_line(tmp_path: Path) -> None:
    (tmp_path / "skills" / "careful").mkdir(parents=True)
    broken = SKILL.replace('          command: "echo', '          commnd: "echo')
    (tmp_path / "skills" / "careful" / "SKILL.md").write_text(broken)
    (tmp_path / "plugin.py").write_text(textwrap.dedent(PLUGIN))
    (tmp_path / "turns.json").write_text(json.dumps([{"text": "done"}]))
    out = run_cli.hookagent(
        tmp_path, "run", "work", "--model", "scripted:turns.json", "--plugin", "plugin.py"
    )
    assert out.returncode == 2
    assert "SKILL.md" in out.stderr and "hooks.PreToolUse[0].hooks[0].command" in out.stderr
    assert "front matter line" in out.stderr
