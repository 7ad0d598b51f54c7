"""SIGKILL at every durability barrier, and at random moments.

A forked process runs a session whose tool appends a line to a file per call, and kills
itself with SIGKILL just before or just after its k-th flush (or after a random delay);
another forked process then resumes the session (under the same worker name, as a restarted
worker would). Whatever the moment, the run completes, and every line is in the file exactly
once, or its call is reported in doubt (then at most once). When the tool can `reconcile`
(it looks for its line in the file), no call is left in doubt at all.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import threading
import time
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent.capabilities.bash import Bash
from hookagent.durable import _sessions as sessions
from hookagent.store._sqlite import SQLiteStore
from hookagent.testing import ScriptedModel, reply, turn
from hookagent.tools._base import Reconciled

CALLS = 8
KILLS = int(os.environ.get("HOOKAGENT_KILLS", "24"))
"""Random kill moments per tool (HOOKAGENT_KILLS=80 to measure the in-doubt rate)."""
WORKER = "kill-test-worker"
MODE = {"durability": "process"}
"""The store's durability mode for the test running (forked children inherit it)."""


def scenario_turns() -> list[Any]:
    steps = [
        turn("", {"name": "append", "args": {"line": f"L{i}"}, "id": f"c{i}"}) for i in range(CALLS)
    ]
    return [*steps, reply("all appended")]


def agent(db: Path, log: Path, *, reconciling: bool = False) -> h.Agent:
    def appended(args: Mapping[str, Any], key: str) -> Reconciled:
        lines = log.read_text().split() if log.exists() else []
        if args["line"] in lines:
            return Reconciled.done(h.ToolResult(content=f"appended {args['line']}"))
        return Reconciled.not_done(f"{args['line']} is not in the log")

    @h.tool(reconcile=appended if reconciling else None)
    def append(line: str) -> str:
        """Append a line to the log."""
        with log.open("a") as file:
            file.write(line + "\n")
        return f"appended {line}"

    model = ScriptedModel(scenario_turns(), by_history=True)
    store = SQLiteStore(db, durability=MODE["durability"])  # type: ignore[arg-type]
    return h.AgentBuilder().model(model).tools(append).store(store).build()


def in_child(work: Any) -> int:
    """Run `work()` in a forked process; its exit status (negative: killed by that signal)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            os.environ["HOOKAGENT_WORKER"] = WORKER
            asyncio.run(work())
            code = 0
        except BaseException:
            traceback.print_exc()  # shown with the failing test
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def killing_at(kill_at: int, when: str) -> Any:
    """Patch SQLiteStore.flush (in the child only) to SIGKILL around its `kill_at`-th call."""
    original = SQLiteStore.flush
    count = 0

    async def flush(self: SQLiteStore, batch: Any) -> None:
        nonlocal count
        count += 1
        if count == kill_at and when == "before":
            os.kill(os.getpid(), signal.SIGKILL)
        await original(self, batch)
        if count == kill_at and when == "after":
            os.kill(os.getpid(), signal.SIGKILL)

    return flush


def flushes_in_a_whole_run(tmp_path: Path) -> int:
    counter = tmp_path / "count"

    async def count() -> None:
        calls = 0
        original = SQLiteStore.flush

        async def flush(self: SQLiteStore, batch: Any) -> None:
            nonlocal calls
            calls += 1
            await original(self, batch)

        SQLiteStore.flush = flush  # type: ignore[method-assign]
        await agent(tmp_path / "count.db", tmp_path / "count.log").run("go", session="s")
        counter.write_text(str(calls))

    assert in_child(count) == 0
    return int(counter.read_text())


def killing_after(delay: float) -> Any:
    """Patch SQLiteStore.flush (in the child only) to SIGKILL the process `delay` seconds
    after its first write, wherever it is then."""
    original = SQLiteStore.flush
    timer = threading.Timer(delay, os.kill, (os.getpid(), signal.SIGKILL))
    timer.daemon = True

    async def flush(self: SQLiteStore, batch: Any) -> None:
        if not timer.is_alive() and not timer.finished.is_set():
            timer.start()
        await original(self, batch)

    return flush


def kill_and_resume(
    folder: Path, kill_at: int, when: str, *, reconciling: bool = False
) -> tuple[dict[str, Any], list[str]]:
    """Kill a run around its `kill_at`-th write (`when` before or after it, or `when` a
    delay in seconds), resume it in another process; the session's final status, the calls
    reported in doubt, and the lines in the file."""
    db, log, report = folder / "s.db", folder / "log", folder / "result.json"

    async def first() -> None:
        if when in ("before", "after"):
            SQLiteStore.flush = killing_at(kill_at, when)  # type: ignore[method-assign]
        else:
            SQLiteStore.flush = killing_after(float(when))  # type: ignore[method-assign]
        await agent(db, log, reconciling=reconciling).run("go", session="s")
        await asyncio.sleep(60)  # finished before the kill: wait for it

    async def resume() -> None:
        try:
            await agent(db, log, reconciling=reconciling).resume("s")
        except h.StoreError as exc:  # killed after its last write: nothing to resume
            if "no run or session" in str(exc):  # killed before its first
                report.write_text(json.dumps({"status": "never written", "doubts": []}))
                return
            assert "has ended" in str(exc), exc
        store = SQLiteStore(db)
        await store.open()
        detail = await sessions.inspect(store, "s")
        await store.close()
        doubts = [
            e["call_id"]
            for step in detail.steps
            for e in step["executions"]
            if isinstance(data := e["result"].get("data"), dict) and data.get("state") == "in_doubt"
        ]
        report.write_text(json.dumps({"status": detail.session.status, "doubts": doubts}))

    status = in_child(first)
    assert status == -signal.SIGKILL, f"{kill_at}/{when}: the run was not killed ({status})"
    assert in_child(resume) == 0, f"{kill_at}/{when}: resume failed"
    lines = log.read_text().split() if log.exists() else []
    return json.loads(report.read_text()), lines


def in_doubt_after_kills(
    tmp_path: Path, points: list[tuple[int, str]], *, reconciling: bool
) -> int:
    """Kill and resume at each point; check every line is there once (at most once for a
    call in doubt); how many calls were left in doubt."""
    in_doubt_seen = 0
    for n, (kill_at, when) in enumerate(points):
        folder = tmp_path / f"{reconciling}-{n}"
        folder.mkdir()
        outcome, lines = kill_and_resume(folder, kill_at, when, reconciling=reconciling)
        if outcome["status"] == "never written":
            assert lines == [], (kill_at, when, lines)
            continue
        assert outcome["status"] == "completed", (kill_at, when, outcome)
        for i in range(CALLS):
            seen = lines.count(f"L{i}")
            if f"c{i}" in outcome["doubts"]:
                assert seen <= 1, (kill_at, when, lines)
            else:
                assert seen == 1, (kill_at, when, lines, outcome)
        in_doubt_seen += len(outcome["doubts"])
    return in_doubt_seen


@pytest.fixture(params=["process", "power"])
def durability(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each kill test runs with the store in each durability mode."""
    monkeypatch.setitem(MODE, "durability", request.param)
    return str(request.param)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.parametrize("reconciling", [False, True], ids=["plain", "reconciling"])
def test_sigkill_before_or_after_any_store_write_loses_nothing_and_repeats_nothing(
    tmp_path: Path, reconciling: bool, durability: str
) -> None:
    total = flushes_in_a_whole_run(tmp_path)
    # The start, `started` and the result of each call, the end: every barrier is a kill point
    # (a checkpoint is written by the barrier after it).
    assert total >= 2 * CALLS + 2, f"only {total} store writes"
    points = [(k, when) for k in range(1, total + 1) for when in ("before", "after")]
    in_doubt = in_doubt_after_kills(tmp_path, points, reconciling=reconciling)
    if reconciling:
        assert in_doubt == 0  # every doubt settled by looking at the log
    else:
        assert in_doubt >= 1  # killing between a call's start and its end leaves it in doubt


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.parametrize("reconciling", [False, True], ids=["plain", "reconciling"])
def test_sigkill_at_random_moments(tmp_path: Path, reconciling: bool, durability: str) -> None:
    """The same, killed after a random delay within a run (seeded: the same moments for
    both tools); a run that finished first is killed idle, which is harmless."""
    span = run_seconds(tmp_path)
    chance = random.Random(13)
    points = [(0, f"{chance.uniform(0, span):.4f}") for _ in range(KILLS)]
    in_doubt = in_doubt_after_kills(tmp_path, points, reconciling=reconciling)
    assert in_doubt == 0 or not reconciling


def run_seconds(tmp_path: Path) -> float:
    """How long a whole run takes here, from its first write to the store."""
    timing = tmp_path / "timing"

    async def timed() -> None:
        began: list[float] = []
        original = SQLiteStore.flush

        async def flush(self: SQLiteStore, batch: Any) -> None:
            began[:] = began or [time.perf_counter()]
            await original(self, batch)

        SQLiteStore.flush = flush  # type: ignore[method-assign]
        await agent(tmp_path / "timing.db", tmp_path / "timing.log").run("go", session="s")
        timing.write_text(str(time.perf_counter() - began[0]))

    assert in_child(timed) == 0
    return float(timing.read_text())


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_bash_command_has_the_same_key_when_run_again_after_a_kill(tmp_path: Path) -> None:
    """The command writes its key down and SIGKILLs the agent the first time; resumed, the
    call is in doubt, a hook asks, the answer is to run it again: the same key."""
    db, keys, marker, report = (tmp_path / n for n in ("s.db", "keys", "killed", "key"))
    command = (
        f'echo "$HOOKAGENT_IDEMPOTENCY_KEY" >> {keys}; '
        f"[ -e {marker} ] || {{ touch {marker}; kill -9 $PPID; sleep 1; }}"
    )

    def bash_agent() -> h.Agent:
        model = ScriptedModel(
            [turn("", {"name": "Bash", "args": {"command": command}, "id": "b0"}), reply("ok")],
            by_history=True,
        )

        def again(event: h.ToolCallEvent) -> h.HookResult | None:
            return h.HookResult.ask("Run it again?") if event.in_doubt else None

        bash = Bash(tmp_path, sandbox="off")  # a sandboxed command cannot kill the agent
        builder = h.AgentBuilder().model(model).with_(bash).on(h.BEFORE_TOOL, again)
        return builder.store(SQLiteStore(db)).build()

    async def first() -> None:
        await bash_agent().run("go", session="s")

    async def resume() -> None:
        result = await bash_agent().resume("s", approver=lambda question: True)
        store = SQLiteStore(db)
        await store.open()
        loaded = await store.load(result.run_id)
        await store.close()
        assert loaded is not None
        report.write_text(next(c.idempotency_key for c in loaded.calls if c.call_id == "b0"))

    assert in_child(first) == -signal.SIGKILL
    assert in_child(resume) == 0
    assert keys.read_text().split() == [report.read_text()] * 2
