"""`--json` on every command that prints: one JSON document on stdout (the worker: one object
per line), snake_case keys, the same records `sessions show --json` uses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .run_cli import hookagent
from .test_sessions_cli import PLUGIN, SCRIPT, start


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "plugin.py").write_text(PLUGIN)
    (tmp_path / "turns.json").write_text(json.dumps(SCRIPT))
    return tmp_path


def json_of(project: Path, *args: str, code: int = 0) -> Any:
    done = hookagent(project, *args, "--json")
    assert done.returncode == code, done.stderr
    return json.loads(done.stdout)


def test_approve_json_names_what_was_answered_and_how_to_resume(project: Path) -> None:
    run_id = start(project, "ops")["run_id"]
    out = json_of(project, "approve", "ops", "--scope", "run", "--ttl", "60")
    [answered] = out["answered"]
    assert out["run_id"] == run_id and out["resume"] == f"hookagent resume {run_id}"
    assert (answered["call_id"], answered["tool"], answered["args"]) == (
        "c1",
        "deploy",
        {"env": "prod"},
    )
    assert (answered["approved"], answered["scope"], answered["ttl"]) == (True, "run", 60)
    assert answered["by"].startswith("cli:") and answered["run_id"] == run_id

    resumed = json_of(project, "resume", run_id)
    assert resumed["status"] == "completed" and resumed["session"] == "ops"


def test_deny_json_with_resume_is_the_resumed_run_with_what_was_answered(project: Path) -> None:
    start(project, "ops")
    out = json_of(project, "deny", "ops", "--reason", "not today", "--resume")
    assert out["status"] == "completed" and out["questions"] == []
    [answered] = out["answered"]
    assert (answered["approved"], answered["scope"], answered["reason"]) == (
        False,
        None,
        "not today",
    )
    [call] = out["tool_calls"]
    assert call["blocked"] and "not today" in call["result"]


def test_sessions_fork_json_is_the_new_session(project: Path) -> None:
    start(project, "base")
    assert hookagent(project, "approve", "base", "--resume").returncode == 0
    forked = json_of(project, "sessions", "fork", "base", "--name", "branch")
    base = json_of(project, "sessions", "show", "base")["session"]
    assert forked["name"] == "branch" and forked["forked_from"] == base["id"]
    assert set(forked) == set(base)  # the record `sessions ls --json` lists


def test_worker_json_prints_one_object_per_event(project: Path) -> None:
    run_id = start(project, "ops")["run_id"]
    assert hookagent(project, "approve", "ops").returncode == 0
    done = hookagent(project, "worker", "--once", "--json")
    assert done.returncode == 0, done.stderr
    started, ran = [json.loads(line) for line in done.stdout.splitlines()]
    assert started["event"] == "started" and started["store"].endswith("sessions.db")
    assert (ran["event"], ran["run_id"], ran["session"]) == ("run", run_id, "ops")
    assert (ran["status"], ran["stop_reason"], ran["error"]) == ("completed", "completed", None)
    assert isinstance(ran["time"], float)


LONG = "/a/very/long/path/to/the/project/.claude/hooks/check_every_bash_command.py --log [x]"


def test_hooks_check_json_wide_and_whole_commands(tmp_path: Path) -> None:
    hooks = {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": LONG}]}],
        "TeammateIdle": [{"hooks": [{"type": "command", "command": "true"}]}],
    }
    (tmp_path / "s.json").write_text(json.dumps({"hooks": hooks}))
    args = ("hooks", "check", "--no-discover", "--settings", "s.json")
    report = json_of(tmp_path, *args, code=1)  # TeammateIdle is not fired: an error
    assert report["files"] == ["s.json"] and not report["ok"]
    first = report["handlers"][0]
    assert (first["event"], first["point"], first["command"]) == ("PreToolUse", "before_tool", LONG)
    assert report["handlers"][1]["point"] is None
    assert report["errors"] == ["s.json, hooks.TeammateIdle: hookagent does not fire TeammateIdle"]

    text = hookagent(tmp_path, *args)
    assert text.returncode == 1
    assert f"  {LONG}\n" in text.stdout  # whole, on a line of its own, brackets kept
    assert "PreToolUse · before_tool · matcher Bash · timeout 600 s" in text.stdout
    wide = hookagent(tmp_path, *args, "--wide")
    [row] = [line for line in wide.stdout.splitlines() if "PreToolUse" in line]
    assert LONG in row and "s.json:hooks.PreToolUse[0].hooks[0]" in row
