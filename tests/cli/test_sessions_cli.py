"""Durable sessions from the command line, run for real as subprocesses: `run --session`
pauses at a question (exit 3), `approve`/`deny` answer it, `resume` or `worker` take the run
up again in another process, and `sessions` lists, shows and forks."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent.sessions._agent_spec import RunOptions, from_saved, saved_options
from hookagent.store._open import open_store
from hookagent.testing import ScriptedModel, turn

from .run_cli import hookagent

PLUGIN = textwrap.dedent(
    '''
    from pathlib import Path

    from hookagent import BEFORE_TOOL, HookResult

    LOG = Path(__file__).with_name("deployed.txt")

    def deploy(env: str) -> str:
        """Deploy the current build."""
        with LOG.open("a") as log:
            log.write(f"deployed {env}\\n")
        return f"deployed to {env}"

    def ask_prod(event):
        if event.args.get("env") == "prod":
            return HookResult.ask("Deploy to prod?")
        return None

    def configure(builder):
        builder.tools(deploy)
        builder.on(BEFORE_TOOL, ask_prod, match="deploy", name="ask_prod")
    '''
)

SCRIPT = [
    {"text": "Deploying.", "tool_calls": [{"name": "deploy", "args": {"env": "prod"}, "id": "c1"}]},
    {"text": "Done with prod."},
    {"text": "You asked me to ship it."},
]
"""By history: turns 1-2 serve the first run of a session (over two processes), turn 3 the
next message of that session."""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "plugin.py").write_text(PLUGIN)
    (tmp_path / "turns.json").write_text(json.dumps(SCRIPT))
    return tmp_path


def start(project: Path, session: str, *extra: str, prompt: str = "ship it") -> Any:
    """`run --session --json`; the JSON it printed (exit 3: waiting)."""
    done = hookagent(
        project,
        "run",
        prompt,
        "-m",
        "scripted:turns.json",
        "-p",
        "plugin.py",
        "--session",
        session,
        "--json",
        *extra,
    )
    assert done.returncode == 3, done.stderr
    out = json.loads(done.stdout)
    assert out["status"] == "waiting"
    return out


def deployed(project: Path) -> list[str]:
    log = project / "deployed.txt"
    return log.read_text().splitlines() if log.exists() else []


def assert_error(done: subprocess.CompletedProcess[str], *parts: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("error: ")
    assert "Traceback" not in done.stderr
    for part in parts:
        assert part in done.stderr


# -- pause, inspect, approve, resume, continue -------------------------------------------------
def test_a_question_pauses_the_run_until_it_is_approved_and_resumed(project: Path) -> None:
    done = hookagent(
        project,
        "run",
        "ship it",
        "-m",
        "scripted:turns.json",
        "-p",
        "plugin.py",
        "--session",
        "release",
    )

    assert done.returncode == 3, done.stderr
    assert "Deploy to prod?" in done.stdout
    assert "deploy(env='prod')" in done.stdout
    assert "call c1" in done.stdout
    assert "asked by user:ask_prod at before_tool" in done.stdout
    assert "hookagent approve" in done.stdout and "hookagent resume" in done.stdout
    assert deployed(project) == []
    assert (project / ".hookagent" / "sessions.db").exists()

    listed = hookagent(project, "sessions", "ls")
    assert listed.returncode == 0, listed.stderr
    [row] = [line for line in listed.stdout.splitlines() if line.startswith("release")]
    assert row.split()[:2] == ["release", "waiting"]
    assert row.endswith("ship it")

    shown = hookagent(project, "sessions", "show", "release")
    assert shown.returncode == 0, shown.stderr
    assert "Deploy to prod?" in shown.stdout
    assert "user: ship it" in shown.stdout

    detail = json.loads(hookagent(project, "sessions", "show", "release", "--json").stdout)
    [question] = detail["questions"]
    run_id = question["run_id"]
    assert {k: question[k] for k in ("call_id", "tool", "args", "question", "hook", "point")} == {
        "call_id": "c1",
        "tool": "deploy",
        "args": {"env": "prod"},
        "question": "Deploy to prod?",
        "hook": "user:ask_prod",
        "point": "before_tool",
    }
    assert detail["session"]["status"] == "waiting"
    assert [r["id"] for r in detail["runs"]] == [run_id]

    approved = hookagent(project, "approve", run_id, "--scope", "once")
    assert approved.returncode == 0, approved.stderr
    assert "approved deploy(env='prod')" in approved.stdout
    assert "scope once" in approved.stdout
    assert deployed(project) == []  # answering runs nothing

    resumed = hookagent(project, "resume", run_id)
    assert resumed.returncode == 0, resumed.stderr
    assert "deployed to prod" in resumed.stdout
    assert "Done with prod." in resumed.stdout
    assert "completed" in resumed.stdout.splitlines()[-2]
    assert deployed(project) == ["deployed prod"]

    again = hookagent(project, "resume", run_id)
    assert_error(again, "has ended (completed)")
    assert deployed(project) == ["deployed prod"]

    # A second message continues the session: the model sees the first run's conversation.
    second = hookagent(
        project,
        "run",
        "what did I ask?",
        "-m",
        "scripted:turns.json",
        "-p",
        "plugin.py",
        "--session",
        "release",
        "--json",
    )
    assert second.returncode == 0, second.stderr
    out = json.loads(second.stdout)
    assert (out["output"], out["session"], out["questions"]) == (
        "You asked me to ship it.",
        "release",
        [],
    )
    detail = json.loads(hookagent(project, "sessions", "show", "release", "--json").stdout)
    assert len(detail["runs"]) == 2
    assert detail["session"]["head_run_id"] == out["run_id"]
    assert [(m["role"], m["content"]) for m in detail["messages"]] == [
        ("user", "ship it"),
        ("assistant", "Deploying."),
        ("tool", "deployed to prod"),
        ("assistant", "Done with prod."),
        ("user", "what did I ask?"),
        ("assistant", "You asked me to ship it."),
    ]
    assert deployed(project) == ["deployed prod"]


def test_waiting_json_lists_the_questions_and_deny_reaches_the_model(project: Path) -> None:
    store = str(project / "s.db")
    out = start(project, "ops", "--store", store)
    [question] = out["questions"]
    assert question["call_id"] == "c1" and question["tool"] == "deploy"
    assert question["args"] == {"env": "prod"} and question["question"] == "Deploy to prod?"
    assert (question["hook"], question["point"]) == ("user:ask_prod", "before_tool")
    assert not (project / ".hookagent").exists()  # --store, not the default

    denied = hookagent(
        project, "deny", "ops", "c1", "--reason", "not on a Friday", "--store", store
    )
    assert denied.returncode == 0, denied.stderr
    assert "denied deploy(env='prod')" in denied.stdout
    assert "not on a Friday" in denied.stdout

    resumed = hookagent(project, "resume", out["run_id"], "--store", store, "--json")
    assert resumed.returncode == 0, resumed.stderr
    result = json.loads(resumed.stdout)
    assert result["status"] == "completed"
    [call] = result["tool_calls"]
    assert call["blocked"] and call["is_error"]
    assert "not on a Friday" in call["result"]
    assert deployed(project) == []


def test_approve_with_resume_continues_at_once(project: Path) -> None:
    out = start(project, "quick")
    done = hookagent(project, "approve", "quick", "--resume")
    assert done.returncode == 0, done.stderr
    assert "approved deploy(env='prod')" in done.stdout
    assert f"resumed run {out['run_id']}" in done.stdout
    assert deployed(project) == ["deployed prod"]


# -- refusals: exit 2 --------------------------------------------------------------------------
def test_nothing_to_answer_unknown_ids_and_unanswered_runs_are_errors(project: Path) -> None:
    out = start(project, "s")
    run_id = out["run_id"]

    assert_error(hookagent(project, "approve", run_id, "c7"), "no open question about call c7")
    assert_error(hookagent(project, "resume", run_id), "waiting for an answer")
    assert_error(hookagent(project, "resume", "nope"), "no session or run 'nope'")
    assert_error(hookagent(project, "approve", run_id, "--scope", "forever"), "--scope")
    assert hookagent(project, "approve", run_id).returncode == 0
    assert_error(hookagent(project, "approve", run_id), "has no open question")
    assert_error(hookagent(project, "deny", "nope", "--reason", "x"), "no session or run 'nope'")
    # Another message while the run waits for its resume is refused too.
    again = hookagent(project, "run", "hi", "-m", "scripted:turns.json", "--session", "s")
    assert_error(again, "not finished")


def test_looking_into_a_missing_store_creates_nothing(tmp_path: Path) -> None:
    listed = hookagent(tmp_path, "sessions", "ls")
    assert listed.returncode == 0
    assert "no sessions" in listed.stdout
    assert_error(hookagent(tmp_path, "sessions", "show", "x"), "no store at")
    assert_error(hookagent(tmp_path, "resume", "x", "--store", "other.db"), "no store at")
    assert list(tmp_path.iterdir()) == []


async def test_a_run_not_started_by_the_cli_must_be_resumed_from_python(tmp_path: Path) -> None:
    @h.tool
    def deploy(env: str) -> str:
        """Deploy."""
        return env

    store = open_store(tmp_path / "s.db")
    agent = (
        h.AgentBuilder()
        .model(ScriptedModel([turn("", {"name": "deploy", "args": {"env": "prod"}})]))
        .tools(deploy)
        .store(store)
        .on(h.BEFORE_TOOL, lambda event: h.HookResult.ask("Deploy?"))
        .build()
    )
    result = await agent.run("go", session="py")
    assert result.status == "waiting"
    await store.close()
    assert hookagent(tmp_path, "approve", "py", "--store", "s.db").returncode == 0

    done = hookagent(tmp_path, "resume", "py", "--store", "s.db")
    assert_error(done, "saved no options to rebuild its agent from", "agent.resume")

    worked = hookagent(tmp_path, "worker", "--once", "--store", "s.db")
    assert worked.returncode == 0, worked.stderr
    assert f"run {result.run_id} · session py · skipped: " in worked.stdout
    assert "its metadata has no 'cli' key" in worked.stdout


# -- fork ---------------------------------------------------------------------------------------
def test_fork_starts_a_new_session_from_the_conversation(project: Path) -> None:
    start(project, "base")
    assert_error(hookagent(project, "sessions", "fork", "base"), "not finished")
    assert hookagent(project, "approve", "base", "--resume").returncode == 0

    forked = hookagent(project, "sessions", "fork", "base", "--name", "branch")
    assert forked.returncode == 0, forked.stderr
    assert "into session branch" in forked.stdout
    detail = json.loads(hookagent(project, "sessions", "show", "branch", "--json").stdout)
    original = json.loads(hookagent(project, "sessions", "show", "base", "--json").stdout)
    assert detail["session"]["forked_from"] == original["session"]["id"]
    assert detail["messages"] == original["messages"]
    names = [s["name"] for s in json.loads(hookagent(project, "sessions", "ls", "--json").stdout)]
    assert names == ["branch", "base"]


# -- worker -------------------------------------------------------------------------------------
def test_worker_once_takes_up_an_approved_run_and_skips_one_it_cannot_rebuild(
    project: Path,
) -> None:
    store = str(project / "s.db")
    (project / "gone.py").write_text(PLUGIN)
    broken = hookagent(
        project,
        "run",
        "ship",
        "-m",
        "scripted:turns.json",
        "-p",
        "gone.py",
        "--session",
        "broken",
        "--store",
        store,
    )
    assert broken.returncode == 3, broken.stderr
    out = start(project, "good", "--store", store)
    for session in ("broken", "good"):
        assert hookagent(project, "approve", session, "--store", store).returncode == 0
    (project / "gone.py").unlink()

    idle = hookagent(project, "sessions", "ls", "--store", store, "--json")
    assert {s["name"]: s["status"] for s in json.loads(idle.stdout)}["good"] == "waiting"

    worked = hookagent(project, "worker", "--once", "--store", store)
    assert worked.returncode == 0, worked.stderr
    assert f"run {out['run_id']} · session good · completed" in worked.stdout
    assert "session broken · skipped: plugin" in worked.stdout
    assert "gone.py: no such file" in worked.stdout
    assert deployed(project) == ["deployed prod"]
    statuses = json.loads(hookagent(project, "sessions", "ls", "--store", store, "--json").stdout)
    assert {s["name"]: s["status"] for s in statuses} == {"good": "completed", "broken": "waiting"}

    # The broken run was released: once its plugin is back, a worker takes it up.
    (project / "gone.py").write_text(PLUGIN)
    worked = hookagent(project, "worker", "--once", "--store", store)
    assert "session broken · completed" in worked.stdout
    assert deployed(project) == ["deployed prod", "deployed prod"]


def test_worker_stops_cleanly_on_ctrl_c(tmp_path: Path) -> None:
    # SIGINT is ignored in a background job (where tests may run): give Python its usual
    # Ctrl-C handler back before the CLI starts, as a terminal would have it.
    code = (
        "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "sys.argv = ['hookagent', 'worker', '--poll', '0.05']; "
        "runpy.run_module('hookagent', run_name='__main__')"
    )
    worker = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    try:
        assert worker.stdout is not None
        assert "worker " in worker.stdout.readline()  # it is polling now
        worker.send_signal(signal.SIGINT)
        stdout, stderr = worker.communicate(timeout=30)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    assert worker.returncode == 0, stderr
    assert "worker stopped" in stdout
    assert "Traceback" not in stderr


# -- saved options ------------------------------------------------------------------------------
def test_saved_options_name_absolute_paths_and_read_back(tmp_path: Path) -> None:
    options = RunOptions(
        prompt="secret prompt",
        model="scripted:turns.json",
        json=True,
        plugins=("plugin.py", "some_module"),
        settings=("conf/settings.json",),
        root="work",
        max_steps=4,
        session="s",
        store="x.db",
        cwd=str(tmp_path),
    )
    saved = saved_options(options)
    assert not {"prompt", "json", "session", "store"} & set(saved)
    assert saved["model"] == f"scripted:{tmp_path / 'turns.json'}"
    assert saved["plugins"] == [str(tmp_path / "plugin.py"), "some_module"]
    assert saved["settings"] == [str(tmp_path / "conf" / "settings.json")]
    assert (saved["root"], saved["cwd"], saved["max_steps"]) == (
        str(tmp_path / "work"),
        str(tmp_path),
        4,
    )
    back = from_saved(json.loads(json.dumps(saved)))
    assert back.model == saved["model"] and back.plugins == tuple(saved["plugins"])
    assert (back.root, back.cwd, back.max_steps, back.prompt) == (
        saved["root"],
        str(tmp_path),
        4,
        "",
    )
    with pytest.raises(h.ConfigError, match="bad max_steps"):
        from_saved({**saved, "max_steps": "four"})
