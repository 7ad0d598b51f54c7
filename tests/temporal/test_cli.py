"""`hookagent temporal worker` serves an agent; `hookagent run … --temporal` runs on it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from temporalio.client import Client

from cli.run_cli import hookagent
from cli.test_cli import DEPLOY_SCRIPT, PLUGIN, write
from hookagent.temporal import TemporalRuns, agent_worker
from temporal.test_runs import build, waiting

pytestmark = pytest.mark.temporal


@contextlib.contextmanager
def cli_worker(cwd: Path, address: str, *flags: str) -> Iterator[None]:
    """`hookagent temporal worker --address ADDRESS FLAGS` running in `cwd` meanwhile."""
    worker = subprocess.Popen(
        [sys.executable, "-m", "hookagent", "temporal", "worker", "--address", address, *flags],
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "1"},
    )
    try:
        yield
    finally:
        worker.kill()
        worker.wait()


def test_runs_of_a_session_on_a_temporal_worker_started_from_the_command_line(
    temporal_address: str, tmp_path: Path
) -> None:
    """Two runs of one session (the second continues the first's conversation), listed and
    shown through the `temporal` commands; a run's limits travel with it."""
    script = tmp_path / "turns.json"
    script.write_text(json.dumps(["first", "second"]))
    queue = f"q-{uuid.uuid4().hex[:8]}"
    session = f"s-{uuid.uuid4().hex[:8]}"
    flags = ["--model", f"scripted:{script}", "--task-queue", queue]
    on = ("--temporal", temporal_address, *flags, "--session", session)
    with cli_worker(tmp_path, temporal_address, *flags):
        first = hookagent(tmp_path, "run", "hi", "--json", *on)
        second = hookagent(tmp_path, "run", "again", "--json", "--max-steps", "1", *on)
        listed = hookagent(
            tmp_path, "temporal", "runs", "--address", temporal_address, session, "--json"
        )
        run_id = json.loads(second.stdout)["run_id"]
        shown = hookagent(tmp_path, "temporal", "show", "--address", temporal_address, run_id)
        shown_json = hookagent(
            tmp_path, "temporal", "show", "--address", temporal_address, run_id, "--json"
        )
        sessions = hookagent(
            tmp_path, "temporal", "sessions", "--address", temporal_address, "--json"
        )
    for done in (first, second, listed, shown, shown_json, sessions):
        assert done.returncode == 0, done.stderr
    assert json.loads(first.stdout)["output"] == "first"
    result = json.loads(second.stdout)
    assert (result["status"], result["output"]) == ("completed", "second")
    state = json.loads(shown_json.stdout)["state"]
    assert [m["content"] for m in state["messages"]] == ["hi", "first", "again", "second"]
    assert state["session_id"] == session
    runs = json.loads(listed.stdout)
    assert [r["prompt"] for r in runs] == ["again", "hi"] and runs[0]["run_id"] == run_id
    assert f"run {run_id}  session {session}  completed" in shown.stdout
    assert any(s["session"] == session for s in json.loads(sessions.stdout))


def test_what_a_run_on_temporal_cannot_honour_is_refused_on_the_command_line(
    tmp_path: Path,
) -> None:
    flags = ("--model", "scripted:none.json", "--temporal", "127.0.0.1:1")
    for extra, named in [
        (("--store", "x.db"), "--store"),
        (("--notify", "http://127.0.0.1:9/hook"), "--notify"),
        (("--max-cost", "1", "--price", "m=1/1"), "--price"),
    ]:
        refused = hookagent(tmp_path, "run", "hi", *flags, *extra)
        assert refused.returncode == 2 and named in refused.stderr, refused.stderr
    for answer in (["approve", "r1", "--scope", "always"], ["deny", "r1", "--resume"]):
        refused = hookagent(tmp_path, *answer, "--reason", "x", "--temporal", "127.0.0.1:1")
        assert refused.returncode == 2, refused.stderr
        assert ("--scope" if "approve" in answer else "--resume") in refused.stderr
    few = hookagent(tmp_path, "temporal", "worker", "--address", "x:1", "-m", "m", "--history", "5")
    assert few.returncode == 2 and "--history" in few.stderr, few.stderr
    unreachable = hookagent(tmp_path, "temporal", "sessions", "--address", "127.0.0.1:1")
    assert unreachable.returncode == 2
    assert "127.0.0.1:1: cannot reach a Temporal server there" in unreachable.stderr


async def test_questions_approve_and_deny_answer_a_waiting_run_through_updates(
    client: Client, temporal_address: str, tmp_path: Path
) -> None:
    agent = build("prod", "prod-eu")
    async with agent_worker(client, agent, task_queue := f"q-{uuid.uuid4().hex[:8]}"):
        runs = TemporalRuns(agent, client, task_queue)
        run_id = await runs.start("go")
        await waiting(runs, run_id)
        listed = await asyncio.to_thread(
            hookagent, tmp_path, "temporal", "questions", "--address", temporal_address, run_id
        )
        assert listed.returncode == 0, listed.stderr
        assert json.loads(listed.stdout)["tool_name"] == "deploy"
        base = ("temporal", "approve", "--address", temporal_address, run_id)
        wrong = await asyncio.to_thread(hookagent, tmp_path, *base, "q7")
        assert wrong.returncode == 2 and "waits on no question q7" in wrong.stderr, wrong.stderr
        unknown = await asyncio.to_thread(
            hookagent, tmp_path, "temporal", "deny", "--address", temporal_address, "nope", "q1"
        )
        assert unknown.returncode == 2 and "run nope: workflow not found" in unknown.stderr
        approved = await asyncio.to_thread(hookagent, tmp_path, *base, "q1", "--reason", "ok")
        assert approved.returncode == 0, approved.stderr
        await waiting(runs, run_id, "q2")  # prod-eu: another fingerprint, asked again
        top = ("deny", run_id, "--reason", "not today", "--temporal", temporal_address)
        wrong_call = await asyncio.to_thread(hookagent, tmp_path, *top[:2], "c9", *top[2:])
        assert wrong_call.returncode == 2, wrong_call.stderr
        assert "waits on no question c9" in wrong_call.stderr
        denied = await asyncio.to_thread(hookagent, tmp_path, *top[:2], "c1", *top[2:], "--json")
        assert denied.returncode == 0, denied.stderr
        assert json.loads(denied.stdout) == [{"run_id": run_id, "question": "q2", "denied": True}]
        result = await runs.result(run_id)
    first, second = result.tool_calls
    assert first.result.content.startswith("deployed to prod") and not first.blocked
    assert second.blocked and "not today" in second.result.content


def test_a_run_on_temporal_is_shown_live_as_a_run_in_memory_is(
    temporal_address: str, tmp_path: Path
) -> None:
    """The same lines, step by step: the model's words, each call and its result, the
    hook's block, the summary."""
    write(tmp_path / "plugin.py", PLUGIN)
    write(tmp_path / "turns.json", DEPLOY_SCRIPT)
    flags = ("--model", "scripted:turns.json", "--plugin", "plugin.py")
    local = hookagent(tmp_path, "run", "ship it", *flags)
    queue = ("--task-queue", f"q-{uuid.uuid4().hex[:8]}")
    with cli_worker(tmp_path, temporal_address, *flags, *queue):
        remote = hookagent(
            tmp_path, "run", "ship it", *flags, *queue, "--temporal", temporal_address
        )
    assert (remote.returncode, local.returncode) == (0, 0), remote.stderr
    assert remote.stdout == local.stdout
    for line in ("step 1", "→ deploy(target='prod')", "before_tool: block by user:no_prod"):
        assert line in remote.stdout
