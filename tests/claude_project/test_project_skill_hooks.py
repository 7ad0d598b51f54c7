"""A `--claude-project` skill's front-matter hooks run as the project's own: with the
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
