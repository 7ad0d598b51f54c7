"""A worker killed with SIGKILL mid-tool: another worker finishes the run, and the call is
reported in doubt, not run twice."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from temporalio.client import Client

import hookagent as h
from hookagent.temporal import TemporalRuns
from temporal.worker_process import build

pytestmark = pytest.mark.temporal

WORKER = Path(__file__).with_name("worker_process.py")


def start(address: str, queue: str, folder: Path, name: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, str(WORKER), address, queue, str(folder), name])


async def until(path: Path, seconds: float = 60.0) -> None:
    for _ in range(int(seconds / 0.05)):
        if path.exists():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{path.name} never appeared")


async def test_a_worker_killed_mid_tool_leaves_the_call_in_doubt_and_another_finishes(
    client: Client, temporal_address: str, tmp_path: Path
) -> None:
    queue = f"q-{uuid.uuid4().hex[:8]}"
    (tmp_path / "hold").touch()
    first = start(temporal_address, queue, tmp_path, "first")
    second: subprocess.Popen[bytes] | None = None
    try:
        await until(tmp_path / "ready-first")
        runs = TemporalRuns(build(tmp_path), client, queue)
        run_id = await runs.start("log")
        await until(tmp_path / "log")  # the tool took effect, and holds
        first.kill()
        first.wait()
        (tmp_path / "hold").unlink()
        second = start(temporal_address, queue, tmp_path, "second")
        state = await asyncio.wait_for(runs.client.get_workflow_handle(run_id).result(), 120)
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
    result = h.RunResult.of(h.RunState.from_json(state))
    assert (tmp_path / "log").read_text() == "L0\n"  # run once, never again
    [call] = result.tool_calls
    assert call.result.is_error and call.result.data == {"state": "in_doubt", "call_id": "c0"}
    assert result.status == "completed" and result.output == "done"
