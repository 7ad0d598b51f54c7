"""3. Concurrency: many runs against a model that sleeps, against the ideal wall time."""

from __future__ import annotations

import asyncio

from harness import (
    CONCURRENCY_TARGET,
    CONCURRENT_RUNS,
    CONCURRENT_STEPS,
    MODEL_DELAY,
    Runner,
    Samples,
    Verdict,
    header,
    paired_ratio,
    timed,
)
from per_step import HOOK_FOR_CONFIG
from workload import (
    PROMPT,
    SleepyModel,
    bare_run,
    build_agent,
    script,
)

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
            # the target is the runtime's own (defaults); extra hooks are shown for information
            target = CONCURRENCY_TARGET if name == "hookagent, defaults" else None
            verdicts.append(Verdict(f"concurrency, {name}", ratio, "x ideal", target))
    return verdicts
