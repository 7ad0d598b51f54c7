"""2. Hook dispatch: no-op hooks through the engine against a plain loop."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from harness import (
    DISPATCH_HOOKS,
    DISPATCH_TARGET,
    Runner,
    Samples,
    Verdict,
    header,
    paired_ratio,
    timed,
)
from hookagent import BEFORE_TOOL, ToolCallEvent, make_hook
from hookagent.hooks._engine import fold
from hookagent.hooks._registry import HookRegistry
from hookagent.hooks._watch import HookWatch
from hookagent.kernel._dispatch import Dispatcher
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView

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

    bare = Dispatcher(registry, state, view, approver=None, watch=None)
    ways: dict[str, Runner] = {
        "plain": plain_async if is_async else plain_sync,
        "fold": lambda: fold(BEFORE_TOOL, hooks, event, None),
    }
    watches: list[HookWatch] = []
    if is_async:  # an Agent watches async hooks that have a timeout (60 s by default)
        watch = HookWatch(1.0)
        watches.append(watch)
        watched = Dispatcher(registry, state, view, approver=None, watch=watch)
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
                # dispatch is the fold; fire adds the decision record, shown for information
                target = DISPATCH_TARGET if way == "fold" else None
                verdicts.append(Verdict(measure, ratio, "x plain", target))
    return verdicts
