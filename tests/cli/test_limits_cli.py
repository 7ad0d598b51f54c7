"""Limits from the command line mean what they say: a run that answers on its last allowed
step completed; one a limit stopped says so, with the limit's message."""

from __future__ import annotations

import json
from pathlib import Path

from .run_cli import hookagent


def test_max_steps_1_with_one_reply_is_completed(tmp_path: Path) -> None:
    (tmp_path / "turns.json").write_text(json.dumps([{"text": "the answer"}]))
    args = ("run", "hi", "-m", "scripted:turns.json", "--max-steps", "1")
    done = hookagent(tmp_path, *args, "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert (out["status"], out["stop_reason"], out["output"]) == (
        "completed",
        "completed",
        "the answer",
    )
    text = hookagent(tmp_path, *args)
    assert "completed · stop reason: completed" in text.stdout


def test_a_run_a_limit_stopped_shows_the_limit(tmp_path: Path) -> None:
    call = {"tool_calls": [{"name": "missing", "args": {}}]}
    (tmp_path / "turns.json").write_text(json.dumps([call, {"text": "done"}]))
    done = hookagent(tmp_path, "run", "hi", "-m", "scripted:turns.json", "--max-steps", "1")
    assert done.returncode == 0, done.stderr
    assert "stopped · stop reason: steps_limit" in done.stdout
    assert "step limit reached (1 steps)" in done.stdout
