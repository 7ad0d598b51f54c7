"""A call left in doubt by a crash is settled by its tool's `reconcile` before anyone is told
it may or may not have taken effect: done takes the tool's result, not done runs the call,
unknown (or a reconcile that raises, hangs or answers nonsense) leaves the doubt as before."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import pytest

import hookagent as h
from hookagent.sessions._replay import load_recording, replay
from hookagent.store import MemoryStore
from hookagent.testing import ScriptedModel, reply, turn
from hookagent.tools._base import Reconciled


class Crash(BaseException):
    """Stands for the process dying: nothing below the kernel catches it."""


Answer = Callable[["Ledger", str], Any]


class Ledger:
    """A payment API that deduplicates by key, behind a tool that can crash around it."""

    name = "charge"
    description = "Charge an amount."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"amount": {"type": "integer"}},
        "required": ["amount"],
    }

    def __init__(self, answer: Answer, *, idempotent: bool = False) -> None:
        self.answer = answer
        self.idempotent = idempotent
        self.charges: list[str] = []
        """The key of every charge made, in order (a duplicate would show twice)."""
        self.keys: list[str] = []
        """Every key the tool was called with, and every key reconcile was asked about."""
        self.crash: str | None = None
        """"after" the charge, "before" it, or None."""

    async def __call__(self, args: Mapping[str, Any], ctx: h.ToolContext, /) -> h.ToolResult:
        self.keys.append(ctx.idempotency_key)
        crash, self.crash = self.crash, None
        if crash == "before":
            raise Crash
        self.charges.append(ctx.idempotency_key)
        if crash == "after":
            raise Crash
        return h.ToolResult(content=f"charged {args['amount']}")

    def reconcile(self, args: Mapping[str, Any], key: str, /) -> Any:
        self.keys.append(key)
        return self.answer(self, key)


def found(ledger: Ledger, key: str) -> Reconciled:
    """What a real reconcile does: ask the API whether the key was charged."""
    if key in ledger.charges:
        return Reconciled.done(h.ToolResult(content="charged (found by key)"), "key charged")
    return Reconciled.not_done("no charge with this key")


def build(store: MemoryStore, tool: Any, **hooks: Any) -> h.Agent:
    model = ScriptedModel(
        [turn("", {"name": "charge", "args": {"amount": 5}, "id": "c0"}), reply("done")],
        by_history=True,
    )
    builder = h.AgentBuilder().model(model).tools(tool).store(store)
    for point, fn in hooks.items():
        builder.on(getattr(h, point.upper()), fn)
    return builder.build()


async def crashed(store: MemoryStore, tool: Any, when: str = "after", **hooks: Any) -> str:
    tool.crash = when
    with contextlib.suppress(Crash):
        await build(store, tool, **hooks).run("pay", session="s")
    [run] = await store.runs((await store.session("s")).id)  # type: ignore[union-attr]
    return run.id


async def call_record(store: MemoryStore, run_id: str) -> Any:
    loaded = await store.load(run_id)
    assert loaded is not None
    return next(c for c in loaded.calls if c.call_id == "c0")


def settled(result: h.RunResult[Any]) -> list[tuple[str, str | None, str | None]]:
    return [
        (d.outcome, d.reason, d.votes[0].error)
        for d in result.decisions.at("reconcile")
        if d.call_id == "c0"
    ]


async def test_done_takes_the_tools_result_and_runs_nothing() -> None:
    store, tool, seen = MemoryStore(), Ledger(found), list[bool]()
    run_id = await crashed(store, tool, before_tool=lambda e: seen.append(e.in_doubt))
    result = await build(store, tool, before_tool=lambda e: seen.append(e.in_doubt)).resume(run_id)
    assert result.status == "completed"
    assert len(tool.charges) == 1  # no second charge
    execution = result.steps[0].executions[0]
    assert (execution.result.content, execution.result.is_error) == (
        "charged (found by key)",
        False,
    )
    assert settled(result) == [("done", "key charged", None)]
    assert seen == [False]  # settled before any hook was told of a doubt
    record = await call_record(store, run_id)
    assert record.state == "done" and "found by key" in record.result


async def test_not_done_runs_the_call_once_more_under_the_same_key() -> None:
    store, tool = MemoryStore(), Ledger(found)
    run_id = await crashed(store, tool, when="before")
    assert tool.charges == []
    result = await build(store, tool).resume(run_id)
    assert result.status == "completed" and len(tool.charges) == 1
    assert result.steps[0].executions[0].result.content == "charged 5"
    assert settled(result) == [("not_done", "no charge with this key", None)]
    record = await call_record(store, run_id)
    assert record.state == "done"
    # the key the tool had, the key reconcile was asked about, the key of the rerun: one key
    assert tool.keys == [record.idempotency_key] * 3 and len(record.idempotency_key) == 32


async def test_not_done_makes_started_durable_again_before_the_rerun() -> None:
    store, tool = MemoryStore(), Ledger(lambda ledger, key: Reconciled.not_done())
    run_id = await crashed(store, tool, when="before")
    tool.crash = "after"  # the rerun dies too, after its effect
    with contextlib.suppress(Crash):
        await build(store, tool).resume(run_id)
    assert (await call_record(store, run_id)).state == "started"


async def test_unknown_leaves_the_doubt_as_it_was() -> None:
    store = MemoryStore()
    tool = Ledger(lambda ledger, key: Reconciled.unknown("the API is down"))
    run_id = await crashed(store, tool)
    result = await build(store, tool).resume(run_id)
    assert result.status == "completed" and len(tool.charges) == 1
    doubt = result.steps[0].executions[0].result
    assert doubt.is_error and doubt.data == {"state": "in_doubt", "call_id": "c0"}
    assert settled(result) == [("unknown", "the API is down", None)]
    assert (await call_record(store, run_id)).state == "in_doubt"


async def test_unknown_then_an_idempotent_tool_runs_again() -> None:
    store = MemoryStore()
    tool = Ledger(lambda ledger, key: Reconciled.unknown("cannot tell"), idempotent=True)
    run_id = await crashed(store, tool)
    result = await build(store, tool).resume(run_id)
    assert len(tool.charges) == 2 and not result.steps[0].executions[0].result.is_error


async def test_unknown_then_a_hook_ask_approved_runs_again() -> None:
    store = MemoryStore()
    tool = Ledger(lambda ledger, key: Reconciled.unknown("cannot tell"))

    def check(event: h.ToolCallEvent) -> h.HookResult | None:
        return h.HookResult.ask("Charge again?") if event.in_doubt else None

    run_id = await crashed(store, tool, before_tool=check)
    result = await build(store, tool, before_tool=check).resume(run_id, approver=lambda q: True)
    assert result.status == "completed" and len(tool.charges) == 2


def raising(ledger: Ledger, key: str) -> Reconciled:
    raise RuntimeError("ledger unreachable")


async def test_a_reconcile_that_raises_counts_as_unknown_with_its_error() -> None:
    store, tool = MemoryStore(), Ledger(raising)
    run_id = await crashed(store, tool)
    result = await build(store, tool).resume(run_id)
    assert len(tool.charges) == 1 and result.steps[0].executions[0].result.is_error
    error = "reconcile raised RuntimeError: ledger unreachable"
    assert settled(result) == [("unknown", error, error)]
    assert (await call_record(store, run_id)).state == "in_doubt"


async def test_a_reconcile_that_answers_nonsense_counts_as_unknown() -> None:
    store, tool = MemoryStore(), Ledger(lambda ledger, key: "yes")
    run_id = await crashed(store, tool)
    result = await build(store, tool).resume(run_id)
    [(outcome, _, error)] = settled(result)
    assert outcome == "unknown" and error is not None and "'yes'" in error
    assert len(tool.charges) == 1


async def test_a_reconcile_that_hangs_times_out_as_unknown() -> None:
    release = threading.Event()
    tool = Ledger(lambda ledger, key: release.wait(30))  # a sync reconcile on a thread
    tool.reconcile_timeout = 0.05  # type: ignore[attr-defined]
    store = MemoryStore()
    run_id = await crashed(store, tool)
    try:
        result = await build(store, tool).resume(run_id)
    finally:
        release.set()
    assert settled(result) == [("unknown", *["reconcile timed out after 0.05 s"] * 2)]
    assert len(tool.charges) == 1 and result.steps[0].executions[0].result.is_error


async def test_an_async_reconcile_is_awaited_and_timed_too() -> None:
    class Async(Ledger):
        async def reconcile(self, args: Mapping[str, Any], key: str, /) -> Any:
            await asyncio.sleep(30)

    tool = Async(found)
    tool.reconcile_timeout = 0.05  # type: ignore[attr-defined]
    store = MemoryStore()
    run_id = await crashed(store, tool)
    result = await build(store, tool).resume(run_id)
    assert settled(result)[0][0] == "unknown" and len(tool.charges) == 1


def test_a_bad_reconcile_timeout_is_refused_when_the_agent_is_built() -> None:
    tool = Ledger(found)
    tool.reconcile_timeout = -1  # type: ignore[attr-defined]
    with pytest.raises(h.ConfigError, match="tool 'charge' reconcile_timeout: must be a number"):
        build(MemoryStore(), tool)


async def test_done_with_an_error_result_records_the_call_failed() -> None:
    store = MemoryStore()
    failed = h.ToolResult.error("card declined (found by key)")
    tool = Ledger(lambda ledger, key: Reconciled.done(failed))
    run_id = await crashed(store, tool)
    result = await build(store, tool).resume(run_id)
    assert result.steps[0].executions[0].result.content == "card declined (found by key)"
    assert (await call_record(store, run_id)).state == "failed"


async def test_the_settlement_is_kept_when_its_segment_runs_again() -> None:
    """Settled, made durable by the next call's barrier, then the process dies again in the
    same segment: the second resume takes the settlement from the journal, records it once,
    and does not ask again."""
    store, tool = MemoryStore(), Ledger(found)
    two = [{"name": "charge", "args": {"amount": n}, "id": f"c{n}"} for n in (0, 1)]

    def agent(**hooks: Any) -> h.Agent:
        model = ScriptedModel([turn("", *two), reply("done")], by_history=True)
        builder = h.AgentBuilder().model(model).tools(tool).store(store)
        for point, fn in hooks.items():
            builder.on(getattr(h, point.upper()), fn)
        return builder.build()

    tool.crash = "after"
    with contextlib.suppress(Crash):
        await agent().run("pay", session="s")
    [run] = await store.runs((await store.session("s")).id)  # type: ignore[union-attr]

    def die_after_c1(event: h.ToolResultEvent) -> None:
        if event.call_id == "c1":
            raise Crash

    with contextlib.suppress(Crash):
        await agent(after_tool=die_after_c1).resume(run.id)
    asked = tool.keys.count(tool.charges[0])
    result = await agent().resume(run.id)
    assert tool.keys.count(tool.charges[0]) == asked  # c0 was not asked about again
    assert [d.call_id for d in result.decisions.at("reconcile")] == ["c0"]
    assert len(tool.charges) == 2
    loaded = await store.load(run.id)
    assert loaded is not None
    assert sum('"reconcile"' in d for d in loaded.decisions) == 1


async def test_a_tool_without_reconcile_is_not_asked() -> None:
    class Plain:
        name, description = "charge", "Charge an amount."
        parameters = Ledger.parameters

        async def __call__(self, args: Mapping[str, Any], ctx: h.ToolContext, /) -> h.ToolResult:
            raise Crash

    store = MemoryStore()
    with contextlib.suppress(Crash):
        await build(store, Plain()).run("pay", session="s")
    [run] = await store.runs((await store.session("s")).id)  # type: ignore[union-attr]
    result = await build(store, Plain()).resume(run.id)
    assert result.decisions.at("reconcile") == []
    assert "In doubt" in result.steps[0].executions[0].result.content


async def test_a_replay_of_a_settled_run_reports_no_change() -> None:
    """Settling is not a hook's decision, and a replay crashes nowhere: nothing to compare."""
    store, tool = MemoryStore(), Ledger(found)
    run_id = await crashed(store, tool)
    await build(store, tool).resume(run_id)
    report = await replay(await load_recording(store, run_id), build(MemoryStore(), tool))
    assert report.changes == [] and report.status_after == "completed"
