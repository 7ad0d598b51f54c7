"""SIGKILL at every durability barrier: before and after each write to the store.

A forked process runs a session whose tool appends a line to a file per call, and kills
itself with SIGKILL just before or just after its k-th flush; another forked process then
resumes the session (under the same worker name, as a restarted worker would). Whatever k,
the run completes, and every line is in the file exactly once, or its call is reported in
doubt (then at most once).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent.durable import sessions
from hookagent.store.sqlite import SQLiteStore
from hookagent.testing import ScriptedModel, reply, turn

CALLS = 8
WORKER = "kill-test-worker"


def scenario_turns() -> list[Any]:
    steps = [
        turn("", {"name": "append", "args": {"line": f"L{i}"}, "id": f"c{i}"}) for i in range(CALLS)
    ]
    return [*steps, reply("all appended")]


def agent(db: Path, log: Path) -> h.Agent:
    @h.tool
    def append(line: str) -> str:
        """Append a line to the log."""
        with log.open("a") as file:
            file.write(line + "\n")
        return f"appended {line}"

    model = ScriptedModel(scenario_turns(), by_history=True)
    return h.AgentBuilder().model(model).tools(append).store(SQLiteStore(db)).build()


def in_child(work: Any) -> int:
    """Run `work()` in a forked process; its exit status (negative: killed by that signal)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            os.environ["HOOKAGENT_WORKER"] = WORKER
            asyncio.run(work())
            code = 0
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


def kill_and_resume(folder: Path, kill_at: int, when: str) -> tuple[dict[str, Any], list[str]]:
    """Kill a run around its `kill_at`-th write, resume it in another process; the
    session's final status, the calls reported in doubt, and the lines in the file."""
    db, log, report = folder / "s.db", folder / "log", folder / "result.json"

    async def first() -> None:
        SQLiteStore.flush = killing_at(kill_at, when)  # type: ignore[method-assign]
        await agent(db, log).run("go", session="s")

    async def resume() -> None:
        try:
            await agent(db, log).resume("s")
        except h.StoreError as exc:  # killed after its last write: nothing to resume
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


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_sigkill_before_or_after_any_store_write_loses_nothing_and_repeats_nothing(
    tmp_path: Path,
) -> None:
    total = flushes_in_a_whole_run(tmp_path)
    points = [(k, when) for k in range(1, total + 1) for when in ("before", "after")]
    assert len(points) >= 50, f"only {len(points)} kill points"
    in_doubt_seen = 0
    for kill_at, when in points:
        folder = tmp_path / f"{kill_at}-{when}"
        folder.mkdir()
        outcome, lines = kill_and_resume(folder, kill_at, when)
        assert outcome["status"] == "completed", (kill_at, when, outcome)
        for i in range(CALLS):
            seen = lines.count(f"L{i}")
            if f"c{i}" in outcome["doubts"]:
                assert seen <= 1, (kill_at, when, lines)
            else:
                assert seen == 1, (kill_at, when, lines, outcome)
        in_doubt_seen += len(outcome["doubts"])
    assert in_doubt_seen >= 1  # killing between a call's start and its end leaves it in doubt
