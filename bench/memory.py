"""4. Memory retained per step by a finished run, against the bare loop."""

from __future__ import annotations

import asyncio
import gc
import tracemalloc
from pathlib import Path
from typing import Any, Final

from harness import (
    MEMORY_STEPS,
    MEMORY_TARGET,
    Runner,
    Verdict,
    header,
)
from per_step import STEP_CONFIGS, step_runners, verify_step_work
from workload import (
    BULKY_ECHO,
    PROMPT,
    TOOL_NAME,
    InstantModel,
    bare_run,
    build_agent,
    check_same_work,
    script,
)

# -- 4. memory -----------------------------------------------------------------------------


async def settle() -> None:
    """Let the event loop turn once, then collect.

    A run that suspended (one with a hook timeout watch does, when it stops the watch) hands
    its result back from inside the task's current step, which keeps one reference to it
    until the loop turns; without this a dropped result would still count as live.
    """
    await asyncio.sleep(0)
    gc.collect()


async def retained(runner: Runner) -> tuple[int, Any, tracemalloc.Snapshot, tracemalloc.Snapshot]:
    """Bytes still traced after `runner()` finished, while its result is held."""
    await settle()
    before_snap = tracemalloc.take_snapshot()
    before = tracemalloc.get_traced_memory()[0]
    kept = await runner()
    await settle()
    after = tracemalloc.get_traced_memory()[0]
    after_snap = tracemalloc.take_snapshot()
    return after - before, kept, before_snap, after_snap


async def bench_memory() -> list[Verdict]:
    n = MEMORY_STEPS
    header(f"4. memory retained per step (N={n}, result held)")
    print(
        "bare loop: its message list; hookagent: the RunResult (messages, step records and\n"
        "decision records). Per step = retained / (N+1); 'slope' = (N=1000 - N=100) / 900\n"
        "removes the fixed cost of a run."
    )
    small = 100
    runners = {n: step_runners(n), small: step_runners(small)}
    for steps, rs in runners.items():
        await verify_step_work(steps, rs)
        for runner in rs.values():  # warm every path before tracing
            await runner()
    per_step: dict[str, float] = {}
    slope: dict[str, float] = {}
    sites: dict[str, list[tracemalloc.StatisticDiff]] = {}
    tracemalloc.start()
    try:
        for name in STEP_CONFIGS:
            small_bytes, kept, _, _ = await retained(runners[small][name])
            del kept
            large_bytes, kept, before, after = await retained(runners[n][name])
            del kept
            per_step[name] = large_bytes / (n + 1)
            slope[name] = (large_bytes - small_bytes) / (n - small)
            sites[name] = after.filter_traces(_NOT_TRACEMALLOC).compare_to(
                before.filter_traces(_NOT_TRACEMALLOC), "lineno"
            )
    finally:
        tracemalloc.stop()
    bare = per_step["bare loop"]
    print(f"\n{'config':<22}{'bytes/step':>12}{'x bare':>9}{'slope B/step':>14}{'x bare':>9}")
    verdicts: list[Verdict] = []
    for name in STEP_CONFIGS:
        ratio = per_step[name] / bare
        print(
            f"{name:<22}{per_step[name]:>12.0f}{ratio:>9.1f}"
            f"{slope[name]:>14.0f}{slope[name] / slope['bare loop']:>9.1f}"
        )
        if name != "bare loop":
            verdicts.append(Verdict(f"memory/step, {name}", ratio, "x bare", MEMORY_TARGET))
    print("\nwhere hookagent (defaults) keeps it, top sites (bytes per step):")
    for stat in sites["hookagent, defaults"][:12]:
        frame = stat.traceback[0]
        where = f"{_short_path(frame.filename)}:{frame.lineno}"
        print(f"  {stat.size_diff / (n + 1):>8.0f}  {stat.count_diff:>7} blocks  {where}")
    return verdicts + await bench_realistic_memory(n)


async def bench_realistic_memory(n: int) -> list[Verdict]:
    """The same with payloads of the size real runs carry: each turn's text and each tool
    result 1-4 KB (fresh strings, as a provider's reply and a tool's output are)."""
    model = InstantModel(script(n, realistic=True))
    agent = build_agent(model, n, echo=BULKY_ECHO)

    async def bare() -> list[Any]:
        return await bare_run(model, n + 1, {TOOL_NAME: BULKY_ECHO})

    async def hooked() -> Any:
        return await agent.run(PROMPT)

    problem = check_same_work(await bare(), await hooked(), n)
    if problem is not None:
        raise SystemExit(f"benchmark workload mismatch (realistic payloads): {problem}")
    tracemalloc.start()
    try:
        bare_bytes, kept, _, _ = await retained(bare)
        del kept
        agent_bytes, kept, _, _ = await retained(hooked)
        del kept
    finally:
        tracemalloc.stop()
    ratio = agent_bytes / bare_bytes
    print(
        f"\nwith 1-4 KB model texts and tool results (N={n}): bare loop "
        f"{bare_bytes / (n + 1):.0f} B/step, hookagent (defaults) {agent_bytes / (n + 1):.0f} "
        f"B/step, {ratio:.2f}x"
    )
    return [Verdict("memory/step, 1-4 KB payloads, defaults", ratio, "x bare", MEMORY_TARGET)]


_NOT_TRACEMALLOC: Final = (
    tracemalloc.Filter(False, tracemalloc.__file__),
    tracemalloc.Filter(False, "<frozen importlib._bootstrap>"),
)


def _short_path(filename: str) -> str:
    parts = Path(filename).parts
    for anchor in ("hookagent", "bench"):
        if anchor in parts:
            return "/".join(parts[parts.index(anchor) :])
    return filename
