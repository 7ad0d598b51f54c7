"""hookagent benchmarks, each against a bare hand-written baseline measured in the same run.

    .venv/bin/python bench/run.py             # everything (about four minutes on 2 cores)
    .venv/bin/python bench/run.py --quick     # fewer repeats
    .venv/bin/python bench/run.py --profile   # where a step's time goes (cProfile, pieces)

1. Per-step overhead at 10, 100 and 1,000 steps (one echo-tool call per step, then an
   answer): the bare loop, hookagent with its defaults, and with a no-op hook at each of
   before_inference, after_inference, before_tool and after_tool (sync, then async).
   1b. The same run with the echo tool a plain `def` `@tool`, on a worker thread (the
   default) and on the loop (`blocking=False`), vs a bare loop calling it through
   `asyncio.to_thread`; the thread hop's cost per call.
2. Hook dispatch: 10 no-op hooks at one point through the engine vs a plain loop.
3. Concurrency: 200 runs of 10 steps with a model that sleeps 5 ms per call, vs 50 ms.
4. Memory: bytes retained per step by a finished 1,000-step run vs the bare loop's messages,
   with tiny payloads and with 1-4 KB model texts and tool results.
5. Command hooks: a settings-file PreToolUse handler per tool call (an sh and a python script)
   vs a bare asyncio subprocess spawn of the same script; 10 handlers in parallel vs one.
6. File tools: Read of a 2,000-line window mid 10 MB file, and Grep over 5,000 small files
   (files_with_matches, content; on ripgrep and on the pure-Python fallback), vs the same
   work written by hand; tracemalloc peaks.
7. OpenAI path: a run through the Chat Completions driver against a local server process,
   vs hand-written loops on the bare SDK, at 100 and 1,000 steps.
8. Durable runs: per-step cost with the SQLite store against the same run in memory; and
   steps per second of 8 worker processes serving queued runs from one PostgreSQL.
9. Bash sandbox: a `true` command through the Bash tool in bubblewrap vs unsandboxed.
10. Many sessions: listing sessions, opening one, claiming the next runnable run and
   answering a question, on a store of 100,000 runs vs one of 1,000.
11. CLI start: `hookagent --help` and `hookagent hooks test --help`, whole process, vs
   `python -c "import typer"`.

Timings are taken with the garbage collector off (collected between samples), repeated, and
reported as the minimum and median of the repeats; ratios are medians of ratios paired
within one repeat, so slow spells on a shared machine hit both sides. Nothing is asserted:
the closing table shows each value against its target.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import pstats
import sys
import time
from collections.abc import Sequence

from bash_sandbox import bench_bash_sandbox
from breakdown import breakdown
from cli_start import bench_cli_start
from command_hooks import bench_command_hooks
from concurrency import bench_concurrency
from dispatch import bench_dispatch
from durable import bench_durable
from file_tools import bench_file_tools
from harness import (
    Verdict,
    summary,
)
from many_sessions import bench_many_sessions
from memory import bench_memory
from openai_path import bench_openai_path
from per_step import bench_per_step
from sync_tools import bench_sync_tools
from workload import (
    PROMPT,
    InstantModel,
    build_agent,
    script,
)


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
    verdicts += await bench_sync_tools(repeats=5 if quick else 21)
    verdicts += await bench_dispatch(repeats=3 if quick else 21)
    verdicts += await bench_concurrency(repeats=3 if quick else 15)
    verdicts += await bench_memory()
    verdicts += await bench_command_hooks(repeats=5 if quick else 21)
    verdicts += await bench_file_tools(repeats=3 if quick else 11)
    verdicts += await bench_openai_path(repeats=1 if quick else 3)
    verdicts += await bench_durable(repeats=3 if quick else 7)
    verdicts += await bench_bash_sandbox(repeats=3 if quick else 11)
    verdicts += await bench_many_sessions(repeats=3 if quick else 9)
    verdicts += await bench_cli_start(runs=5 if quick else 10)
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
