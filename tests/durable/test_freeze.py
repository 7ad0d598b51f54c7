"""A run frozen (SIGSTOP) at random moments past its lease, taken over by another process,
then woken: every effect happens once, or its call is reported in doubt (then at most once).

A forked process runs a session whose tool appends a line to a file per call; the test
freezes it after a random delay (fixed seed, each delay printed), waits until its lease has
run out, lets a second forked process resume the session, then wakes the first. The one
woken must either have finished before the freeze, or stop with `LeaseLost` naming the
process that took the run over. On SQLite (both durability modes) and PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import time
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent.durable import _sessions as sessions
from hookagent.store._base import Store
from hookagent.store._open import open_store
from hookagent.store._sqlite import SQLiteStore
from hookagent.testing import ScriptedModel, reply, turn
from store.conftest import postgres_server, postgres_url

__all__ = ["postgres_server", "postgres_url"]

CALLS = 6
LEASE = 0.3
TRIALS = 12
SEED = 13


MODE = {"durability": "process", "url": ""}
"""The SQLite store's durability mode for the test running, or the URL of the PostgreSQL
store it runs on (forked children inherit it)."""


def made(db: Path) -> Store:
    """The test's store: the SQLite file `db`, or the PostgreSQL schema of `MODE`."""
    if MODE["url"]:
        return open_store(MODE["url"])
    return SQLiteStore(db, durability=MODE["durability"])  # type: ignore[arg-type]


def agent(db: Path, log: Path) -> h.Agent:
    @h.tool
    async def append(line: str) -> str:
        """Append a line to the log."""
        with log.open("a") as file:
            file.write(line + "\n")
        # Long enough that the run, not the process starting, fills most of its length.
        await asyncio.sleep(0.04)
        return f"appended {line}"

    steps = [
        turn("", {"name": "append", "args": {"line": f"L{i}"}, "id": f"c{i}"}) for i in range(CALLS)
    ]
    model = ScriptedModel([*steps, reply("all appended")], by_history=True)
    return h.AgentBuilder().model(model).tools(append).store(made(db)).build()


def fork(work: Any) -> int:
    """Run `work()` in a forked process with a short lease; its pid."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            os.environ.pop("HOOKAGENT_WORKER", None)
            os.environ["HOOKAGENT_LEASE_SECONDS"] = str(LEASE)
            asyncio.run(work())
            code = 0
        finally:
            os._exit(code)
    return pid


def wait(pid: int) -> int:
    _, status = os.waitpid(pid, 0)
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def first(db: Path, log: Path, outcome: Path) -> Any:
    async def work() -> None:
        try:
            result = await agent(db, log).run("go", session=db.parent.name)
            outcome.write_text(f"ended {result.status}")
        except h.LeaseLost as exc:
            outcome.write_text(f"lost {exc.holder}")

    return work


def second(db: Path, log: Path, outcome: Path) -> Any:
    async def work() -> None:
        try:
            result = await agent(db, log).resume(db.parent.name)
            outcome.write_text(f"took over, {result.status}")
        except h.StoreError as exc:  # nothing to take over (yet, or any more), or locked
            outcome.write_text(f"refused: {exc}")

    return work


def report(db: Path, out: Path) -> Any:
    async def work() -> None:
        store = made(db)
        await store.open()
        try:
            detail = await sessions.inspect(store, db.parent.name)
        finally:
            await store.close()
        doubts = [
            e["call_id"]
            for step in detail.steps
            for e in step["executions"]
            if isinstance(data := e["result"].get("data"), dict) and data.get("state") == "in_doubt"
        ]
        out.write_text(json.dumps({"status": detail.session.status, "doubts": doubts}))

    return work


def run_length(folder: Path) -> float:
    """Seconds one run takes here, unfrozen."""
    started = time.monotonic()
    code = wait(fork(first(folder / "s.db", folder / "log", folder / "a")))
    assert code == 0 and (folder / "a").read_text() == "ended completed"
    return time.monotonic() - started


def trial(folder: Path, delay: float) -> dict[str, Any]:
    db, log = folder / "s.db", folder / "log"
    a_pid = fork(first(db, log, folder / "a"))
    time.sleep(delay)
    os.kill(a_pid, signal.SIGSTOP)
    try:
        time.sleep(LEASE + 0.2)  # its lease runs out while it is frozen
        b_pid = fork(second(db, log, folder / "b"))
        assert wait(b_pid) == 0
    finally:
        os.kill(a_pid, signal.SIGCONT)
    assert wait(a_pid) == 0
    assert wait(fork(report(db, folder / "report"))) == 0
    return {
        "delay": round(delay, 3),
        "a": (folder / "a").read_text(),
        "b": (folder / "b").read_text(),
        "b_pid": b_pid,
        **json.loads((folder / "report").read_text()),
        "lines": log.read_text().split() if log.exists() else [],
    }


def freezes(tmp_path: Path) -> None:
    """TRIALS runs, each frozen at a random moment and taken over: every effect once, or
    reported in doubt."""
    (tmp_path / "calibrate").mkdir()
    length = run_length(tmp_path / "calibrate")
    rng = random.Random(SEED)
    taken_over = 0
    for n in range(TRIALS):
        folder = tmp_path / f"t{n}"
        folder.mkdir()
        got = trial(folder, rng.uniform(0.0, length * 0.8))  # mostly before its end
        print(f"seed {SEED} trial {n}: {got}")
        assert got["status"] == "completed", got
        for i in range(CALLS):
            seen = got["lines"].count(f"L{i}")
            assert seen <= 1 if f"c{i}" in got["doubts"] else seen == 1, got
        if got["b"].startswith("took over"):
            taken_over += 1
            assert got["b"] == "took over, completed", got
            # Frozen before its end: it stops, naming the process that took the run over.
            assert got["a"].startswith("lost ") and f":{got['b_pid']}:" in got["a"], got
        else:
            assert got["a"] == "ended completed", got
    assert taken_over >= TRIALS // 3, f"only {taken_over} of {TRIALS} trials took a run over"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.parametrize("durability", ["process", "power"])
def test_a_run_frozen_anywhere_and_taken_over_repeats_no_effect(
    tmp_path: Path, durability: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(MODE, "durability", durability)
    freezes(tmp_path)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.postgres
def test_a_run_frozen_anywhere_on_postgresql_repeats_no_effect(
    tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(MODE, "url", postgres_url)
    freezes(tmp_path)
