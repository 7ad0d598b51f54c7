"""The watchdog reads what each task's fold awaits from that task's slot: folds in any task
are timed (concurrent tool calls, tasks nobody tracked), each task on its own, a hook that
folds hooks nests, and a finished hook is never timed again."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

import pytest

import hookagent as h
from hookagent._errors import HookError
from hookagent.hooks._engine import fold
from hookagent.hooks._events import ToolCallEvent
from hookagent.hooks._hook import make_hook
from hookagent.hooks._points import BEFORE_TOOL
from hookagent.hooks._result import HookResult
from hookagent.hooks._watch import HookWatch
from hookagent.kernel._view import RunView
from hookagent.testing import ScriptedModel, reply, turn

TIMEOUT = 0.05
"""Ten ticks of the `watch` fixture."""
BOUND = 5.0
"""Seconds after which a test that should have timed a hook out gives up (it would hang)."""


def tool_call(run: RunView) -> ToolCallEvent:
    return ToolCallEvent(run=run, step=1, call_id="c1", tool_name="Bash", args={})


async def hang(_event: Any) -> HookResult:
    await asyncio.Event().wait()
    raise AssertionError("unreachable: nothing sets the event")


async def tracked(watch: HookWatch, hook: Any, event: ToolCallEvent) -> Any:
    """Fold in a task the watch tracks, as a run's own task is."""
    task = asyncio.current_task()
    assert task is not None
    watch.track(task)
    return await fold(BEFORE_TOOL, (hook,), event, watch)


def assert_task_not_cancelled() -> None:
    task = asyncio.current_task()
    assert task is not None
    assert task.cancelling() == 0


class Together:
    """An async tool whose calls in one reply run at the same time, each in its own task."""

    name = "together"
    description = "Run alongside the others."
    parameters: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}}
    concurrent = True

    async def __call__(self, args: Any, ctx: Any, /) -> h.ToolResult:
        return h.ToolResult(content="ran")


async def test_a_hung_guard_of_calls_running_together_times_out() -> None:
    model = ScriptedModel(
        [
            turn(
                "",
                {"name": "together", "args": {}, "id": "c1"},
                {"name": "together", "args": {}, "id": "c2"},
            ),
            reply("done"),
        ]
    )
    agent = (
        h.AgentBuilder()
        .model(model)
        .tools(Together())
        .on(h.BEFORE_TOOL, hang, name="hung", timeout=TIMEOUT)
        .build()
    )
    result = await asyncio.wait_for(agent.run("go"), BOUND)
    assert result.status == "completed"
    assert [call.blocked for call in result.tool_calls] == [True, True]
    for call in result.tool_calls:
        assert f"user:hung at before_tool timed out after {TIMEOUT} s" in call.result.content


async def test_a_fold_in_a_task_nobody_tracked_is_timed(run: RunView, watch: HookWatch) -> None:
    hook = make_hook(BEFORE_TOOL, hang, name="slow", timeout=TIMEOUT)
    folded = await asyncio.wait_for(fold(BEFORE_TOOL, (hook,), tool_call(run), watch), BOUND)
    assert folded.best.kind == "block"
    assert folded.votes[0].error == "timed out"


async def test_folds_in_two_tasks_are_timed_each_on_its_own(run: RunView, watch: HookWatch) -> None:
    async def patient(_event: ToolCallEvent) -> HookResult:
        await asyncio.sleep(3 * TIMEOUT)  # longer than the hung hook's timeout, within its own
        return HookResult.context("patient")

    hung = make_hook(BEFORE_TOOL, hang, name="hung", kind="observer", timeout=TIMEOUT)
    calm = make_hook(BEFORE_TOOL, patient, name="patient", timeout=10 * TIMEOUT)
    first, second = await asyncio.wait_for(
        asyncio.gather(
            fold(BEFORE_TOOL, (hung,), tool_call(run), watch),
            fold(BEFORE_TOOL, (calm,), tool_call(run), watch),
        ),
        BOUND,
    )
    assert [(v.hook, v.error) for v in first.votes] == [("user:hung", "timed out")]
    assert [(v.hook, v.error) for v in second.votes] == [("user:patient", None)]


async def test_a_hook_that_folds_hooks_is_timed_apart_from_them(
    run: RunView, watch: HookWatch
) -> None:
    """The innermost fold's hook is the one timed, and named; the outer hook's own wait
    is timed again once the nested fold is done."""
    nested: list[tuple[str, str | None]] = []

    async def outer(event: ToolCallEvent) -> HookResult:
        inner = make_hook(BEFORE_TOOL, hang, name="inner", kind="observer", timeout=TIMEOUT)
        folded = await fold(BEFORE_TOOL, (inner,), event, watch)
        nested.extend((vote.hook, vote.error) for vote in folded.votes)
        return await hang(event)

    hook = make_hook(BEFORE_TOOL, outer, name="outer", kind="observer", timeout=4 * TIMEOUT)
    folded = await asyncio.wait_for(tracked(watch, hook, tool_call(run)), BOUND)
    assert nested == [("user:inner", "timed out")]
    assert [(v.hook, v.error) for v in folded.votes] == [("user:outer", "timed out")]
    assert_task_not_cancelled()


async def test_a_finished_hook_is_not_timed_after_its_fold(run: RunView, watch: HookWatch) -> None:
    async def quick(_event: ToolCallEvent) -> HookResult:
        await asyncio.sleep(0)
        return HookResult.context("quick")

    hook = make_hook(BEFORE_TOOL, quick, name="quick", timeout=TIMEOUT)
    await fold(BEFORE_TOOL, (hook,), tool_call(run), watch)
    await asyncio.sleep(3 * TIMEOUT)  # not a hook: no timeout applies
    assert_task_not_cancelled()


async def test_a_hook_whose_failure_ends_its_fold_is_not_timed_after_it(
    run: RunView, watch: HookWatch
) -> None:
    async def broken(_event: ToolCallEvent) -> HookResult:
        await asyncio.sleep(0)
        raise ValueError("boom")

    hook = make_hook(BEFORE_TOOL, broken, name="strict", timeout=TIMEOUT, on_failure="raise")
    with pytest.raises(HookError, match="failed: ValueError: boom"):
        await fold(BEFORE_TOOL, (hook,), tool_call(run), watch)
    await asyncio.sleep(3 * TIMEOUT)
    assert_task_not_cancelled()


async def test_an_outer_hook_is_not_timed_by_a_nested_hook_that_failed(
    run: RunView, watch: HookWatch
) -> None:
    async def broken(_event: ToolCallEvent) -> HookResult:
        await asyncio.sleep(0)
        raise ValueError("boom")

    async def outer(event: ToolCallEvent) -> HookResult:
        inner = make_hook(BEFORE_TOOL, broken, name="inner", timeout=TIMEOUT, on_failure="raise")
        with pytest.raises(HookError):
            await fold(BEFORE_TOOL, (inner,), event, watch)
        await asyncio.sleep(3 * TIMEOUT)  # past the inner hook's timeout, within its own
        return HookResult.context("outer done")

    hook = make_hook(BEFORE_TOOL, outer, name="outer", timeout=20 * TIMEOUT)
    folded = await fold(BEFORE_TOOL, (hook,), tool_call(run), watch)
    assert folded.contexts == ["outer done"]
    assert folded.votes[0].error is None


async def test_a_hook_that_folds_hooks_again_and_again_is_timed_as_one_call(
    run: RunView, watch: HookWatch
) -> None:
    async def quick(_event: ToolCallEvent) -> None:
        await asyncio.sleep(0)

    async def busy(event: ToolCallEvent) -> HookResult:
        inner = make_hook(BEFORE_TOOL, quick, name="quick", timeout=TIMEOUT)
        while True:  # each nested fold ends well within the outer hook's timeout
            await fold(BEFORE_TOOL, (inner,), event, watch)
            await asyncio.sleep(TIMEOUT / 5)

    hook = make_hook(BEFORE_TOOL, busy, name="busy", kind="observer", timeout=4 * TIMEOUT)
    folded = await asyncio.wait_for(tracked(watch, hook, tool_call(run)), BOUND)
    assert [(v.hook, v.error) for v in folded.votes] == [("user:busy", "timed out")]
