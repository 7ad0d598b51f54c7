"""8. Durable runs: per-step cost with the SQLite store on, against the same run in memory.

A durable run makes its state durable at each checkpoint (one per turn of the loop) and its
tool calls at two barriers each (`started` before the tool runs, the result after), one
SQLite transaction each, in WAL mode. The script and tool are the per-step benchmark's.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Final

from harness import Samples, Verdict, header, paired_ratio, timed
from hookagent import Agent, AgentBuilder
from workload import PROMPT, InstantModel, build_agent, check_same_work, script

DURABLE_TARGET: Final = 3.0
DURABLE_STEPS: Final = (10, 100)


def durable_agent(steps: int, path: Path) -> Agent:
    from workload import ECHO

    return (
        AgentBuilder()
        .model(InstantModel(script(steps)))
        .tools(ECHO)
        .limits(max_steps=steps + 2, max_tokens=10**12)
        .store(path)
        .build()
    )


async def bench_durable(repeats: int) -> list[Verdict]:
    header("8. Durable runs: SQLite store (WAL) vs the same run in memory")
    print(f"{'steps':>6}{'memory us/step':>16}{'sqlite us/step':>16}{'ratio':>8}")
    verdicts: list[Verdict] = []
    with tempfile.TemporaryDirectory() as folder:
        for steps in DURABLE_STEPS:
            memory = build_agent(InstantModel(script(steps)), steps)
            stored = durable_agent(steps, Path(folder) / f"bench-{steps}.db")

            async def in_memory(agent: Agent = memory, n: int = steps) -> None:
                result = await agent.run(PROMPT)
                assert check_same_work([None] * (2 * n + 2), result, n) is None, result

            async def durable(agent: Agent = stored, n: int = steps) -> None:
                result = await agent.run(PROMPT)
                assert check_same_work([None] * (2 * n + 2), result, n) is None, result

            runs = max(1, 1000 // steps)
            await in_memory()
            await durable()
            a, b = Samples(), Samples()
            for _ in range(repeats):
                a.values.append(await timed(in_memory, runs) / (runs * (steps + 1)))
                b.values.append(await timed(durable, runs) / (runs * (steps + 1)))
            ratio = paired_ratio(b, a)
            print(f"{steps:>6}{a.median * 1e6:>16.1f}{b.median * 1e6:>16.1f}{ratio:>7.1f}x")
            verdicts.append(
                Verdict(f"durable (sqlite) per step, N={steps}", ratio, "x memory", DURABLE_TARGET)
            )
            assert stored.store is not None
            await stored.store.close()
    return verdicts
