"""1. Per-step overhead against the bare loop, at 10, 100 and 1,000 steps."""

from __future__ import annotations

from typing import Any, Final

from harness import (
    FLAT_TARGET,
    PER_STEP_TARGET,
    STEP_COUNTS,
    STEPS_PER_SAMPLE,
    TYPED_TOOL_TARGET,
    Runner,
    Samples,
    Verdict,
    header,
    paired_ratio,
    timed,
)
from workload import (
    PROMPT,
    InstantModel,
    bare_run,
    build_agent,
    check_same_work,
    echo_function,
    noop_async,
    noop_sync,
    script,
)

# -- 1. per-step overhead ------------------------------------------------------------------

STEP_CONFIGS: Final = (
    "bare loop",
    "hookagent, defaults",
    "+4 sync no-op",
    "+4 async no-op",
    "@tool echo, defaults",
)
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
    typed = build_agent(model, tool_steps, echo=echo_function)
    runners["@tool echo, defaults"] = lambda: typed.run(PROMPT)
    return runners


async def verify_step_work(tool_steps: int, runners: dict[str, Runner]) -> None:
    messages = await runners["bare loop"]()
    for name in (*HOOK_FOR_CONFIG, "@tool echo, defaults"):
        problem = check_same_work(messages, await runners[name](), tool_steps)
        if problem is not None:
            raise SystemExit(f"benchmark workload mismatch ({name}, N={tool_steps}): {problem}")


async def bench_per_step(repeats: int) -> list[Verdict]:
    header("1. per-step overhead (one async echo-tool call per step, then an answer)")
    print(
        "A run of N takes N+1 model calls (N tool steps and the answer); per step = run / (N+1).\n"
        "Defaults: step, token, time and tool-call-presence limits + error policy installed.\n"
        "@tool echo: the same echo tool as a typed `@tool` async function, as users write it.\n"
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
                target = TYPED_TOOL_TARGET if name.startswith("@tool") else PER_STEP_TARGET
                verdicts.append(Verdict(f"per step, {name}, N={n}", ratio, "x bare", target))
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
