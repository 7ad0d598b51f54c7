"""`hookagent setup` fires the Claude Code Setup hooks alone (trigger init or maintenance),
and `hookagent run --init` fires them before SessionStart; run for real."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from .run_cli import hookagent

LOGGER = """
import json, os, sys
data = json.loads(sys.stdin.read())
with open(os.environ["RECORD_TO"], "a") as out:
    out.write(json.dumps(data) + "\\n")
if data["hook_event_name"] == "Setup":
    with open(os.environ["CLAUDE_ENV_FILE"], "a") as env:
        env.write("export TOOLCHAIN=ready\\n")
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "Setup",
                                             "additionalContext": "set up: " + data["trigger"]}}))
"""


def project(tmp_path: Path, matcher: str | None = None) -> tuple[Path, dict[str, str]]:
    script = tmp_path / "log.py"
    script.write_text(LOGGER)
    handler = {"hooks": [{"type": "command", "command": f"{sys.executable} {script}"}]}
    setup = {**handler, **({"matcher": matcher} if matcher else {})}
    file = tmp_path / "settings.json"
    file.write_text(json.dumps({"hooks": {"SessionStart": [handler], "Setup": [setup]}}))
    return file, {"RECORD_TO": str(tmp_path / "seen.jsonl")}


def seen(tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "seen.jsonl"
    lines = path.read_text().splitlines() if path.exists() else []
    return [json.loads(line) for line in lines]


def test_setup_fires_the_setup_hooks_alone_and_reports_them(tmp_path: Path) -> None:
    file, env = project(tmp_path)
    done = hookagent(tmp_path, "setup", "--settings", str(file), "--json", env=env)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["additional_context"] == ["set up: init"]
    assert report["exports"] == ["export TOOLCHAIN=ready"]
    assert report["settings_files"] == [str(file)]
    (payload,) = seen(tmp_path)  # SessionStart did not fire
    assert (payload["hook_event_name"], payload["trigger"]) == ("Setup", "init")
    assert payload["cwd"] == str(tmp_path)


def test_setup_maintenance_runs_the_maintenance_hooks(tmp_path: Path) -> None:
    file, env = project(tmp_path, matcher="maintenance")
    init = hookagent(tmp_path, "setup", "--settings", str(file), env=env)
    assert init.returncode == 0, init.stderr
    assert seen(tmp_path) == []  # the matcher tests the trigger
    done = hookagent(tmp_path, "setup", "--maintenance", "--settings", str(file), env=env)
    assert done.returncode == 0, done.stderr
    assert "context: set up: maintenance" in done.stdout
    assert [p["trigger"] for p in seen(tmp_path)] == ["maintenance"]


def test_setup_with_a_missing_settings_file_is_exit_2(tmp_path: Path) -> None:
    done = hookagent(tmp_path, "setup", "--settings", str(tmp_path / "nope.json"))
    assert done.returncode == 2
    assert "nope.json" in done.stderr


def run(tmp_path: Path, file: Path, env: dict[str, str], *flags: str) -> Any:
    turns = tmp_path / "turns.json"
    turns.write_text(json.dumps([{"text": "done"}]))
    args = ("run", "go", "-m", f"scripted:{turns}", "--settings", str(file), *flags)
    return hookagent(tmp_path, *args, env=env)


def test_run_init_fires_setup_before_session_start(tmp_path: Path) -> None:
    file, env = project(tmp_path)
    done = run(tmp_path, file, env, "--init")
    assert done.returncode == 0, done.stderr
    events = [(p["hook_event_name"], p.get("trigger") or p.get("source")) for p in seen(tmp_path)]
    assert events == [("Setup", "init"), ("SessionStart", "startup")]


def test_run_without_init_fires_no_setup(tmp_path: Path) -> None:
    file, env = project(tmp_path)
    done = run(tmp_path, file, env)
    assert done.returncode == 0, done.stderr
    assert [p["hook_event_name"] for p in seen(tmp_path)] == ["SessionStart"]


def test_setup_of_a_claude_project(tmp_path: Path) -> None:
    file, env = project(tmp_path)
    app = tmp_path / "app"
    (app / ".claude").mkdir(parents=True)
    (app / ".claude" / "settings.json").write_text(file.read_text())
    env = {**env, "HOME": str(tmp_path / "home")}
    done = hookagent(tmp_path, "setup", "--claude-project", str(app), "--json", env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["additional_context"] == ["set up: init"]
    (payload,) = seen(tmp_path)
    assert payload["cwd"] == str(app)
