"""`hookagent submit`: a run queued with `run`'s options, which `hookagent worker` serves; and
runs submitted from Python, served when they saved their options, else skipped with what is
missing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import hookagent as h
from hookagent.store._open import open_store
from hookagent.testing import ScriptedModel

from .run_cli import hookagent

TURNS = [
    {"tool_calls": [{"name": "echo", "args": {"text": "from the plugin"}, "id": "c1"}]},
    {"text": "all done"},
]
PLUGIN = '''
import hookagent as h

@h.tool
def echo(text: str) -> str:
    """Return the text."""
    return text

def configure(builder):
    builder.tools(echo)
'''


def _project(tmp_path: Path) -> Path:
    (tmp_path / "turns.json").write_text(json.dumps(TURNS))
    (tmp_path / "plugin.py").write_text(PLUGIN)
    return tmp_path


def _worker(tmp_path: Path) -> list[dict[str, Any]]:
    done = hookagent(tmp_path, "worker", "--once", "--json")
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_submit_queues_a_run_that_the_worker_completes(tmp_path: Path) -> None:
    project = _project(tmp_path)
    args = ("submit", "go", "-m", "scripted:turns.json", "-p", "plugin.py", "--session", "s")
    submitted = hookagent(project, *args, "--json")
    assert submitted.returncode == 0, submitted.stderr
    queued = json.loads(submitted.stdout)
    assert (queued["session"], queued["status"]) == ("s", "queued")
    assert queued["worker"] == "hookagent worker --once"
    [_, ran] = _worker(project)
    assert (ran["event"], ran["run_id"], ran["status"]) == ("run", queued["run_id"], "completed")
    shown = hookagent(project, "sessions", "show", "s", "--json")
    assert "all done" in shown.stdout


def test_submit_in_text_names_the_run_and_the_worker_command(tmp_path: Path) -> None:
    project = _project(tmp_path)
    args = ("submit", "go", "-m", "scripted:turns.json", "-p", "plugin.py", "--store", "q.db")
    submitted = hookagent(project, *args)
    assert submitted.returncode == 0, submitted.stderr
    assert submitted.stdout.startswith("queued run ")
    assert "hookagent worker --once --store q.db" in submitted.stdout
    worked = hookagent(project, "worker", "--once", "--store", "q.db")
    assert "completed" in worked.stdout


def test_submit_without_a_session_or_store_is_exit_2(tmp_path: Path) -> None:
    done = hookagent(_project(tmp_path), "submit", "go", "-m", "scripted:turns.json")
    assert done.returncode == 2
    assert "error: --session:" in done.stderr
    assert not (tmp_path / ".hookagent").exists()


def test_submit_refuses_bad_options_before_anything_is_queued(tmp_path: Path) -> None:
    project = _project(tmp_path)
    base = ("submit", "go", "-m", "scripted:turns.json", "--session", "s")
    steps = hookagent(project, *base, "--max-steps", "0")
    assert steps.returncode == 2
    assert "--max-steps" in steps.stderr
    plugin = hookagent(project, *base, "-p", "missing.py")
    assert plugin.returncode == 2
    assert "missing.py" in plugin.stderr
    [started] = _worker(project)  # nothing was queued
    assert started["event"] == "started"


def test_a_second_submit_to_a_session_with_a_queued_run_is_exit_2(tmp_path: Path) -> None:
    project = _project(tmp_path)
    args = ("submit", "go", "-m", "scripted:turns.json", "-p", "plugin.py", "--session", "s")
    assert hookagent(project, *args).returncode == 0
    again = hookagent(project, *args)
    assert again.returncode == 2
    assert "queued" in again.stderr


async def _submit_from_python(project: Path, metadata: dict[str, Any], session: str = "py") -> str:
    store = open_store(None, project_dir=project)
    agent = h.AgentBuilder().model(ScriptedModel([])).store(store).build()
    try:
        return await agent.submit("go", session=session, metadata=metadata)
    finally:
        await store.close()


async def test_the_worker_serves_a_run_submitted_from_python_with_its_options(
    tmp_path: Path,
) -> None:
    project = _project(tmp_path)
    saved = {"model": f"scripted:{project / 'turns.json'}", "plugins": [str(project / "plugin.py")]}
    run_id = await _submit_from_python(project, {"cli": saved})
    [_, ran] = _worker(project)
    assert (ran["run_id"], ran["status"]) == (run_id, "completed")


async def test_the_worker_says_what_a_run_submitted_from_python_is_missing(
    tmp_path: Path,
) -> None:
    project = _project(tmp_path)
    run_id = await _submit_from_python(project, {})
    [_, skipped] = _worker(project)
    assert (skipped["event"], skipped["run_id"]) == ("skipped", run_id)
    assert "its metadata has no 'cli' key" in skipped["problem"]
    assert "agent.submit(prompt, metadata={'cli': {'model': " in skipped["problem"]


async def test_the_worker_names_a_bad_key_in_saved_options(tmp_path: Path) -> None:
    project = _project(tmp_path)
    saved = {"model": f"scripted:{project / 'turns.json'}", "max_step": 3}
    await _submit_from_python(project, {"cli": saved})
    await _submit_from_python(project, {"cli": {"plugins": []}}, session="other")
    events = _worker(project)
    problems = " | ".join(e["problem"] for e in events if e["event"] == "skipped")
    assert "unknown keys: max_step; known: " in problems
    assert "name no model" in problems
