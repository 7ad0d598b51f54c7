"""1b. A plain `def` tool, which hookagent runs on a worker thread so the loop stays free.

The same 100-step run as section 1 with the echo tool written as a sync `@tool`: on a worker
thread (the default), and on the loop (`blocking=False`). The hand-written baseline keeps its
loop free the usual way, `asyncio.to_thread`. The thread hop's own cost per call is the
difference between the two hookagent runs.
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

from harness import PER_STEP_TARGET, Samples, Verdict, header, paired_ratio, timed
from hookagent import (
    AgentBuilder,
    ModelRequest,
    ToolResultMessage,
    UserMessage,
    tool,
)
from workload import PROMPT, SPECS, InstantModel, check_same_work, script

STEPS: Final = 100
RUNS: Final = 10
CONFIGS: Final = ("bare loop, to_thread", "sync @tool, thread", "sync @tool, blocking=False")


def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


async def bare_to_thread(model: InstantModel, steps_cap: int) -> list[Any]:
    """The bare loop of `workload`, its sync tool called with `asyncio.to_thread`."""
    messages: list[Any] = [UserMessage(content=PROMPT)]
    for step in range(1, steps_cap + 1):
        request = ModelRequest(messages=messages, tools=SPECS, step=step)
        message = (await model.request(request)).message
        messages.append(message)
        if not message.tool_calls:
            break
        for call in message.tool_calls:
            content = await asyncio.to_thread(echo, **call.args)
            messages.append(ToolResultMessage(call_id=call.id, name=call.name, content=content))
    return messages


async def bench_sync_tools(repeats: int) -> list[Verdict]:
    header("1b. a sync @tool per step: on a worker thread, and on the loop")
    model = InstantModel(script(STEPS))
    limits = {"max_steps": STEPS + 2, "max_tokens": 10**12}
    on_thread = AgentBuilder().model(model).tools(tool(echo)).limits(**limits).build()
    inline = tool(blocking=False)(echo)
    on_loop = AgentBuilder().model(model).tools(inline).limits(**limits).build()
    runners = {
        CONFIGS[0]: lambda: bare_to_thread(model, STEPS + 1),
        CONFIGS[1]: lambda: on_thread.run(PROMPT),
        CONFIGS[2]: lambda: on_loop.run(PROMPT),
    }
    bare = await runners[CONFIGS[0]]()
    for name in CONFIGS[1:]:
        problem = check_same_work(bare, await runners[name](), STEPS)
        if problem is not None:
            raise SystemExit(f"benchmark workload mismatch ({name}): {problem}")
    per_step = {name: Samples() for name in CONFIGS}
    for round_no in range(repeats + 1):  # the first round warms up and is dropped
        for name in CONFIGS:
            seconds = await timed(runners[name], RUNS)
            if round_no:
                per_step[name].values.append(seconds / RUNS / (STEPS + 1))
    print(f"\n{'config':<30}{'us/step min':>13}{'us/step med':>13}{'x to_thread loop':>18}")
    for name in CONFIGS:
        s = per_step[name]
        ratio = paired_ratio(s, per_step[CONFIGS[0]])
        print(f"{name:<30}{s.best * 1e6:>13.2f}{s.median * 1e6:>13.2f}{ratio:>18.2f}")
    hop = [
        (thread - loop) * (STEPS + 1) / STEPS  # one call per step but the last
        for thread, loop in zip(
            per_step[CONFIGS[1]].values, per_step[CONFIGS[2]].values, strict=True
        )
    ]
    hop_us = sorted(hop)[len(hop) // 2] * 1e6
    print(f"\nthe thread hop: {hop_us:.1f} us per call (median of paired repeats)")
    return [
        Verdict(
            "per step, sync @tool (thread)",
            paired_ratio(per_step[CONFIGS[1]], per_step[CONFIGS[0]]),
            "x bare",
            PER_STEP_TARGET,
        ),
        Verdict("sync @tool thread hop", hop_us, "us/call", None),
    ]
