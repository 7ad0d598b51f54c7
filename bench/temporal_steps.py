"""hookagent on Temporal against a bare Temporal workflow, on a local dev server.

    .venv/bin/python bench/temporal_steps.py [--quick]

1. Per-step cost at 10 and 100 steps: a bare workflow doing one model activity and one tool
   activity per step (both return at once), vs a hookagent run of the same shape (the
   instant model, one echo-tool call per step, the default hooks), each on its own worker;
   and 100 steps again on a worker whose runs continue as new every 250 history events.
2. Steps per second of 8 runs of 10 steps at once, with 1, 2 and 4 worker processes on one
   task queue (on this machine's cores, beside the dev server and the client).
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

from temporalio import activity, workflow
from temporalio.client import Client
from temporalio.worker import Worker

from hookagent import AgentBuilder
from hookagent.temporal import TemporalRuns, agent_worker
from hookagent.temporal._worker import HISTORY
from workload import ECHO, PROMPT, InstantModel, script

sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))
from temporal.dev_server import dev_server


@activity.defn(name="bare.model")
async def bare_model(step: int) -> dict[str, Any]:
    return {"text": "", "call": {"name": "echo", "args": {"text": f"echo {step}"}}}


@activity.defn(name="bare.tool")
async def bare_tool(args: dict[str, Any]) -> str:
    return str(args["text"])


@workflow.defn(name="bare.run", sandboxed=False)
class BareRun:
    @workflow.run
    async def run(self, steps: int) -> int:
        timeout = timedelta(seconds=60)
        for step in range(1, steps + 1):
            reply = await workflow.execute_activity(
                bare_model, step, start_to_close_timeout=timeout
            )
            await workflow.execute_activity(
                bare_tool, reply["call"]["args"], start_to_close_timeout=timeout
            )
        await workflow.execute_activity(bare_model, steps + 1, start_to_close_timeout=timeout)
        return steps


def agent(steps: int) -> Any:
    return (
        AgentBuilder()
        .model(InstantModel(script(steps)))
        .tools(ECHO)
        .limits(max_steps=steps + 2, max_tokens=10**12)
        .build()
    )


async def per_step(
    client: Client, steps: int, repeats: int, history: int = HISTORY
) -> tuple[float, float]:
    """Median seconds per step: bare, hookagent (continuing as new after `history` events)."""
    queue = f"bench-{uuid.uuid4().hex[:6]}"
    built = agent(steps)
    runs = TemporalRuns(built, client, queue)
    bare: list[float] = []
    ours: list[float] = []
    bare_worker = Worker(
        client, task_queue=queue + "-bare", workflows=[BareRun], activities=[bare_model, bare_tool]
    )
    async with bare_worker, agent_worker(client, built, queue, history=history):
        for _ in range(repeats):  # paired, alternating
            start = time.perf_counter()
            await client.execute_workflow(
                BareRun.run, steps, id=uuid.uuid4().hex, task_queue=queue + "-bare"
            )
            bare.append((time.perf_counter() - start) / steps)
            start = time.perf_counter()
            result = await runs.run(PROMPT)
            ours.append((time.perf_counter() - start) / steps)
            assert result.status == "completed" and len(result.tool_calls) == steps, (
                result.status,
                result.stop_message,
                len(result.tool_calls),
            )
    return statistics.median(bare), statistics.median(ours)


async def throughput(client: Client, address: str, workers: int, runs_at_once: int = 8) -> float:
    """Steps per second of `runs_at_once` 10-step runs, with `workers` worker processes."""
    queue = f"bench-{uuid.uuid4().hex[:6]}"
    runs = TemporalRuns(agent(10), client, queue)
    processes = [
        subprocess.Popen([sys.executable, __file__, "--worker", address, queue])  # noqa: ASYNC220
        for _ in range(workers)
    ]
    try:
        await runs.run(PROMPT)  # every worker is up and warm once a run went through
        await asyncio.sleep(2)
        start = time.perf_counter()
        results = await asyncio.gather(*(runs.run(PROMPT) for _ in range(runs_at_once)))
        elapsed = time.perf_counter() - start
    finally:
        for process in processes:
            process.kill()
            process.wait()
    assert all(r.status == "completed" for r in results)
    return runs_at_once * 10 / elapsed


async def serve(address: str, queue: str) -> None:
    async with agent_worker(await Client.connect(address), agent(10), queue):
        await asyncio.Event().wait()


async def main(quick: bool) -> None:
    with dev_server() as address:
        client = await Client.connect(address)
        await per_step(client, 3, 1)  # warm up: imports, adapters, the server's caches
        print("1. Per-step cost (median ms per step; ratio hookagent / bare)")
        rows = ((10, 5 if quick else 15, HISTORY), (100, 2 if quick else 5, HISTORY))
        for steps, repeats, history in (*rows, (100, 2 if quick else 5, 250)):
            bare, ours = await per_step(client, steps, repeats, history)
            continued = ", continuing as new every 250 events" if history != HISTORY else ""
            print(
                f"   {steps:>3} steps{continued}: bare {bare * 1000:6.1f} ms, hookagent "
                f"{ours * 1000:6.1f} ms, ratio {ours / bare:.2f}x"
            )
        print("2. Steps per second, 8 runs of 10 steps at once")
        for workers in (1, 2, 4):
            rate = await throughput(client, address, workers)
            print(f"   {workers} worker process(es): {rate:6.1f} steps/s")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        asyncio.run(serve(sys.argv[2], sys.argv[3]))
    else:
        asyncio.run(main("--quick" in sys.argv))
