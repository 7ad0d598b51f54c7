"""One worker process of bench 8's PostgreSQL measure: claims runs until none is runnable.

    python bench/pg_worker.py URL NAME STEPS

Prints `first_claim last_finish runs steps` (epoch seconds) when it stops.
"""

from __future__ import annotations

import asyncio
import sys
import time

from hookagent import AgentBuilder
from hookagent.store._postgres import PostgresStore
from workload import ECHO, InstantModel, script


async def serve(url: str, name: str, steps: int) -> None:
    store = PostgresStore(url)
    agent = (
        AgentBuilder()
        .model(InstantModel(script(steps)))
        .tools(ECHO)
        .limits(max_steps=steps + 2, max_tokens=10**12)
        .store(store)
        .build()
    )
    await store.open()
    first = last = 0.0
    runs = done_steps = 0
    while (claimed := await store.claim(name, time.time(), 60.0)) is not None:
        first = first or time.time()
        result = await agent.resume(claimed.id, worker=name)
        assert result.status == "completed", result
        runs, done_steps, last = runs + 1, done_steps + len(result.steps), time.time()
    await store.close()
    print(first, last, runs, done_steps, flush=True)


if __name__ == "__main__":
    asyncio.run(serve(sys.argv[1], sys.argv[2], int(sys.argv[3])))
