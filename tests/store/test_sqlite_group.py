"""Group commit in `SQLiteStore`: flushes that runs of one process ask for together are
written in one transaction, in the order asked, each barrier getting its own outcome; a
lone run's flushes are written at once, one transaction each."""

from __future__ import annotations

import asyncio
import struct
import sys
from pathlib import Path

import pytest

from hookagent._errors import LeaseLost, StoreError
from hookagent.store import Flush, JournalEntry, RunRecord, SessionRecord
from hookagent.store import _sqlite_group as sqlite_group
from hookagent.store._sqlite import SQLiteStore
from hookagent.store._sqlite_group import ACTIVE_FOR, Runs

PAGE = 4096


def commits(wal: Path, since: int) -> int:
    """Transactions committed to the WAL after byte `since` (frames that end one)."""
    data = wal.read_bytes()
    found, at = 0, max(since, 32)
    while at + 24 + PAGE <= len(data):
        _, size = struct.unpack(">II", data[at : at + 8])
        found += size != 0
        at += 24 + PAGE
    return found


async def store_with_runs(path: Path, *run_ids: str) -> SQLiteStore:
    store = SQLiteStore(path)
    await store.open()
    await store.create_session(SessionRecord(id="s1", name=None, created_at=1.0, updated_at=1.0))
    for run_id in run_ids:
        await store.create_run(
            RunRecord(id=run_id, session_id="s1", status="queued", created_at=2.0, updated_at=2.0)
        )
        await store.claim_run(run_id, "w", now=2.0, lease=60.0)
    return store


def flush(run_id: str, *keys: str, epoch: int = 1) -> Flush:
    journal = [JournalEntry(segment=0, key=key, kind="fold", data="{}") for key in keys]
    return Flush(
        run_id=run_id, status="running", scalars="{}", at=3.0, worker="w", epoch=epoch,
        journal=journal,
    )  # fmt: skip


async def test_flushes_of_runs_asked_for_together_are_one_transaction_in_order(
    tmp_path: Path,
) -> None:
    store = await store_with_runs(tmp_path / "s.db", "a", "b")
    wal = tmp_path / "s.db-wal"
    try:
        await store.flush(flush("a", "a0"))
        await store.flush(flush("b", "b0"))  # both running now: their flushes are grouped
        before = wal.stat().st_size
        await asyncio.gather(
            store.flush(flush("a", "a1")),
            store.flush(flush("b", "b1")),
            store.flush(flush("a", "a2")),
        )
        assert commits(wal, before) == 1
        # Once the barriers returned, another process opening the file finds every flush.
        keys = "SELECT group_concat(key) FROM (SELECT key FROM journal ORDER BY rowid)"
        read = (
            f"import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute({keys!r}).fetchone())"
        )
        reader = await asyncio.create_subprocess_exec(
            sys.executable, "-c", read, str(tmp_path / "s.db"), stdout=asyncio.subprocess.PIPE
        )
        out, _ = await reader.communicate()
        assert out.decode().strip() == "('a0,b0,a1,b1,a2',)"
    finally:
        await store.close()


async def test_a_refused_flush_in_a_group_fails_alone(tmp_path: Path) -> None:
    store = await store_with_runs(tmp_path / "s.db", "a", "b")
    try:
        await store.flush(flush("a", "a0"))
        await store.flush(flush("b", "b0"))
        stale, fine, unknown = await asyncio.gather(
            store.flush(flush("a", "a1", epoch=0)),  # not the epoch its writer claimed
            store.flush(flush("b", "b1")),
            store.flush(flush("nope", "n0")),
            return_exceptions=True,
        )
        assert isinstance(stale, LeaseLost) and fine is None
        assert isinstance(unknown, StoreError) and "no run 'nope'" in str(unknown)
        a, b = await store.load("a"), await store.load("b")
        assert a is not None and b is not None
        assert [e.key for e in a.journal] == ["a0"]
        assert [e.key for e in b.journal] == ["b0", "b1"]
    finally:
        await store.close()


async def test_a_lone_run_writes_each_flush_at_once(tmp_path: Path) -> None:
    store = await store_with_runs(tmp_path / "s.db", "a", "b")
    wal = tmp_path / "s.db-wal"
    try:
        await store.flush(replace_status(flush("b", "b0"), "completed"))  # b ended
        before = wal.stat().st_size
        await asyncio.gather(store.flush(flush("a", "a0")), store.flush(flush("a", "a1")))
        assert commits(wal, before) == 2
    finally:
        await store.close()


async def test_a_group_whose_transaction_fails_fails_every_barrier_in_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = await store_with_runs(tmp_path / "s.db", "a", "b")
    try:
        await store.flush(flush("a", "a0"))
        await store.flush(flush("b", "b0"))

        def broken(*args: object) -> None:
            raise StoreError("the disk is full")

        monkeypatch.setattr("hookagent.store._sqlite_file.write", broken)
        outcomes = await asyncio.gather(
            store.flush(flush("a", "a1")), store.flush(flush("b", "b1")), return_exceptions=True
        )
        assert [str(o) for o in outcomes] == ["the disk is full"] * 2
    finally:
        await store.close()


def test_runs_that_flush_are_those_running_that_flushed_lately(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [100.0]
    monkeypatch.setattr(sqlite_group.time, "monotonic", lambda: now[0])
    runs = Runs()
    assert not runs.others(flush("a"))
    assert runs.others(flush("b"))
    assert runs.others(flush("a"))
    assert runs.others(replace_status(flush("b"), "completed"))  # b's last, with a's
    assert not runs.others(flush("a"))  # b ended
    runs.others(flush("c"))
    now[0] += ACTIVE_FOR + 0.1  # c stopped flushing (crashed, or a long model call)
    assert not runs.others(flush("a"))


def replace_status(flush: Flush, status: str) -> Flush:
    flush.status = status  # type: ignore[assignment]
    return flush


async def test_runs_sharing_a_store_may_open_it_at_once(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    await asyncio.gather(*(store.open() for _ in range(4)))
    try:
        await store.create_session(
            SessionRecord(id="s1", name=None, created_at=1.0, updated_at=1.0)
        )
        assert [s.id for s in await store.sessions()] == ["s1"]
    finally:
        await store.close()
