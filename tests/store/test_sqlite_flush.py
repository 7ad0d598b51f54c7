"""The SQLite flush path: a barrier within a segment writes the run's page and its own rows,
no index of runs or sessions; `updated_at` lags a running run's flushes by under a second."""

from __future__ import annotations

import json
from dataclasses import asdict, fields
from pathlib import Path

import pytest

from hookagent._errors import LeaseLost
from hookagent.store import Checkpoint, Flush, RunRecord, SessionRecord
from hookagent.store._columns import checkpoint_json
from hookagent.store._sqlite import SQLiteStore
from hookagent.store._sqlite_ops import FRESH

FRAME = 4096 + 24
"""A page in the WAL, with its frame header."""


async def store_with_a_run(path: Path) -> SQLiteStore:
    store = SQLiteStore(path)
    await store.open()
    await store.create_session(SessionRecord(id="s1", name=None, created_at=1.0, updated_at=1.0))
    await store.create_run(
        RunRecord(id="r1", session_id="s1", status="queued", created_at=2.0, updated_at=2.0)
    )
    return store


def flush(at: float, *, status: str = "running", scalars: str = "{}", **rows: object) -> Flush:
    return Flush(run_id="r1", status=status, scalars=scalars, at=at, **rows)  # type: ignore[arg-type]


async def test_a_barrier_within_a_segment_writes_one_page_and_moves_no_index(
    tmp_path: Path,
) -> None:
    store = await store_with_a_run(tmp_path / "s.db")
    wal = tmp_path / "s.db-wal"
    try:
        point = Checkpoint(segment=1, messages=1, steps=0, decisions=0)
        await store.flush(flush(10.0, messages=[(0, '"m0"')], checkpoint=point))
        before = wal.stat().st_size
        await store.flush(flush(10.2, scalars='{"n": 2}'))
        assert wal.stat().st_size - before == FRAME  # the run's page, nothing else
        run = await store.run("r1")
        assert run is not None and (run.scalars, run.updated_at) == ('{"n": 2}', 10.0)
    finally:
        await store.close()


async def test_updated_at_lags_a_running_run_by_under_a_second_and_follows_its_status(
    tmp_path: Path,
) -> None:
    store = await store_with_a_run(tmp_path / "s.db")
    try:
        for at, status, expected in [
            (10.0, "running", 10.0),  # queued → running
            (10.0 + FRESH / 2, "running", 10.0),
            (10.0 + FRESH, "running", 10.0 + FRESH),
            (10.1 + FRESH, "waiting", 10.1 + FRESH),
            (9.0, "running", 10.1 + FRESH),  # a clock that went back moves nothing back
        ]:
            await store.flush(flush(at, status=status))
            run, session = await store.run("r1"), await store.session("s1")
            assert run is not None and session is not None
            assert (run.status, run.updated_at) == (status, expected), at
            assert (session.status, session.updated_at) == (status, expected), at
    finally:
        await store.close()


async def test_a_barrier_within_a_segment_is_fenced_too(tmp_path: Path) -> None:
    store = await store_with_a_run(tmp_path / "s.db")
    try:
        assert await store.claim("w1", now=10.0, lease=5.0) is not None
        await store.flush(
            Flush(run_id="r1", status="running", scalars="{}", at=10.0, worker="w1", epoch=1)
        )
        assert await store.claim("w2", now=16.0, lease=5.0) is not None
        await store.flush(
            Flush(run_id="r1", status="running", scalars="{}", at=16.1, worker="w2", epoch=2)
        )
        with pytest.raises(LeaseLost, match="w2 took the run over"):
            stale = Flush(
                run_id="r1", status="running", scalars='{"late": 1}', at=16.2, worker="w1", epoch=1
            )
            await store.flush(stale)
        run = await store.run("r1")
        assert run is not None and (run.scalars, run.lease_owner) == ("{}", "w2")
    finally:
        await store.close()


def test_a_checkpoint_is_written_with_every_field() -> None:
    point = Checkpoint(segment=3, messages=4, steps=2, decisions=1, scalars='{"é": "\\"x\\""}')
    assert {f.name for f in fields(Checkpoint)} == set(json.loads(checkpoint_json(point)))
    assert checkpoint_json(point) == json.dumps(asdict(point), separators=(",", ":"))
