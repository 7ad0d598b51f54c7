"""A run taken over while this process still runs it: the process stops at its next barrier
with `LeaseLost`, writes nothing, starts no tool and fires no hook after; `resume --force`
takes a run over from a holder that is provably gone, and only then."""

from __future__ import annotations

import asyncio
import os
import re
import socket
import subprocess
import time
from typing import Any, ClassVar

import pytest

import hookagent as h
from hookagent.store import Flush, MemoryStore
from hookagent.testing import ScriptedModel, reply, tool_call, turn


class Watched(MemoryStore):  # type: ignore[misc]  # final for users, watched here
    """A MemoryStore that counts the flushes that reach it and the renewals it refused."""

    def __init__(self) -> None:
        super().__init__()
        self.flushes = 0
        self.refused_renewals = 0
        self.written: list[tuple[str | None, int, float, float, float]] = []
        """(worker, epoch, lease, at) of each flush written, and the lease's end after it."""

    async def flush(self, flush: Flush) -> None:
        self.flushes += 1
        await super().flush(flush)
        run = await self.run(flush.run_id)
        assert run is not None
        self.written.append((flush.worker, flush.epoch, flush.lease, flush.at, run.lease_until))

    async def renew(
        self, run_id: str, worker: str, now: float, lease: float, *, epoch: int
    ) -> bool:
        held = await super().renew(run_id, worker, now, lease, epoch=epoch)
        self.refused_renewals += not held
        return held


class Scenario:
    """`quick(1)`, a `build` that waits for the test, `quick(2)`; every effect and every
    hook that fired after the build started, in order."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self.effects: list[str] = []
        self.hooks_after_build: list[str] = []
        self.building = asyncio.Event()
        self.go_on = asyncio.Event()

    def agent(self) -> h.Agent:
        @h.tool
        def quick(n: int) -> str:
            """A quick step."""
            self.effects.append(f"quick {n}")
            return f"quick {n} done"

        @h.tool
        async def build() -> str:
            """A slow build."""
            self.effects.append("build")
            self.building.set()
            await self.go_on.wait()
            return "built"

        def seen(name: str) -> Any:
            def hook(event: Any) -> None:
                if self.building.is_set():
                    self.hooks_after_build.append(name)

            return hook

        model = ScriptedModel(
            [
                tool_call("quick", "c1", n=1),
                tool_call("build", "c2"),
                tool_call("quick", "c3", n=2),
                reply("done"),
            ],
            by_history=True,
        )
        builder = h.AgentBuilder().model(model).tools(quick, build).store(self.store)
        for point in (h.ON_ERROR, h.AFTER_TOOL, h.BEFORE_TOOL, h.EXECUTION_END, h.BEFORE_STEP):
            builder = builder.on(point, seen(point.name))
        return builder.build()

    async def start(self) -> tuple[asyncio.Task[h.RunResult[Any]], str]:
        """The run, started and stopped inside `build`; its id."""
        task = asyncio.create_task(self.agent().run("go", session="s"))
        await asyncio.wait_for(self.building.wait(), 5)
        session = await self.store.session("s")
        assert session is not None and session.head_run_id is not None
        return task, session.head_run_id


async def take_over(store: MemoryStore, run_id: str, *, finish: bool) -> None:
    """What another worker does once the lease looks expired: claim the run (and, if
    `finish`, end it and release it, as a worker that completed it would)."""
    later = time.time() + 3600
    taken = await store.claim_run(run_id, "thief", later, 60.0)
    assert taken is not None and taken.lease_epoch == 2
    if finish:
        done = Flush(
            run_id=run_id, status="completed", scalars="{}", at=later, worker="thief", epoch=2
        )
        await store.flush(done)
        await store.release(run_id, "thief", epoch=2)


@pytest.mark.parametrize("finish", [False, True], ids=["held", "released"])
async def test_a_process_whose_run_was_taken_over_stops_at_its_next_barrier(
    finish: bool,
) -> None:
    scenario = Scenario(MemoryStore())
    task, run_id = await scenario.start()
    await take_over(scenario.store, run_id, finish=finish)
    scenario.go_on.set()
    with pytest.raises(h.LeaseLost, match=f"run {run_id}: lease lost") as lost:
        await task
    assert (lost.value.run_id, lost.value.holder) == (run_id, "thief")
    assert "thief took the run over" in str(lost.value)
    assert scenario.effects == ["quick 1", "build"]  # quick(2) never started here
    assert scenario.hooks_after_build == []  # not after_tool, on_error nor execution_end
    run = await scenario.store.run(run_id)
    assert run is not None
    assert (run.status, run.lease_owner) == ("completed" if finish else "running", "thief")
    rows = await scenario.store.rows(run_id)
    assert rows is not None
    [build] = [c for c in rows.calls if c.name == "build"]
    assert build.state == "started"  # the loser's end of the call was not written


async def test_the_renewer_finding_the_lease_gone_fails_the_next_barrier_without_writing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOOKAGENT_LEASE_SECONDS", "0.3")
    store = Watched()
    scenario = Scenario(store)
    task, run_id = await scenario.start()
    await take_over(store, run_id, finish=False)
    for _ in range(100):  # the renewer tries every 0.1 s
        if store.refused_renewals:
            break
        await asyncio.sleep(0.02)
    assert store.refused_renewals == 1
    flushes = store.flushes
    scenario.go_on.set()
    with pytest.raises(h.LeaseLost, match="thief took the run over"):
        await task
    assert store.flushes == flushes  # the barrier knew, and did not even try
    assert scenario.effects == ["quick 1", "build"]


async def test_every_barrier_renews_the_lease(monkeypatch: pytest.MonkeyPatch) -> None:
    """Renewal does not rest on the background task alone, which a busy event loop starves:
    every flush names the lease it holds and extends it."""
    monkeypatch.setenv("HOOKAGENT_LEASE_SECONDS", "30")
    store = Watched()
    scenario = Scenario(store)
    scenario.go_on.set()
    result = await scenario.agent().run("go", session="s")
    assert result.status == "completed"
    assert len(store.written) >= 8  # begin, checkpoints, each tool's start and end, close
    for worker, epoch, lease, at, until in store.written:
        assert (worker, epoch, lease) == (store.written[0][0], 1, 30.0)
        assert until >= at + 30.0


async def test_a_submitted_run_is_free_for_a_worker_at_once() -> None:
    store = MemoryStore()
    scenario = Scenario(store)
    run_id = await scenario.agent().submit("go", session="q")
    queued = await store.run(run_id)
    assert queued is not None
    assert (queued.status, queued.lease_until, queued.lease_epoch) == ("queued", 0.0, 1)
    taken = await store.claim("w1", time.time(), 60.0)
    assert taken is not None and (taken.id, taken.lease_epoch) == (run_id, 2)


# -- resume --force -------------------------------------------------------------------------
def dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


async def held_by(holder: str) -> tuple[MemoryStore, str, Scenario]:
    """A run left `running` under `holder`'s unexpired lease."""
    store = MemoryStore()
    scenario = Scenario(store)
    scenario.go_on.set()
    run_id = await scenario.agent().submit("go", session="s")
    assert await store.claim_run(run_id, holder, time.time(), 60.0) is not None
    return store, run_id, scenario


async def test_force_takes_a_run_over_from_a_dead_process_of_this_host() -> None:
    holder = f"{socket.gethostname()}:{dead_pid()}:abc123"
    store, run_id, scenario = await held_by(holder)
    with pytest.raises(h.StoreError, match="its process is gone: `hookagent resume --force"):
        await scenario.agent().resume(run_id)
    result = await scenario.agent().resume(run_id, force=True)
    assert result.status == "completed"
    assert scenario.effects == ["quick 1", "build", "quick 2"]
    run = await store.run(run_id)
    assert run is not None and run.lease_epoch == 3  # submitted, held, taken over


@pytest.mark.parametrize(
    ("holder", "why"),
    [
        (f"{socket.gethostname()}:{os.getpid()}:abc123", f"its process {os.getpid()} is alive"),
        ("elsewhere.example:4242:abc123", r"another host \(elsewhere.example\)"),
        ("ci-worker-1", "a worker named by HOOKAGENT_WORKER cannot be proven gone"),
    ],
    ids=["alive", "elsewhere", "named"],
)
async def test_force_is_refused_when_the_holder_is_not_provably_gone(holder: str, why: str) -> None:
    store, run_id, scenario = await held_by(holder)
    with pytest.raises(h.StoreError) as refused:
        await scenario.agent().resume(run_id, force=True)
    text = str(refused.value)
    assert f"is being run by {holder} (lease for another 60 s)" in text
    assert "--force refused" in text
    assert re.search(why, text), text
    assert scenario.effects == []
    run = await store.run(run_id)
    assert run is not None and (run.lease_owner, run.lease_epoch) == (holder, 2)


@pytest.mark.parametrize("text", ["soon", "0", "-1", "nan"])
async def test_a_lease_that_is_not_a_positive_number_is_refused_naming_it(
    monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    monkeypatch.setenv("HOOKAGENT_LEASE_SECONDS", text)
    store = MemoryStore()
    with pytest.raises(h.ConfigError, match="HOOKAGENT_LEASE_SECONDS: must be a positive"):
        await Scenario(store).agent().run("go", session="s")
    assert await store.sessions() == []  # refused before anything was written


async def test_calls_run_together_record_no_result_once_the_lease_is_lost() -> None:
    """Calls that ran side by side when the run was taken over ran: none is shown as not
    run, and the process records nothing more."""
    store = MemoryStore()
    started, go_on = asyncio.Event(), asyncio.Event()

    class Slow:
        name, description = "slow", "A slow call that may run beside others."
        parameters: ClassVar[dict[str, Any]] = {
            "type": "object",
            "properties": {"n": {"type": "integer"}},
        }
        concurrent = True

        async def __call__(self, args: Any, ctx: h.ToolContext, /) -> h.ToolResult:
            started.set()
            await go_on.wait()
            return h.ToolResult(content=f"slow {args['n']}")

    calls = [{"name": "slow", "args": {"n": n}, "id": f"c{n}"} for n in (1, 2)]
    model = ScriptedModel([turn("", *calls), reply("done")], by_history=True)
    agent = h.AgentBuilder().model(model).tools(Slow()).store(store).build()
    shown: list[str] = []

    async def watch() -> None:
        async for event in agent.stream("go", session="s"):
            if isinstance(event, h.ToolFinished):
                shown.append(event.execution.result.content)

    task = asyncio.create_task(watch())
    await asyncio.wait_for(started.wait(), 5)
    session = await store.session("s")
    assert session is not None and session.head_run_id is not None
    await take_over(store, session.head_run_id, finish=False)
    go_on.set()
    with pytest.raises(h.LeaseLost, match="thief took the run over"):
        await task
    assert shown == []
