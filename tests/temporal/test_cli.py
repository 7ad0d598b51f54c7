"""`hookagent temporal worker` serves an agent; `hookagent run … --temporal` runs on it."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from temporalio.client import Client

from cli.run_cli import hookagent
from hookagent.temporal import TemporalRuns, agent_worker
from temporal.test_runs import build, waiting

pytestmark = pytest.mark.temporal


def test_run_on_a_temporal_worker_started_from_the_command_line(
    temporal_address: str, tmp_path: Path
) -> None:
    script = tmp_path / "turns.json"
    script.write_text(json.dumps(["all done"]))
    queue = f"q-{uuid.uuid4().hex[:8]}"
    flags = ["--model", f"scripted:{script}", "--task-queue", queue]
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hookagent",
            "temporal",
            "worker",
            "--address",
            temporal_address,
            *flags,
        ],
        cwd=tmp_path,
        env={**os.environ, "NO_COLOR": "1"},
    )
    try:
        done = hookagent(tmp_path, "run", "hi", "--json", "--temporal", temporal_address, *flags)
    finally:
        worker.kill()
        worker.wait()
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["status"], result["output"]) == ("completed", "all done")
    refused = hookagent(tmp_path, "run", "hi", "--session", "s", "--temporal", "x:1", *flags)
    assert refused.returncode != 0 and "kept by Temporal" in refused.stderr + refused.stdout


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
        assert wrong.returncode != 0 and "no question 'q7'" in wrong.stdout + wrong.stderr
        unknown = await asyncio.to_thread(
            hookagent, tmp_path, "temporal", "deny", "--address", temporal_address, "nope", "q1"
        )
        assert unknown.returncode == 2 and "run nope: workflow not found" in unknown.stderr
        approved = await asyncio.to_thread(hookagent, tmp_path, *base, "q1", "--reason", "ok")
        assert approved.returncode == 0, approved.stderr
        await waiting(runs, run_id, "q2")  # prod-eu: another fingerprint, asked again
        denied = await asyncio.to_thread(
            hookagent, tmp_path, "temporal", "deny", "--address", temporal_address, run_id, "q2"
        )
        assert denied.returncode == 0, denied.stderr
        result = await runs.result(run_id)
    first, second = result.tool_calls
    assert first.result.content.startswith("deployed to prod") and not first.blocked
    assert second.blocked
