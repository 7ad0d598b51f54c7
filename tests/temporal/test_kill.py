"""A worker killed with SIGKILL mid-tool: another worker finishes the run, and the call is
reported in doubt, not run twice; a tool that reconciles settles it, an idempotent tool's
call runs again."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import Client

import hookagent as h
from hookagent.temporal import TemporalRuns
from temporal.worker_process import build

pytestmark = pytest.mark.temporal

WORKER = Path(__file__).with_name("worker_process.py")


def start(address: str, queue: str, folder: Path, name: str, kind: str) -> subprocess.Popen[bytes]:
    command = [sys.executable, str(WORKER), address, queue, str(folder), name, kind]
    return subprocess.Popen(command)


async def until(path: Path, seconds: float = 60.0) -> None:
    for _ in range(int(seconds / 0.05)):
        if path.exists():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{path.name} never appeared")


async def killed_mid_tool(
    client: Client, address: str, folder: Path, kind: str
) -> h.RunResult[Any]:
    """Run the append agent; SIGKILL its worker while the tool holds, start another."""
    queue = f"q-{uuid.uuid4().hex[:8]}"
    (folder / "hold").touch()
    first = start(address, queue, folder, "first", kind)
    second: subprocess.Popen[bytes] | None = None
    try:
        await until(folder / "ready-first")
        runs = TemporalRuns(build(folder, kind), client, queue)
        run_id = await runs.start("log")
        await until(folder / "log")  # the tool took effect, and holds
        first.kill()
        first.wait()
        (folder / "hold").unlink()
        second = start(address, queue, folder, "second", kind)
        state = await asyncio.wait_for(runs.client.get_workflow_handle(run_id).result(), 120)
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
    return h.RunResult.of(h.RunState.from_json(state))


async def test_a_worker_killed_mid_tool_leaves_the_call_in_doubt_and_another_finishes(
    client: Client, temporal_address: str, tmp_path: Path
) -> None:
    result = await killed_mid_tool(client, temporal_address, tmp_path, "plain")
    assert (tmp_path / "log").read_text() == "L0\n"  # run once, never again
    [call] = result.tool_calls
    assert call.result.is_error and call.result.data == {"state": "in_doubt", "call_id": "c0"}
    assert result.status == "completed" and result.output == "done"


async def test_a_call_in_doubt_is_settled_by_its_tools_reconcile_with_the_same_key(
    client: Client, temporal_address: str, tmp_path: Path
) -> None:
    result = await killed_mid_tool(client, temporal_address, tmp_path, "reconciles")
    assert (tmp_path / "log").read_text() == "L0\n"
    [call] = result.tool_calls
    assert (call.result.content, call.result.is_error) == ("appended L0 (found)", False)
    [decision] = result.decisions.at("reconcile")
    assert (decision.outcome, decision.call_id, decision.hook) == ("done", "c0", "tool:append")
    assert (tmp_path / "reconciled-key").read_text() == (tmp_path / "keys").read_text()
    assert result.status == "completed" and result.output == "done"


async def test_an_idempotent_tools_call_is_run_again_by_the_worker_that_takes_over(
    client: Client, temporal_address: str, tmp_path: Path
) -> None:
    result = await killed_mid_tool(client, temporal_address, tmp_path, "idempotent")
    assert (tmp_path / "log").read_text() == "L0\nL0\n"  # retried by Temporal
    [call] = result.tool_calls
    assert (call.result.content, call.result.is_error) == ("appended L0", False)
    assert result.status == "completed" and result.output == "done"
