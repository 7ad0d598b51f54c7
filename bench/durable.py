"""8. Durable runs: per-step cost with the SQLite store on, against the same run in memory;
the same run on PostgreSQL (one round trip per barrier); and steps per second of 8 worker
processes serving queued runs from one PostgreSQL.

A durable step writes two barriers, each one SQLite transaction in WAL mode (or one
PostgreSQL statement): `started` before the tool runs (with the turn's checkpoint), and its
result after, before any hook sees it. The script and tool are the per-step benchmark's.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Final

from harness import Samples, Verdict, header, paired_ratio, timed
from hookagent import Agent, AgentBuilder
from workload import PROMPT, InstantModel, build_agent, check_same_work, script

DURABLE_TARGET: Final = 3.0
DURABLE_STEPS: Final = (10, 100)
PG_WORKERS: Final = 8
PG_RUNS: Final = 160
PG_STEPS: Final = 10
PG_STEPS_PER_RUN: Final = 100
TOGETHER: Final = 8
TOGETHER_STEPS: Final = 20


def durable_agent(steps: int, path: Path, durability: str = "process") -> Agent:
    from workload import ECHO

    return (
        AgentBuilder()
        .model(InstantModel(script(steps)))
        .tools(ECHO)
        .limits(max_steps=steps + 2, max_tokens=10**12)
        .store(path, durability=durability)
        .build()
    )


async def bench_durable(repeats: int) -> list[Verdict]:
    header("8. Durable runs: SQLite store (WAL) vs the same run in memory")
    print(
        "process: survives the process dying (the default); power: also a power loss (a disk\n"
        "sync before each tool call and at the end)."
    )
    print(f"{'steps':>6}{'memory us/step':>16}{'sqlite us/step':>16}{'ratio':>8}{'power':>10}")
    verdicts: list[Verdict] = []
    with tempfile.TemporaryDirectory() as folder:
        for steps in DURABLE_STEPS:
            memory = build_agent(InstantModel(script(steps)), steps)
            stored = durable_agent(steps, Path(folder) / f"bench-{steps}.db")
            powered = durable_agent(steps, Path(folder) / f"power-{steps}.db", "power")

            async def in_memory(agent: Agent = memory, n: int = steps) -> None:
                result = await agent.run(PROMPT)
                assert check_same_work([None] * (2 * n + 2), result, n) is None, result

            async def durable(agent: Agent = stored, n: int = steps) -> None:
                result = await agent.run(PROMPT)
                assert check_same_work([None] * (2 * n + 2), result, n) is None, result

            async def synced(agent: Agent = powered, n: int = steps) -> None:
                result = await agent.run(PROMPT)
                assert check_same_work([None] * (2 * n + 2), result, n) is None, result

            runs = max(1, 1000 // steps)
            await in_memory()
            await durable()
            await synced()
            a, b, c = Samples(), Samples(), Samples()
            power_runs = max(1, runs // 10)  # a sync takes milliseconds
            for _ in range(repeats):
                a.values.append(await timed(in_memory, runs) / (runs * (steps + 1)))
                b.values.append(await timed(durable, runs) / (runs * (steps + 1)))
                c.values.append(await timed(synced, power_runs) / (power_runs * (steps + 1)))
            ratio, power = paired_ratio(b, a), paired_ratio(c, a)
            print(
                f"{steps:>6}{a.median * 1e6:>16.1f}{b.median * 1e6:>16.1f}{ratio:>7.1f}x"
                f"{power:>9.1f}x"
            )
            verdicts.append(
                Verdict(f"durable (sqlite) per step, N={steps}", ratio, "x memory", DURABLE_TARGET)
            )
            verdicts.append(
                Verdict(f"durable (sqlite, power) per step, N={steps}", power, "x memory", None)
            )
            for agent in (stored, powered):
                assert agent.store is not None
                await agent.store.close()
    verdicts += await bench_together(repeats)
    return verdicts + await bench_postgres(repeats)


async def bench_together(repeats: int) -> list[Verdict]:
    """TOGETHER runs at once through one SQLite store, their model giving the loop a turn
    per call as a real one does: their barriers are committed in groups."""
    import asyncio

    from hookagent.store._sqlite import SQLiteStore
    from workload import SleepyModel

    steps = TOGETHER_STEPS
    with tempfile.TemporaryDirectory() as folder:
        store = SQLiteStore(Path(folder) / "together.db")
        memory = [build_agent(SleepyModel(script(steps), 0.0), steps) for _ in range(TOGETHER)]
        stored = [durable_agent_on(store, steps, SleepyModel(script(steps), 0.0)) for _ in memory]

        async def all_of(agents: list[Agent]) -> None:
            await asyncio.gather(*(agent.run(PROMPT) for agent in agents))

        a, b = Samples(), Samples()
        await all_of(memory)
        await all_of(stored)
        for _ in range(repeats):
            a.values.append(await timed(lambda: all_of(memory), 1) / (TOGETHER * (steps + 1)))
            b.values.append(await timed(lambda: all_of(stored), 1) / (TOGETHER * (steps + 1)))
        await store.close()
    ratio = paired_ratio(b, a)
    print(
        f"{TOGETHER} runs at once, {steps} steps each: {b.median * 1e6:.1f} us/step durable, "
        f"{a.median * 1e6:.1f} in memory, {ratio:.1f}x (barriers committed in groups)"
    )
    return [Verdict(f"durable (sqlite) per step, {TOGETHER} runs at once", ratio, "x memory", None)]


async def bench_postgres(repeats: int) -> list[Verdict]:
    """PostgreSQL, each part in a schema of its own: a run's per-step cost, then workers."""
    async with postgres_schema() as url:
        if url is None:
            return []
        verdicts = await bench_pg_per_step(url, repeats)
    async with postgres_schema() as url:
        assert url is not None
        return verdicts + await bench_pg_workers(url)


@contextlib.asynccontextmanager
async def postgres_schema() -> AsyncIterator[str | None]:
    """The URL of a fresh schema of the tests' PostgreSQL server (dropped after), or None
    when there is none (said why)."""
    import importlib.util
    import sys
    import uuid

    tests = Path(__file__).parent.parent / "tests"
    if str(tests) not in sys.path:  # pg_server's own helpers live there
        sys.path.insert(0, str(tests))
    spec = importlib.util.spec_from_file_location("pg_server", tests / "store" / "pg_server.py")
    if importlib.util.find_spec("asyncpg") is None:
        print("PostgreSQL: skipped (pip install 'hookagent[postgres]')")
        yield None
        return
    assert spec is not None and spec.loader is not None
    pg = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pg)
    url = pg.ensure_postgres()
    if url is None:
        print(f"PostgreSQL: skipped ({pg.reason()})")
        yield None
        return
    import asyncpg

    schema = f"bench_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(url)
    await admin.execute(f"CREATE SCHEMA {schema}")
    try:
        yield f"{url}{'&' if '?' in url else '?'}search_path={schema}"
    finally:
        await admin.execute(f"DROP SCHEMA {schema} CASCADE")
        await admin.close()


async def bench_pg_per_step(url: str, repeats: int) -> list[Verdict]:
    """One run at a time on PostgreSQL, against the same run in memory and on SQLite."""
    from hookagent.store._postgres import PostgresStore

    steps = PG_STEPS_PER_RUN
    memory = build_agent(InstantModel(script(steps)), steps)
    on_pg = durable_agent_on(PostgresStore(url), steps)
    with tempfile.TemporaryDirectory() as folder:
        on_sqlite = durable_agent(steps, Path(folder) / "bench.db")
        agents = (memory, on_sqlite, on_pg)
        runs = (10, 3, 1)  # runs per sample: a PostgreSQL step takes about a millisecond
        samples = (Samples(), Samples(), Samples())
        for agent in agents:
            await agent.run(PROMPT)
        for _ in range(repeats):
            for agent, n, sample in zip(agents, runs, samples, strict=True):

                async def one(agent: Agent = agent) -> None:
                    result = await agent.run(PROMPT)
                    assert check_same_work([None] * (2 * steps + 2), result, steps) is None

                sample.values.append(await timed(one, n) / (n * (steps + 1)))
        for agent in agents[1:]:
            assert agent.store is not None
            await agent.store.close()
    a, b, c = samples
    ratio, over = paired_ratio(c, a), paired_ratio(c, b)
    print(
        f"PostgreSQL, one run of {steps} steps: {c.median * 1e6:.0f} us/step, {ratio:.1f}x memory "
        f"({a.median * 1e6:.1f} us), {over:.1f}x SQLite ({b.median * 1e6:.0f} us)"
    )
    return [
        Verdict(f"durable (postgres) per step, N={steps}", ratio, "x memory", None),
        Verdict(f"durable (postgres) per step, N={steps}", over, "x sqlite", None),
    ]


async def bench_pg_workers(url: str) -> list[Verdict]:
    """Queue PG_RUNS runs, start PG_WORKERS worker processes, time first claim to last finish."""
    import asyncio
    import sys

    from hookagent.store._postgres import PostgresStore

    store = PostgresStore(url)
    agent = durable_agent_on(store, PG_STEPS)
    for _ in range(PG_RUNS):
        await agent.submit(PROMPT)
    await store.close()
    worker = str(Path(__file__).with_name("pg_worker.py"))
    workers = [
        await asyncio.create_subprocess_exec(
            sys.executable, worker, url, f"w{i}", str(PG_STEPS), stdout=asyncio.subprocess.PIPE
        )
        for i in range(PG_WORKERS)
    ]
    reports = [(await w.communicate())[0].decode().split() for w in workers]
    firsts = [float(r[0]) for r in reports if float(r[0])]
    last = max(float(r[1]) for r in reports)
    runs = sum(int(r[2]) for r in reports)
    steps = sum(int(r[3]) for r in reports)
    assert runs == PG_RUNS, f"{runs} of {PG_RUNS} runs were served"
    rate = steps / (last - min(firsts))
    spread = sorted(int(r[2]) for r in reports)
    print(
        f"PostgreSQL, {PG_WORKERS} worker processes, {PG_RUNS} queued runs of {PG_STEPS + 1} "
        f"steps: {rate:.0f} steps/s (runs per worker: {spread})"
    )
    return [Verdict(f"postgres, {PG_WORKERS} workers", rate, "steps/s", None)]


def durable_agent_on(store: object, steps: int, model: object = None) -> Agent:
    from workload import ECHO

    return (
        AgentBuilder()
        .model(model or InstantModel(script(steps)))  # type: ignore[arg-type]
        .tools(ECHO)
        .limits(max_steps=steps + 2, max_tokens=10**12)
        .store(store)  # type: ignore[arg-type]
        .build()
    )
