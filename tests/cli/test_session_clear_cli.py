"""`hookagent run --session NAME --clear`: the session's conversation starts afresh, as after
Claude Code's /clear, and SessionStart hooks are told so (source `clear`)."""

from __future__ import annotations

import json
from pathlib import Path

from .run_cli import hookagent
from .session_log import logged, session_hooks


def project(tmp_path: Path) -> Path:
    session_hooks(tmp_path)
    (tmp_path / "first.json").write_text(json.dumps([{"text": "one"}, {"text": "two"}]))
    (tmp_path / "fresh.json").write_text(json.dumps([{"text": "fresh"}]))
    return tmp_path


def run(root: Path, prompt: str, script: str, *more: str) -> str:
    args = ("--model", f"scripted:{script}", "--settings", "settings.json", "--json", *more)
    done = hookagent(root, "run", prompt, *args)
    assert done.returncode == 0, done.stdout + done.stderr
    return str(json.loads(done.stdout)["run_id"])


def test_clear_starts_the_session_afresh_and_session_start_says_clear(tmp_path: Path) -> None:
    root = project(tmp_path)
    run(root, "first", "first.json", "--session", "chat")
    cleared = run(root, "new topic", "fresh.json", "--session", "chat", "--clear")
    run(root, "and then", "first.json", "--session", "chat")
    assert logged(root) == [
        "SessionStart startup",
        "SessionEnd other",
        "SessionStart clear",
        "SessionEnd other",
        "SessionStart resume",
        "SessionEnd other",
    ]
    shown = json.loads(hookagent(root, "sessions", "show", "chat", "--json").stdout)
    assert [r["id"] for r in shown["runs"]][1] == cleared  # the same session, a new run
    said = [m["content"] for m in shown["messages"] if m["role"] in ("user", "assistant")]
    assert said == ["new topic", "fresh", "and then", "one"]  # nothing from before the clear


def test_clear_needs_a_session_and_a_run_started_here(tmp_path: Path) -> None:
    root = project(tmp_path)
    alone = hookagent(root, "run", "x", "--model", "scripted:fresh.json", "--clear")
    assert alone.returncode == 2
    assert "error: --clear: starts a session's conversation afresh: name the session" in (
        alone.stderr
    )
    queued = hookagent(
        root,
        "submit",
        "x",
        "-m",
        "scripted:fresh.json",
        "-s",
        "settings.json",
        "--session",
        "chat",
        "--clear",
    )
    assert queued.returncode == 2 and "a queued run starts in a worker" in queued.stderr
    assert not (root / ".hookagent").exists(), "refused before a store was opened"
