"""Where a hookagent step spends its time: the pieces the kernel pays for on every step.

Each piece is timed on its own (minimum of several repeats) and multiplied by how often one
step of the per-step benchmark (one echo-tool call, default limits, no user hooks) pays it,
so the total can be set against the measured per-step cost.
"""

from __future__ import annotations

import gc
import time
import timeit
from collections.abc import Callable
from types import MappingProxyType
from typing import Any, Final

from hookagent import (
    AFTER_STEP,
    BEFORE_TOOL,
    SHOULD_CONTINUE,
    ContinueEvent,
    InferenceEvent,
    ModelRequest,
    StepEvent,
    ToolCall,
    ToolCallEvent,
    ToolContext,
    ToolResult,
    ToolResultEvent,
    Usage,
    make_hook,
)
from hookagent.hooks._registry import HookRegistry
from hookagent.hooks._watch import HookWatch
from hookagent.kernel._dispatch import Dispatcher
from hookagent.kernel._records import StepRecord, ToolExecution
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView
from workload import PROMPT, InstantModel, bare_run, build_agent, noop_async, noop_sync, script

LOOPS: Final = 20_000
REPEATS: Final = 5


def sync_cost(stmt: Callable[[], object]) -> float:
    """Seconds per call of `stmt`, minimum over repeats, less the cost of calling a lambda."""
    empty = min(timeit.repeat(lambda: None, number=LOOPS, repeat=REPEATS))
    return max(0.0, min(timeit.repeat(stmt, number=LOOPS, repeat=REPEATS)) - empty) / LOOPS


async def async_cost(make: Callable[[], Any], after: Callable[[], None] = lambda: None) -> float:
    """Seconds per await of `make()`, minimum over repeats, garbage collector off."""
    best = float("inf")
    for _ in range(REPEATS):
        gc.collect()
        gc.disable()
        start = time.perf_counter()
        for _ in range(LOOPS):
            await make()
        best = min(best, time.perf_counter() - start)
        gc.enable()
        after()
    return best / LOOPS


async def breakdown() -> None:
    state = RunState()
    view = RunView(state)
    agent = build_agent(InstantModel(script(1)), 1000)
    kernel_hooks = Dispatcher(agent.registry, state, view, approver=None, watch=None)
    call = ToolCall(id="call_1", name="echo", args={"text": "x"})
    result = ToolResult(content="x")
    request = ModelRequest(messages=view.messages, step=1)
    usage = Usage(input_tokens=10, output_tokens=5, requests=1)
    step_event = StepEvent(run=view, step=1)
    continue_event = ContinueEvent(run=view, step=1, tool_calls=1)
    tool_event = ToolCallEvent(run=view, step=1, call_id="c", tool_name="echo", args={})

    def one_hook(fn: Any, watch: HookWatch | None) -> Dispatcher:
        registry = HookRegistry([make_hook(BEFORE_TOOL, fn)])
        return Dispatcher(registry, state, view, approver=None, watch=watch)

    sync_hook = one_hook(noop_sync, None)
    watch = HookWatch(1.0)
    async_hook = one_hook(noop_async, watch)
    clear = state.decisions.clear

    # (what, times per step with default limits and no user hooks, seconds each)
    rows: list[tuple[str, int, float]] = [
        (
            "events built before each fire (mean of 4 of the 7 kinds)",
            7,
            (
                sync_cost(lambda: StepEvent(run=view, step=1))
                + sync_cost(lambda: InferenceEvent(run=view, step=1, request=request))
                + sync_cost(
                    lambda: ToolResultEvent(
                        run=view,
                        step=1,
                        call_id="c",
                        tool_name="echo",
                        args=call.args,
                        result=result,
                        duration=0.0,
                    )
                )
                + sync_cost(lambda: ContinueEvent(run=view, step=1, tool_calls=1))
            )
            / 4,
        ),
        (
            "fire at a point with no hooks (event prebuilt)",
            6,
            await async_cost(lambda: kernel_hooks.fire(AFTER_STEP, step_event)),
        ),
        (
            "fire should_continue: 4 default limit hooks, 1 vote, 1 decision",
            1,
            await async_cost(lambda: kernel_hooks.fire(SHOULD_CONTINUE, continue_event), clear),
        ),
        (
            "records: StepRecord + ToolExecution",
            1,
            sync_cost(
                lambda: (
                    StepRecord(index=1, kind="tool_execution", executions=(), duration=0.0),
                    ToolExecution(call_id="c", name="echo", args=call.args, result=result),
                )
            ),
        ),
        (
            "ToolContext + MappingProxyType(args) for the tool call",
            1,
            sync_cost(lambda: (ToolContext(run=view, call=call), MappingProxyType(call.args))),
        ),
        ("Usage sum (state.usage + response.usage)", 1, sync_cost(lambda: usage + usage)),
    ]
    extras: list[tuple[str, float]] = [
        (
            "fire with one sync no-op hook (adds a decision record)",
            await async_cost(lambda: sync_hook.fire(BEFORE_TOOL, tool_event), clear),
        ),
        (
            "fire with one async no-op hook, watched as an Agent does",
            await async_cost(lambda: async_hook.fire(BEFORE_TOOL, tool_event), clear),
        ),
    ]
    await watch.close()

    model = InstantModel(script(1000))
    whole = build_agent(model, 1000)
    bare = hooked = float("inf")
    for _ in range(REPEATS):
        gc.collect()
        gc.disable()
        start = time.perf_counter()
        await bare_run(model, 1001)
        middle = time.perf_counter()
        await whole.run(PROMPT)
        end = time.perf_counter()
        gc.enable()
        bare = min(bare, (middle - start) / 1001)
        hooked = min(hooked, (end - middle) / 1001)

    print("per-step pieces, hookagent defaults (us):")
    total = 0.0
    for what, times, seconds in rows:
        total += times * seconds
        print(f"  {what:<66}{times:>3} x {seconds * 1e6:6.2f} = {times * seconds * 1e6:6.2f}")
    print(f"  {'sum of the pieces above':<66}{'':>13}{total * 1e6:6.2f}")
    rest = "the rest: coroutine layers, clocks, attribute reads, small calls"
    print(f"  {rest:<66}{'':>13}{(hooked - bare - total) * 1e6:6.2f}")
    measured = "measured: hookagent step - bare loop step (N=1000)"
    print(f"  {measured:<66}{'':>13}{(hooked - bare) * 1e6:6.2f}")
    print(f"  {'the whole bare loop step, for scale':<66}{'':>13}{bare * 1e6:6.2f}")
    print("each user hook point that has hooks instead pays (us):")
    for what, seconds in extras:
        print(f"  {what:<66}{'':>13}{seconds * 1e6:6.2f}")
