"""Hooks that fail: exceptions and timeouts, handled per kind and `on_failure`.

A guard fails closed (block, or stop with `guard` where block is illegal), an observer fails
open (logged), a transform is skipped, and `on_failure="raise"` turns the failure into a
`HookError`. Timeouts come from a `HookWatch` watching the folding task (a run tracks its
task; `fold_watched` does the same here) and count as failures of the same kind.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

import pytest

from hookagent._errors import HookError
from hookagent.hooks._engine import fold
from hookagent.hooks._events import ContinueEvent, ToolCallEvent, ToolResultEvent
from hookagent.hooks._hook import make_hook
from hookagent.hooks._points import AFTER_TOOL, BEFORE_TOOL, SHOULD_CONTINUE, HookPoint
from hookagent.hooks._result import HookResult
from hookagent.hooks._watch import HookWatch
from hookagent.kernel._view import RunView
from hookagent.tools._base import ToolResult

TICK_TIMEOUT = 0.05
"""Hook timeout for the hang tests: ten ticks of the `watch` fixture."""


def tool_call(run: RunView, **args: Any) -> ToolCallEvent:
    return ToolCallEvent(run=run, step=1, call_id="c1", tool_name="Bash", args=args)


def tool_result(run: RunView) -> ToolResultEvent:
    return ToolResultEvent(
        run=run,
        step=1,
        call_id="c1",
        tool_name="Bash",
        args={},
        result=ToolResult(content="ok"),
        duration=0.0,
    )


def boom(_event: Any) -> HookResult:
    raise ValueError("boom")


async def hang(_event: Any) -> HookResult:
    await asyncio.Event().wait()
    raise AssertionError("unreachable: nothing sets the event")


def append(key: str) -> Any:
    def fn(event: ToolCallEvent) -> HookResult:
        return HookResult.modify(args={**event.args, key: True})

    return fn


def assert_task_not_cancelled() -> None:
    task = asyncio.current_task()
    assert task is not None
    assert task.cancelling() == 0


async def fold_watched(
    point: HookPoint[Any], hooks: tuple[Any, ...], event: Any, watch: HookWatch
) -> Any:
    """Fold as a run does: in a task the run's watch tracks (the agent tracks its run's task)."""
    task = asyncio.current_task()
    assert task is not None
    watch.track(task)
    return await fold(point, hooks, event, watch)


async def assert_watch_still_works(run: RunView, watch: HookWatch) -> None:
    """Nothing stale is left for this task: a hook waiting several ticks within its timeout
    is left alone, and a hung one is still timed out."""

    async def patient(_event: ToolCallEvent) -> HookResult:
        await asyncio.sleep(TICK_TIMEOUT / 2)
        return HookResult.context("patient")

    registered = (
        make_hook(BEFORE_TOOL, patient, name="patient", timeout=5.0),
        make_hook(BEFORE_TOOL, hang, name="hung", kind="observer", timeout=TICK_TIMEOUT),
    )
    folded = await fold_watched(BEFORE_TOOL, registered, tool_call(run), watch)
    assert [(v.hook, v.error) for v in folded.votes] == [
        ("user:patient", None),
        ("user:hung", "timed out"),
    ]
    assert_task_not_cancelled()


# -- exceptions --------------------------------------------------------------------------


async def test_a_raising_guard_blocks_naming_hook_and_exception(run: RunView) -> None:
    calls: list[str] = []
    registered = (
        make_hook(BEFORE_TOOL, boom, name="check", source="policy"),
        make_hook(BEFORE_TOOL, lambda _e: calls.append("later"), name="later"),
    )
    folded = await fold(BEFORE_TOOL, registered, tool_call(run), None)
    assert folded.best.kind == "block"
    assert folded.best.reason == "hook policy:check at before_tool failed: ValueError: boom"
    assert folded.decided_by == "policy:check"
    assert calls == [], "a fail-closed block ends the fold"
    (vote,) = folded.votes
    assert (vote.hook, vote.decision, vote.error) == ("policy:check", "block", "ValueError: boom")


@pytest.mark.parametrize(
    ("point", "event"),
    [
        pytest.param(AFTER_TOOL, tool_result, id="after_tool"),
        pytest.param(
            SHOULD_CONTINUE,
            lambda run: ContinueEvent(run=run, step=1, tool_calls=0),
            id="should_continue",
        ),
    ],
)
async def test_a_raising_guard_stops_where_block_is_illegal(
    run: RunView, point: Any, event: Any
) -> None:
    folded = await fold(point, (make_hook(point, boom, name="check"),), event(run), None)
    assert folded.best.kind == "stop"
    assert folded.best.stop_reason == "guard"
    assert folded.best.reason == f"hook user:check at {point.name} failed: ValueError: boom"
    assert folded.votes[0].error == "ValueError: boom"


async def test_a_raising_observer_fails_open_and_logs(
    run: RunView, caplog: pytest.LogCaptureFixture
) -> None:
    calls: list[str] = []
    registered = (
        make_hook(BEFORE_TOOL, boom, name="watcher", kind="observer"),
        make_hook(BEFORE_TOOL, lambda _e: calls.append("later"), name="later"),
    )
    with caplog.at_level(logging.WARNING, logger="hookagent.hooks"):
        folded = await fold(BEFORE_TOOL, registered, tool_call(run), None)
    assert folded.best.kind == "proceed"
    assert folded.outcome == "proceed"
    assert calls == ["later"]
    (vote,) = folded.votes
    assert (vote.hook, vote.decision, vote.error) == ("user:watcher", "proceed", "ValueError: boom")
    (record,) = [r for r in caplog.records if r.name == "hookagent.hooks"]
    assert record.levelno == logging.WARNING
    assert "hook user:watcher at before_tool failed: ValueError: boom" in record.getMessage()


async def test_a_raising_transform_is_skipped(run: RunView) -> None:
    registered = (
        make_hook(BEFORE_TOOL, append("first"), name="first", kind="transform"),
        make_hook(BEFORE_TOOL, boom, name="broken", kind="transform"),
        make_hook(BEFORE_TOOL, append("third"), name="third", kind="transform"),
    )
    folded = await fold(BEFORE_TOOL, registered, tool_call(run), None)
    assert dict(folded.event.args) == {"first": True, "third": True}
    assert folded.outcome == "modify"
    assert [(v.hook, v.decision, v.error) for v in folded.votes] == [
        ("user:first", "modify", None),
        ("user:broken", "proceed", "ValueError: boom"),
        ("user:third", "modify", None),
    ]


@pytest.mark.parametrize("kind", ["guard", "transform", "observer"])
async def test_on_failure_raise_raises_a_hook_error(run: RunView, kind: Any) -> None:
    hook = make_hook(BEFORE_TOOL, boom, name="strict", kind=kind, on_failure="raise")
    with pytest.raises(HookError) as caught:
        await fold(BEFORE_TOOL, (hook,), tool_call(run), None)
    assert (caught.value.hook, caught.value.point) == ("user:strict", "before_tool")
    assert "failed: ValueError: boom" in str(caught.value)
    assert isinstance(caught.value.__cause__, ValueError)


async def test_a_guard_may_fail_open_instead(
    run: RunView, caplog: pytest.LogCaptureFixture
) -> None:
    hook = make_hook(BEFORE_TOOL, boom, name="lenient", on_failure="proceed")
    with caplog.at_level(logging.WARNING, logger="hookagent.hooks"):
        folded = await fold(BEFORE_TOOL, (hook,), tool_call(run), None)
    assert folded.best.kind == "proceed"
    assert folded.votes[0].error == "ValueError: boom"
    assert "user:lenient" in caplog.text


@pytest.mark.parametrize("kind", ["observer", "transform"])
async def test_a_non_guard_may_fail_closed_instead(run: RunView, kind: Any) -> None:
    hook = make_hook(BEFORE_TOOL, boom, name="strict", kind=kind, on_failure="block")
    folded = await fold(BEFORE_TOOL, (hook,), tool_call(run), None)
    assert folded.best.kind == "block"
    assert folded.votes[0].error == "ValueError: boom"


# -- timeouts ----------------------------------------------------------------------------


async def test_a_hung_guard_times_out_and_blocks(run: RunView, watch: HookWatch) -> None:
    hook = make_hook(BEFORE_TOOL, hang, name="slow", timeout=TICK_TIMEOUT)
    folded = await fold_watched(BEFORE_TOOL, (hook,), tool_call(run), watch)
    assert folded.best.kind == "block"
    assert folded.best.reason == f"hook user:slow at before_tool timed out after {TICK_TIMEOUT} s"
    assert folded.votes[0].error == "timed out"
    assert_task_not_cancelled()
    await assert_watch_still_works(run, watch)


async def test_a_hung_guard_at_after_tool_stops(run: RunView, watch: HookWatch) -> None:
    hook = make_hook(AFTER_TOOL, hang, name="slow", timeout=TICK_TIMEOUT)
    folded = await fold_watched(AFTER_TOOL, (hook,), tool_result(run), watch)
    assert folded.best.kind == "stop"
    assert folded.best.stop_reason == "guard"
    assert folded.best.reason is not None
    assert "timed out" in folded.best.reason
    assert_task_not_cancelled()
    await asyncio.sleep(0)


async def test_a_hung_observer_fails_open(
    run: RunView, watch: HookWatch, caplog: pytest.LogCaptureFixture
) -> None:
    hook = make_hook(BEFORE_TOOL, hang, name="slow", kind="observer", timeout=TICK_TIMEOUT)
    with caplog.at_level(logging.WARNING, logger="hookagent.hooks"):
        folded = await fold_watched(BEFORE_TOOL, (hook,), tool_call(run), watch)
    assert folded.best.kind == "proceed"
    assert (folded.votes[0].decision, folded.votes[0].error) == ("proceed", "timed out")
    assert "hook user:slow at before_tool timed out" in caplog.text
    assert_task_not_cancelled()
    await asyncio.sleep(0)


async def test_a_hung_transform_is_skipped(run: RunView, watch: HookWatch) -> None:
    registered = (
        make_hook(BEFORE_TOOL, hang, name="slow", kind="transform", timeout=TICK_TIMEOUT),
        make_hook(BEFORE_TOOL, append("after"), name="after", kind="transform"),
    )
    folded = await fold_watched(BEFORE_TOOL, registered, tool_call(run), watch)
    assert dict(folded.event.args) == {"after": True}
    assert folded.votes[0].error == "timed out"
    assert_task_not_cancelled()


async def test_a_timeout_with_on_failure_raise_is_a_hook_error(
    run: RunView, watch: HookWatch
) -> None:
    hook = make_hook(BEFORE_TOOL, hang, name="slow", timeout=TICK_TIMEOUT, on_failure="raise")
    with pytest.raises(HookError, match="hook user:slow at before_tool: timed out"):
        await fold_watched(BEFORE_TOOL, (hook,), tool_call(run), watch)
    assert_task_not_cancelled()
    await asyncio.sleep(0)


async def test_a_blocking_sync_hook_that_overruns_times_out(run: RunView, watch: HookWatch) -> None:
    release = threading.Event()

    def stuck(_event: ToolCallEvent) -> None:
        release.wait(5)

    hook = make_hook(BEFORE_TOOL, stuck, name="stuck", blocking=True, timeout=TICK_TIMEOUT)
    try:
        folded = await fold_watched(BEFORE_TOOL, (hook,), tool_call(run), watch)
    finally:
        release.set()
    assert folded.best.kind == "block"
    assert folded.best.reason is not None
    assert "hook user:stuck at before_tool timed out" in folded.best.reason
    assert_task_not_cancelled()
    await asyncio.sleep(0)


async def test_a_blocking_sync_hook_runs_on_a_worker_thread(run: RunView, watch: HookWatch) -> None:
    threads: list[int] = []

    def work(event: ToolCallEvent) -> HookResult:
        threads.append(threading.get_ident())
        return HookResult.modify(args={**event.args, "done": True})

    hook = make_hook(BEFORE_TOOL, work, kind="transform", blocking=True, timeout=5.0)
    folded = await fold_watched(BEFORE_TOOL, (hook,), tool_call(run), watch)
    assert dict(folded.event.args) == {"done": True}
    assert threads != [threading.get_ident()]
    assert folded.votes[0].error is None


async def test_hooks_that_finish_in_time_are_unaffected(run: RunView, watch: HookWatch) -> None:
    async def quick(_event: ToolCallEvent) -> HookResult:
        await asyncio.sleep(0.01)  # the watchdog wakes twice meanwhile
        return HookResult.context("fine")

    registered = tuple(
        make_hook(BEFORE_TOOL, quick, name=f"quick{i}", timeout=1.0) for i in range(3)
    )
    folded = await fold_watched(BEFORE_TOOL, registered, tool_call(run), watch)
    assert folded.outcome == "context"
    assert folded.contexts == ["fine"] * 3
    assert [vote.error for vote in folded.votes] == [None] * 3
    assert_task_not_cancelled()


async def test_timeouts_in_a_row_leave_later_hooks_alone(run: RunView, watch: HookWatch) -> None:
    """No stale cancellation reaches a later hook that waits longer than a tick."""

    async def patient(_event: ToolCallEvent) -> HookResult:
        await asyncio.sleep(0.02)
        return HookResult.context("patient")

    registered = (
        make_hook(BEFORE_TOOL, hang, name="a", kind="observer", timeout=TICK_TIMEOUT),
        make_hook(BEFORE_TOOL, hang, name="b", kind="observer", timeout=TICK_TIMEOUT),
        make_hook(BEFORE_TOOL, patient, name="c", timeout=5.0),
    )
    folded = await fold_watched(BEFORE_TOOL, registered, tool_call(run), watch)
    assert [(v.hook, v.error) for v in folded.votes] == [
        ("user:a", "timed out"),
        ("user:b", "timed out"),
        ("user:c", None),
    ]
    assert folded.contexts == ["patient"]
    assert_task_not_cancelled()
    await asyncio.sleep(0.01)


async def test_an_always_hook_runs_after_a_timeout_block(run: RunView, watch: HookWatch) -> None:
    seen: list[str] = []

    async def audit(_event: ToolCallEvent, outcome: HookResult) -> None:
        await asyncio.sleep(0)
        seen.append(outcome.kind)

    registered = (
        make_hook(BEFORE_TOOL, hang, name="slow", timeout=TICK_TIMEOUT),
        make_hook(BEFORE_TOOL, audit, name="audit", tier="audit", kind="observer", always=True),
    )
    folded = await fold_watched(BEFORE_TOOL, registered, tool_call(run), watch)
    assert folded.best.kind == "block"
    assert seen == ["block"]


async def test_an_outside_cancel_of_a_hung_hook_propagates(run: RunView, watch: HookWatch) -> None:
    entered = asyncio.Event()

    async def hang_here(event: ToolCallEvent) -> HookResult:
        entered.set()
        return await hang(event)

    hook = make_hook(BEFORE_TOOL, hang_here, name="slow", timeout=5.0)
    task = asyncio.create_task(fold_watched(BEFORE_TOOL, (hook,), tool_call(run), watch))
    await entered.wait()
    await asyncio.sleep(TICK_TIMEOUT / 2)  # the watchdog looks at the waiting hook meanwhile
    assert task.cancelling() == 0, "a hook within its timeout is left alone"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await assert_watch_still_works(run, watch)


async def test_an_outside_cancel_racing_a_timeout_still_propagates(
    run: RunView, watch: HookWatch
) -> None:
    hook = make_hook(BEFORE_TOOL, hang, name="slow", timeout=TICK_TIMEOUT)
    task = asyncio.create_task(fold_watched(BEFORE_TOOL, (hook,), tool_call(run), watch))
    # `task.cancel()` counts a request at once, but the CancelledError reaches the task only
    # when it next runs; polling each iteration sees the watchdog's request first, so ours
    # lands before the task resumes. An Event cannot express "within the same iteration",
    # hence the noqa.
    while task.cancelling() == 0:  # noqa: ASYNC110
        await asyncio.sleep(0)
    task.cancel()
    assert task.cancelling() == 2, "both cancellations are pending"
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_a_hook_that_swallows_its_timeout_leaves_later_timeouts_armed(
    run: RunView, watch: HookWatch
) -> None:
    async def stubborn(_event: ToolCallEvent) -> HookResult:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:  # bad manners, but it must not disarm later hooks
            return HookResult.context("gave up")
        raise AssertionError("unreachable: nothing sets the event")

    async def two_folds() -> Any:
        stubborn_hook = make_hook(BEFORE_TOOL, stubborn, name="stubborn", timeout=TICK_TIMEOUT)
        await fold_watched(BEFORE_TOOL, (stubborn_hook,), tool_call(run), watch)
        assert_task_not_cancelled()
        slow = make_hook(BEFORE_TOOL, hang, name="slow", timeout=TICK_TIMEOUT)
        return await fold_watched(BEFORE_TOOL, (slow,), tool_call(run), watch)

    # its own task, bounded: were the second hook never timed out, this would hang
    folded = await asyncio.wait_for(two_folds(), 10 * TICK_TIMEOUT)
    assert folded.best.kind == "block"
    assert folded.votes[0].error == "timed out"


async def test_a_hook_called_fold_after_fold_gets_its_whole_timeout_each_time(
    run: RunView, watch: HookWatch
) -> None:
    async def steady(_event: ToolCallEvent) -> HookResult:
        await asyncio.sleep(0.07)
        return HookResult.context("done")

    hook = make_hook(BEFORE_TOOL, steady, name="steady", timeout=0.1)
    errors = []
    for _ in range(3):  # back to back, as for tool calls that return at once
        folded = await fold_watched(BEFORE_TOOL, (hook,), tool_call(run), watch)
        errors.append(folded.votes[0].error)
    assert errors == [None, None, None]
