"""A `--claude-project` skill's and subagent's front-matter hooks run as the project's own: with the
project's hook options (transcripts under the project, wherever the command runs), and live
from the start when the prompt is the skill's slash command."""

from __future__ import annotations

import json
from pathlib import Path

from cli.run_cli import hookagent

SKILL = """---
name: lint
description: Lint a file.
hooks:
  PreToolUse:
    - matcher: Read
      hooks:
        - type: command
          command: "cat >> {log}; echo >> {log}"
---
Lint $ARGUMENTS and report what you find.
"""


def test_a_slash_commands_skill_hooks_run_from_the_start_under_the_project(
    tmp_path: Path,
) -> None:
    project, elsewhere = tmp_path / "app", tmp_path / "elsewhere"
    log = tmp_path / "pre_tool.log"
    skill = project / ".claude" / "skills" / "lint" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(SKILL.format(log=log))
    (project / "notes.txt").write_text("hello")
    elsewhere.mkdir()
    turns = tmp_path / "turns.json"
    read = {"name": "Read", "args": {"file_path": "notes.txt"}}
    turns.write_text(json.dumps([{"tool_calls": [read]}, {"text": "clean"}]))
    done = hookagent(
        elsewhere,
        "run",
        "/lint",
        "notes.txt",
        "--claude-project",
        str(project),
        "-m",
        f"scripted:{turns}",
        "--json",
        env={"HOME": str(tmp_path / "home")},
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    (start,) = [d for d in result["decisions"] if d["point"] == "execution_start"]
    assert start["votes"][0]["changes"]["metadata"] == {"claude.skills_loaded": {"after": ["lint"]}}
    (payload,) = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    assert payload["hook_event_name"] == "PreToolUse"
    assert payload["tool_name"] == "Read"
    transcript = Path(payload["transcript_path"])
    assert transcript.is_relative_to(project / ".hookagent" / "transcripts")
    assert not (elsewhere / ".hookagent").exists()


AGENT = """---
name: reader
description: Reads files.
hooks:
  PreToolUse:
    - matcher: Read
      hooks:
        - type: command
          command: "cat >> {log}; echo >> {log}"
---
You read files.
"""


def test_a_project_subagents_hooks_write_under_the_project(tmp_path: Path) -> None:
    project, elsewhere = tmp_path / "app", tmp_path / "elsewhere"
    log = tmp_path / "child_pre_tool.log"
    agent = project / ".claude" / "agents" / "reader.md"
    agent.parent.mkdir(parents=True)
    agent.write_text(AGENT.format(log=log))
    settings = {"permissions": {"allow": ["Agent", "Read"]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    (project / "notes.txt").write_text("hello")
    elsewhere.mkdir()
    delegate = {"description": "r", "prompt": "read notes.txt", "subagent_type": "reader"}
    read = {"name": "Read", "args": {"file_path": "notes.txt"}}
    turns = [
        {"tool_calls": [{"name": "Agent", "args": delegate}]},
        {"tool_calls": [read]},
        {"text": "it says hello"},
        {"text": "done"},
    ]
    (tmp_path / "turns.json").write_text(json.dumps(turns))
    done = hookagent(
        elsewhere,
        "run",
        "read it",
        "--claude-project",
        str(project),
        "-m",
        f"scripted:{tmp_path / 'turns.json'}",
        env={"HOME": str(tmp_path / "home")},
    )
    assert done.returncode == 0, done.stderr
    (payload,) = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    assert payload["agent_type"] == "reader"
    assert Path(payload["transcript_path"]).is_relative_to(project / ".hookagent" / "transcripts")
    assert not (elsewhere / ".hookagent").exists()
