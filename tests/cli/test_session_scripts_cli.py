"""Continuing a session with a `scripted:` model: the script the session's last run used goes
on counting (one script serves the whole session); a new script's turns are the new run's
replies; a script that runs short says what it expected."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .run_cli import hookagent


def _script(project: Path, name: str, *turns: dict[str, Any]) -> str:
    (project / name).write_text(json.dumps(list(turns)))
    return f"scripted:{name}"


def _run(project: Path, prompt: str, model: str, *more: str) -> dict[str, Any]:
    done = hookagent(project, "run", prompt, "-m", model, "--session", "s", "--json", *more)
    assert done.returncode in (0, 1), done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_a_new_script_covers_the_new_runs_turns(tmp_path: Path) -> None:
    first = _script(tmp_path, "a.json", {"text": "first answer"})
    assert _run(tmp_path, "one", first)["output"] == "first answer"
    second = _script(tmp_path, "b.json", {"text": "second answer"}, {"text": "third"})
    assert _run(tmp_path, "two", second)["output"] == "second answer"
    # The same script again goes on where it stopped: its second turn answers run three.
    assert _run(tmp_path, "three", second)["output"] == "third"


def test_the_script_a_session_started_with_serves_the_whole_session(tmp_path: Path) -> None:
    whole = _script(tmp_path, "all.json", {"text": "one"}, {"text": "two"})
    assert _run(tmp_path, "first", whole)["output"] == "one"
    assert _run(tmp_path, "second", whole)["output"] == "two"


def test_a_script_that_runs_short_says_what_it_expected(tmp_path: Path) -> None:
    assert _run(tmp_path, "one", _script(tmp_path, "a.json", {"text": "ok"}))["status"] == (
        "completed"
    )
    call = {"tool_calls": [{"name": "nothing", "args": {}, "id": "c1"}]}
    short = _run(tmp_path, "two", _script(tmp_path, "b.json", call))
    assert short["status"] == "failed"
    error = short["error"]
    assert "the script has 1 turn and reply 2 was asked for after 1 replies of the " in error
    assert "needs a turn for every reply of this run" in error


def test_a_submitted_run_with_a_new_script_is_served_from_its_first_turn(
    tmp_path: Path,
) -> None:
    assert _run(tmp_path, "one", _script(tmp_path, "a.json", {"text": "ok"}))["output"] == "ok"
    model = _script(tmp_path, "b.json", {"text": "queued answer"})
    queued = hookagent(tmp_path, "submit", "two", "-m", model, "--session", "s")
    assert queued.returncode == 0, queued.stderr
    worked = hookagent(tmp_path, "worker", "--once", "--json")
    [_, ran] = [json.loads(line) for line in worked.stdout.splitlines()]
    assert ran["status"] == "completed", ran
    shown = hookagent(tmp_path, "sessions", "show", "s")
    assert "queued answer" in shown.stdout
