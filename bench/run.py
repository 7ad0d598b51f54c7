"""hookagent benchmarks, each against a bare hand-written baseline measured in the same run.

    .venv/bin/python bench/run.py             # everything (under a minute on 2 cores)
    .venv/bin/python bench/run.py --quick     # fewer repeats
    .venv/bin/python bench/run.py --profile   # where a step's time goes (cProfile, pieces)

1. Per-step overhead at 10, 100 and 1,000 steps (one echo-tool call per step, then an
   answer): the bare loop, hookagent with its defaults, and with a no-op hook at each of
   before_inference, after_inference, before_tool and after_tool (sync, then async).
2. Hook dispatch: 10 no-op hooks at one point through the engine vs a plain loop.
3. Concurrency: 200 runs of 10 steps with a model that sleeps 5 ms per call, vs 50 ms.
4. Memory: bytes retained per step by a finished 1,000-step run vs the bare loop's messages.

Timings are taken with the garbage collector off (collected between samples), repeated, and
reported as the minimum and median of the repeats; ratios are medians of ratios paired
within one repeat, so slow spells on a shared machine hit both sides. Nothing is asserted:
the closing table shows each value against its target.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import io
import pstats
import statistics
import sys
import time
import tracemalloc
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from breakdown import breakdown
from hookagent import BEFORE_TOOL, ToolCallEvent, make_hook
from hookagent.hooks.engine import fold
from hookagent.hooks.registry import HookRegistry
from hookagent.hooks.watch import HookWatch
from hookagent.kernel.dispatch import Dispatcher
from hookagent.kernel.state import RunState
from hookagent.kernel.view import RunView
from workload import (
    PROMPT,
    InstantModel,
    SleepyModel,
    bare_run,
    build_agent,
    check_same_work,
    noop_async,
    noop_sync,
    script,
)

STEP_COUNTS: Final = (10, 100, 1000)
STEPS_PER_SAMPLE: Final = 1000
"""Runs per timing sample are chosen so each sample takes about this many steps."""
DISPATCH_HOOKS: Final = 10
CONCURRENT_RUNS: Final = 200
CONCURRENT_STEPS: Final = 10
MODEL_DELAY: Final = 0.005
MEMORY_STEPS: Final = 1000

PER_STEP_TARGET: Final = 10.0
FLAT_TARGET: Final = 1.25
"""Per-step cost at 1,000 steps over per-step cost at 10 steps; above this it grows."""
DISPATCH_TARGET: Final = 2.0
CONCURRENCY_TARGET: Final = 1.5
MEMORY_TARGET: Final = 2.0

PEERS_NOTE: Final = (
    "For context (from the design spec, not measured here): the best-known Python agent\n"
    "frameworks measured this way cost 270-600x the bare loop per step at N=10, and their\n"
    "per-step cost grows with the history."
)

Runner = Callable[[], Awaitable[Any]]


@dataclass(slots=True)
class Verdict:
    measure: str
    value: float
    unit: str
    target: float

    @property
    def passed(self) -> bool:
        return self.value <= self.target


@dataclass(slots=True)
class Samples:
    """Seconds per unit of work, one value per repeat."""

    values: list[float] = field(default_factory=list[float])

    @property
    def best(self) -> float:
        return min(self.values)

    @property
    def median(self) -> float:
        return statistics.median(self.values)


def paired_ratio(a: Samples, b: Samples) -> float:
    """Median over repeats of a/b, each repeat's pair taken back to back."""
    return statistics.median(x / y for x, y in zip(a.values, b.values, strict=True))


async def timed(runner: Runner, times: int) -> float:
    """Seconds for `times` awaits of `runner()`, garbage collector off."""
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(times):
            await runner()
        return time.perf_counter() - start
    finally:
        gc.enable()


def header(title: str) -> None:
    print(f"\n== {title} " + "=" * max(0, 86 - len(title)))


# -- 1. per-step overhead ------------------------------------------------------------------

STEP_CONFIGS: Final = ("bare loop", "hookagent, defaults", "+4 sync no-op", "+4 async no-op")
HOOK_FOR_CONFIG: Final[dict[str, Any]] = {
    "hookagent, defaults": None,
    "+4 sync no-op": noop_sync,
    "+4 async no-op": noop_async,
}


def step_runners(tool_steps: int) -> dict[str, Runner]:
    model = InstantModel(script(tool_steps))
    runners: dict[str, Runner] = {"bare loop": lambda: bare_run(model, tool_steps + 1)}
    for name, hook in HOOK_FOR_CONFIG.items():
        agent = build_agent(model, tool_steps, hook)
        runners[name] = lambda agent=agent: agent.run(PROMPT)
    return runners


async def verify_step_work(tool_steps: int, runners: dict[str, Runner]) -> None:
    messages = await runners["bare loop"]()
    for name in HOOK_FOR_CONFIG:
        problem = check_same_work(messages, await runners[name](), tool_steps)
        if problem is not None:
            raise SystemExit(f"benchmark workload mismatch ({name}, N={tool_steps}): {problem}")


async def bench_per_step(repeats: int) -> list[Verdict]:
    header("1. per-step overhead (one async echo-tool call per step, then an answer)")
    print(
        "A run of N takes N+1 model calls (N tool steps and the answer); per step = run / (N+1).\n"
        "Defaults: step, token, time and tool-call-presence limits + error policy installed.\n"
        f"Flat means per-step cost at N=1000 within {FLAT_TARGET:g}x of N=10."
    )
    runners = {n: step_runners(n) for n in STEP_COUNTS}
    runs = {n: max(1, STEPS_PER_SAMPLE // (n + 1)) for n in STEP_COUNTS}
    per_step = {(name, n): Samples() for name in STEP_CONFIGS for n in STEP_COUNTS}
    for n in STEP_COUNTS:
        await verify_step_work(n, runners[n])
    for round_no in range(repeats + 1):  # the first round warms up and is dropped
        for n in STEP_COUNTS:  # every size in every round, so slow spells hit them all
            for name in STEP_CONFIGS:
                seconds = await timed(runners[n][name], runs[n])
                if round_no:
                    per_step[name, n].values.append(seconds / runs[n] / (n + 1))

    verdicts: list[Verdict] = []
    print(
        f"\n{'config':<22}{'N':>6}{'us/step min':>13}{'us/step med':>13}"
        f"{'x bare (paired)':>17}{'x bare (min)':>14}"
    )
    for name in STEP_CONFIGS:
        for n in STEP_COUNTS:
            s, bare = per_step[name, n], per_step["bare loop", n]
            ratio = paired_ratio(s, bare)
            print(
                f"{name:<22}{n:>6}{s.best * 1e6:>13.2f}{s.median * 1e6:>13.2f}"
                f"{ratio:>17.1f}{s.best / bare.best:>14.1f}"
            )
            if name != "bare loop":
                verdicts.append(
                    Verdict(f"per step, {name}, N={n}", ratio, "x bare", PER_STEP_TARGET)
                )
    print(
        f"\n{'config':<22}{'us/step N=10':>14}{'us/step N=1000':>16}"
        f"{'1000/10 (paired)':>18}{'1000/10 (min)':>15}"
    )
    for name in STEP_CONFIGS:
        small, large = per_step[name, STEP_COUNTS[0]], per_step[name, STEP_COUNTS[-1]]
        growth = paired_ratio(large, small)
        print(
            f"{name:<22}{small.best * 1e6:>14.2f}{large.best * 1e6:>16.2f}"
            f"{growth:>18.2f}{large.best / small.best:>15.2f}"
        )
        if name != "bare loop":
            verdicts.append(Verdict(f"flatness, {name}", growth, "x (1000/10)", FLAT_TARGET))
    return verdicts


# -- 2. hook dispatch ----------------------------------------------------------------------

DISPATCH_TIMES: Final = 5000


def dispatch_event() -> tuple[RunState, RunView, ToolCallEvent]:
    state = RunState()
    view = RunView(state)
    event = ToolCallEvent(run=view, step=1, call_id="call_1", tool_name="echo", args={"text": "x"})
    return state, view, event


def distinct_hooks(is_async: bool, count: int) -> list[Callable[..., Any]]:
    """`count` distinct no-op function objects, as separately written hooks would be."""
    fns: list[Callable[..., Any]] = []
    for i in range(count):
        if is_async:

            async def fn(event: object) -> None:
                return None
        else:

            def fn(event: object) -> None:
                return None

        fn.__name__ = fn.__qualname__ = f"noop_{i}"
        fns.append(fn)
    return fns


def dispatch_ways(is_async: bool) -> tuple[dict[str, Runner], RunState, list[HookWatch]]:
    """How 10 no-op hooks can be called: plainly, by the fold, by the dispatcher."""
    state, view, event = dispatch_event()
    fns = distinct_hooks(is_async, DISPATCH_HOOKS)
    registry = HookRegistry(make_hook(BEFORE_TOOL, fn) for fn in fns)
    hooks = registry.at(BEFORE_TOOL)

    async def plain_async(fns: list[Callable[..., Any]] = fns) -> None:
        for h in fns:
            await h(event)

    async def plain_sync(fns: list[Callable[..., Any]] = fns) -> None:
        for h in fns:
            h(event)

    bare = Dispatcher(registry, state, view, approver=None, emit=None, watch=None)
    ways: dict[str, Runner] = {
        "plain": plain_async if is_async else plain_sync,
        "fold": lambda: fold(BEFORE_TOOL, hooks, event, None),
    }
    watches: list[HookWatch] = []
    if is_async:  # an Agent watches async hooks that have a timeout (60 s by default)
        watch = HookWatch(1.0)
        watches.append(watch)
        watched = Dispatcher(registry, state, view, approver=None, emit=None, watch=watch)
        ways["fire, no watch"] = lambda: bare.fire(BEFORE_TOOL, event)
        ways["fire"] = lambda: watched.fire(BEFORE_TOOL, event)
    else:
        ways["fire"] = lambda: bare.fire(BEFORE_TOOL, event)
    return ways, state, watches


async def bench_dispatch(repeats: int) -> list[Verdict]:
    header(f"2. hook dispatch ({DISPATCH_HOOKS} no-op hooks at before_tool)")
    print(
        "plain: `for h in hooks: await h(event)` (sync: `h(event)`); fold: hooks.engine.fold;\n"
        "fire: Dispatcher.fire (fold + the decision record) with the timeout watch an Agent\n"
        "installs for async hooks with a timeout (60 s by default); 'no watch' leaves it out."
    )
    verdicts: list[Verdict] = []
    print(f"\n{'hooks':<7}{'way':<16}{'us/dispatch min':>17}{'us/dispatch med':>17}{'x plain':>9}")
    for flavour in ("async", "sync"):
        ways, state, watches = dispatch_ways(flavour == "async")
        samples: dict[str, Samples] = {way: Samples() for way in ways}
        for round_no in range(repeats + 1):  # the first round warms up and is dropped
            for way, runner in ways.items():
                seconds = await timed(runner, DISPATCH_TIMES)
                state.decisions.clear()
                if round_no:
                    samples[way].values.append(seconds / DISPATCH_TIMES)
        for watch in watches:
            await watch.close()
        for way, s in samples.items():
            ratio = paired_ratio(s, samples["plain"])
            print(f"{flavour:<7}{way:<16}{s.best * 1e6:>17.2f}{s.median * 1e6:>17.2f}{ratio:>9.1f}")
            if way in ("fold", "fire"):
                measure = f"dispatch, {DISPATCH_HOOKS} {flavour} hooks, {way}"
                verdicts.append(Verdict(measure, ratio, "x plain", DISPATCH_TARGET))
    return verdicts


# -- 3. concurrency ------------------------------------------------------------------------


async def bench_concurrency(repeats: int) -> list[Verdict]:
    ideal = CONCURRENT_STEPS * MODEL_DELAY
    header(
        f"3. concurrency ({CONCURRENT_RUNS} runs x {CONCURRENT_STEPS} steps, "
        f"model sleeps {MODEL_DELAY * 1e3:g} ms)"
    )
    print(
        f"Ideal wall time {ideal * 1e3:g} ms: {CONCURRENT_STEPS} sequential model calls "
        f"({CONCURRENT_STEPS - 1} tool steps, then the answer).\n"
        f"All {CONCURRENT_RUNS} runs are started together with asyncio.gather."
    )
    tool_steps = CONCURRENT_STEPS - 1
    model = SleepyModel(script(tool_steps), MODEL_DELAY)
    configs: dict[str, Runner] = {"bare loop": lambda: bare_run(model, CONCURRENT_STEPS)}
    for name, hook in HOOK_FOR_CONFIG.items():
        agent = build_agent(model, tool_steps, hook)
        configs[name] = lambda agent=agent: agent.run(PROMPT)

    async def burst(one: Runner) -> None:
        await asyncio.gather(*(one() for _ in range(CONCURRENT_RUNS)))

    walls: dict[str, Samples] = {name: Samples() for name in configs}
    for round_no in range(repeats + 1):  # the first round warms up and is dropped
        for name, one in configs.items():
            seconds = await timed(lambda one=one: burst(one), 1)
            if round_no:
                walls[name].values.append(seconds)
    print(
        f"\n{'config':<22}{'wall ms min':>13}{'wall ms med':>13}{'x ideal (med)':>15}{'x bare':>9}"
    )
    verdicts: list[Verdict] = []
    for name, s in walls.items():
        ratio = s.median / ideal
        versus_bare = paired_ratio(s, walls["bare loop"])
        wall = f"{s.best * 1e3:>13.1f}{s.median * 1e3:>13.1f}"
        print(f"{name:<22}{wall}{ratio:>15.2f}{versus_bare:>9.2f}")
        if name in HOOK_FOR_CONFIG:
            verdicts.append(Verdict(f"concurrency, {name}", ratio, "x ideal", CONCURRENCY_TARGET))
    return verdicts


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
    return verdicts


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


# -- summary and profile -------------------------------------------------------------------


def summary(verdicts: Sequence[Verdict]) -> None:
    header("summary")
    width = max(len(v.measure) for v in verdicts) + 2
    print(f"{'measure':<{width}}{'value':>9}  {'unit':<12}{'target':>9}  verdict")
    for v in verdicts:
        verdict = "PASS" if v.passed else "MISS"
        print(
            f"{v.measure:<{width}}{v.value:>9.2f}  {v.unit:<12}{'<= ':>5}{v.target:<4g}  {verdict}"
        )
    passed = sum(v.passed for v in verdicts)
    print(f"\n{passed} of {len(verdicts)} within target.")
    print(PEERS_NOTE)


def profile(tool_steps: int = 1000, runs: int = 5, top: int = 25) -> None:
    """The per-step pieces timed one by one, then cProfile of hookagent with its defaults
    over `runs` runs of `tool_steps` steps (timing after profiling reads slow, so it is first)."""
    asyncio.run(breakdown())
    print()
    agent = build_agent(InstantModel(script(tool_steps)), tool_steps)

    async def go() -> None:
        for _ in range(runs):
            await agent.run(PROMPT)

    asyncio.run(go())  # warm up
    profiler = cProfile.Profile()
    profiler.enable()
    asyncio.run(go())
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(top)
    print(f"cProfile: {runs} runs x {tool_steps + 1} steps, hookagent defaults, by own time")
    print(out.getvalue())


async def bench_all(quick: bool) -> None:
    verdicts: list[Verdict] = []
    verdicts += await bench_per_step(repeats=5 if quick else 31)
    verdicts += await bench_dispatch(repeats=3 if quick else 21)
    verdicts += await bench_concurrency(repeats=3 if quick else 15)
    verdicts += await bench_memory()
    summary(verdicts)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument(
        "--profile", action="store_true", help="cProfile a 1,000-step run, then time its pieces"
    )
    args = parser.parse_args(argv)
    if args.profile:
        profile()
        return
    print(f"Python {sys.version.split()[0]} on {sys.platform}")
    started = time.perf_counter()
    asyncio.run(bench_all(args.quick))
    print(f"\n(bench took {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
