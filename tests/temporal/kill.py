"""A run of the crash scenario (`worker_process.build`) on a worker process killed with
SIGKILL at its hold point, then finished by another worker process."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

from temporalio.client import Client

import hookagent as h
from hookagent.temporal import TemporalRuns
from temporal.worker_process import build

__all__ = ["killed"]

WORKER = Path(__file__).with_name("worker_process.py")


def _start(
    address: str, queue: str, folder: Path, name: str, kind: str, where: str
) -> subprocess.Popen[bytes]:
    command = [sys.executable, str(WORKER), address, queue, str(folder), name, kind, where]
    return subprocess.Popen(command)


async def _until(path: Path, seconds: float = 60.0) -> None:
    for _ in range(int(seconds / 0.05)):
        if path.exists():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{path.name} never appeared")


async def killed(
    client: Client, address: str, folder: Path, kind: str, where: str = "tool"
) -> h.RunResult[Any]:
    """The run's result, its first worker killed while it held at `where`."""
    queue = f"q-{uuid.uuid4().hex[:8]}"
    (folder / "hold").touch()
    first = _start(address, queue, folder, "first", kind, where)
    second: subprocess.Popen[bytes] | None = None
    try:
        await _until(folder / "ready-first")
        runs = TemporalRuns(build(folder, kind, where), client, queue)
        run_id = await runs.start("log")
        await _until(folder / "held")  # in the tool, once it took effect, or the model after
        first.kill()
        first.wait()
        (folder / "hold").unlink()
        second = _start(address, queue, folder, "second", kind, where)
        return await asyncio.wait_for(runs.result(run_id), 120)
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
