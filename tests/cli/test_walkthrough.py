"""The README's "One session from the command line, start to finish", run as it is written:
its files written as shown, its commands run in a shell in order, each exit code as noted."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
FILE = re.compile(r"<!-- walkthrough-file: (?P<name>\S+) -->\n```[a-z]*\n(?P<body>.*?)```", re.S)
COMMANDS = re.compile(r"<!-- walkthrough-commands -->\n```\n(?P<body>.*?)```", re.S)
EXIT = re.compile(r"\s+# exit (\d+)$")


def walkthrough() -> tuple[dict[str, str], list[tuple[str, int]]]:
    text = README.read_text(encoding="utf-8")
    files = {m["name"]: m["body"] for m in FILE.finditer(text)}
    block = COMMANDS.search(text)
    assert block is not None, "the README has no walkthrough commands"
    commands = []
    for line in block["body"].splitlines():
        assert line.startswith("$ "), line
        command, code = line[2:], 0
        if found := EXIT.search(command):
            command, code = command[: found.start()], int(found.group(1))
        commands.append((command, code))
    return files, commands


def test_the_readme_walkthrough_runs_as_written(tmp_path: Path) -> None:
    files, commands = walkthrough()
    assert set(files) == {"turns.json", "notes_server.py", ".mcp.json", ".claude/settings.json"}
    for name, body in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(body, encoding="utf-8")
    env = {
        **os.environ,
        "NO_COLOR": "1",
        # `hookagent` and `python` as a user with this environment active has them
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    out: list[str] = []
    for command, code in commands:
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
        assert done.returncode == code, (command, done.stdout, done.stderr)
        out.append(done.stdout)
    paused, approved, resumed, shown, same, stricter = (
        json.loads(o) for o in (out[0], out[1], out[2], out[3], out[4], out[6])
    )
    assert paused["status"] == "waiting"
    [question] = paused["questions"]
    assert (question["tool"], question["question"]) == (
        "mcp__notes__save",
        "a person checks every note",
    )
    assert [a["approved"] for a in approved["answered"]] == [True]
    assert (resumed["status"], resumed["output"]) == ("completed", "Saved the note.")
    assert [c["result"] for c in resumed["tool_calls"]] == ["saved: ship on Friday"]
    assert shown["session"]["status"] == "completed"
    assert same["changed"] == 0
    assert stricter["changed"] == 1 and stricter["changes"][0]["after"].startswith("block")
    assert (tmp_path / "notes.txt").read_text() == "ship on Friday\n"  # once, after approval
