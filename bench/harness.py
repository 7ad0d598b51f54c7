"""Shared measuring tools: samples, paired ratios, timing, verdicts and the summary."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

STEP_COUNTS: Final = (10, 100, 1000)
STEPS_PER_SAMPLE: Final = 1000
"""Runs per timing sample are chosen so each sample takes about this many steps."""
DISPATCH_HOOKS: Final = 10
CONCURRENT_RUNS: Final = 200
CONCURRENT_STEPS: Final = 10
MODEL_DELAY: Final = 0.005
MEMORY_STEPS: Final = 1000
COMMAND_HANDLERS: Final = 10

PER_STEP_TARGET: Final = 10.0
TYPED_TOOL_TARGET: Final = 3.0
"""Per step with the echo tool a typed `@tool` function, over the bare loop."""
FLAT_TARGET: Final = 1.25
"""Per-step cost at 1,000 steps over per-step cost at 10 steps; above this it grows."""
DISPATCH_TARGET: Final = 2.0
CONCURRENCY_TARGET: Final = 1.5
MEMORY_TARGET: Final = 2.0
COMMAND_HOOK_TARGET: Final = 1.2
"""A command hook's cost over a bare spawn of its script (and 10 in parallel over 10 gathered)."""
FILE_TOOL_TARGET: Final = 2.0
"""A file tool call (Read, Grep) over the same work written by hand in plain Python."""
RIPGREP_TARGET: Final = 0.2
"""Grep on ripgrep over the hand-written Python walk (ripgrep alone, as a whole process, is
about 0.12x of it)."""
SANDBOX_TARGET: Final = 1.3
"""A Bash call of `true` in the sandbox over the same call unsandboxed."""
CLI_START_TARGET: Final = 0.25
"""Seconds for `hookagent --help` (and `hooks test --help`), start to exit."""

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
    target: float | None
    """None: shown for information, beyond what the targets define."""

    @property
    def passed(self) -> bool:
        return self.target is None or self.value <= self.target


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


# -- summary and profile -------------------------------------------------------------------


def summary(verdicts: Sequence[Verdict]) -> None:
    header("summary")
    width = max(len(v.measure) for v in verdicts) + 2
    print(f"{'measure':<{width}}{'value':>9}  {'unit':<12}{'target':>9}  verdict")
    for v in verdicts:
        if v.target is None:
            print(f"{v.measure:<{width}}{v.value:>9.2f}  {v.unit:<12}{'':>9}  (info)")
            continue
        verdict = "PASS" if v.passed else "MISS"
        print(
            f"{v.measure:<{width}}{v.value:>9.2f}  {v.unit:<12}{'<= ':>5}{v.target:<4g}  {verdict}"
        )
    judged = [v for v in verdicts if v.target is not None]
    passed = sum(v.passed for v in judged)
    print(f"\n{passed} of {len(judged)} within target.")
    print(PEERS_NOTE)
