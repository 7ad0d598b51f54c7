"""What only `SQLiteStore` has: a file, its schema versions, its failures, several processes
sharing it, and `open_store`."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import sqlite3
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from hookagent._errors import ConfigError, StoreError
from hookagent.store import (
    Checkpoint,
    Flush,
    MemoryStore,
    QuestionRecord,
    RunRecord,
    SessionRecord,
)
from hookagent.store._open import open_store
from hookagent.store._sqlite import _SQL, SQLiteStore
from hookagent.store.migrations._sqlite import LATEST, MIGRATIONS


def session_record(sid: str, at: float = 1.0) -> SessionRecord:
    return SessionRecord(id=sid, name=None, created_at=at, updated_at=at)


def run_record(rid: str, sid: str, at: float = 2.0) -> RunRecord:
    return RunRecord(id=rid, session_id=sid, status="queued", created_at=at, updated_at=at)


async def opened(path: Path) -> SQLiteStore:
    store = SQLiteStore(path)
    await store.open()
    return store


async def filled(path: Path) -> None:
    """A store with one session and one queued run in it, closed."""
    store = await opened(path)
    try:
        await store.create_session(session_record("s1"))
        await store.create_run(run_record("r1", "s1"))
    finally:
        await store.close()


def listing(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


# -- the file -----------------------------------------------------------------------------
async def test_the_file_is_in_wal_mode(tmp_path: Path) -> None:
    await filled(tmp_path / "sessions.db")
    with sqlite3.connect(tmp_path / "sessions.db") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    conn.close()


async def test_the_default_store_lives_under_dot_hookagent(tmp_path: Path) -> None:
    store = open_store(project_dir=tmp_path)
    assert isinstance(store, SQLiteStore)
    assert store.url == str(tmp_path / ".hookagent" / "sessions.db")
    assert not (tmp_path / ".hookagent").exists()
    await store.open()
    try:
        await store.create_session(session_record("s1"))
    finally:
        await store.close()
    assert (tmp_path / ".hookagent" / "sessions.db").is_file()


async def test_a_store_of_the_first_schema_gains_lease_epochs_and_keeps_its_runs(
    tmp_path: Path,
) -> None:
    path = tmp_path / "sessions.db"
    with sqlite3.connect(path) as conn:
        for statement in MIGRATIONS[0]:
            conn.execute(statement)
        conn.execute("INSERT INTO schema_version VALUES (1, 0)")
        conn.execute("INSERT INTO sessions (id, created_at, updated_at) VALUES ('s1', 1, 1)")
        conn.execute(
            "INSERT INTO runs (id, session_id, status, lease_owner, lease_until, created_at, "
            "updated_at) VALUES ('r1', 's1', 'running', 'old-worker', 5, 2, 2)"
        )
    conn.close()
    store = await opened(path)
    try:
        run = await store.run("r1")
        assert run is not None
        assert (run.lease_owner, run.lease_until, run.lease_epoch) == ("old-worker", 5.0, 0)
        taken = await store.claim("w1", now=10.0, lease=30.0)
        assert taken is not None and taken.lease_epoch == 1
    finally:
        await store.close()


async def test_reopening_keeps_the_data_and_migrates_once(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "sessions.db"  # folders are made as needed
    await filled(path)
    with sqlite3.connect(path) as conn:
        versions = conn.execute("SELECT version, applied_at FROM schema_version").fetchall()
    conn.close()
    assert [v for v, _ in versions] == list(range(1, LATEST + 1))

    store = await opened(path)
    try:
        assert await store.run("r1") == run_record("r1", "s1")
        assert [s.id for s in await store.sessions()] == ["s1"]
    finally:
        await store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT version, applied_at FROM schema_version").fetchall() == (
            versions
        )
    conn.close()


async def test_a_store_from_a_newer_hookagent_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    await filled(path)
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO schema_version VALUES (?, 0)", (LATEST + 1,))
    conn.close()
    before = listing(tmp_path)

    store = SQLiteStore(path)
    with pytest.raises(StoreError) as caught:
        await store.open()
    message = str(caught.value)
    assert str(path) in message
    assert f"schema version {LATEST + 1}" in message
    assert f"up to {LATEST}" in message
    assert listing(tmp_path) == before
    with pytest.raises(StoreError, match="not open"):
        await store.session("s1")


async def test_a_file_that_is_not_a_database_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    path.write_bytes(b"not SQLite at all\n" + os.urandom(4096))
    before = listing(tmp_path)
    with pytest.raises(StoreError, match="not a hookagent store") as caught:
        await SQLiteStore(path).open()
    assert str(path) in str(caught.value)
    assert "not a SQLite database" in str(caught.value)
    assert listing(tmp_path) == before


async def test_another_programs_database_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE notes (body TEXT)")
    conn.close()
    before = listing(tmp_path)
    with pytest.raises(StoreError, match="not a hookagent store") as caught:
        await SQLiteStore(path).open()
    assert str(path) in str(caught.value)
    assert listing(tmp_path) == before


async def test_a_folder_is_not_a_store(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is a folder"):
        await SQLiteStore(tmp_path).open()


# -- files that cannot be written ---------------------------------------------------------
# Root ignores permission bits (its CAP_DAC_OVERRIDE), so chmod alone proves nothing when the
# tests run as root, as they do in many containers. The store is therefore opened in a forked
# child that, if root, first gives up the two capabilities that bypass permission checks: it
# then meets the permission bits as their owner, for real. (Becoming `nobody` instead would
# not do: SQLite resolves the path through folders such as tmp_path, 0700 and root's.)


def _open_without_privileges(folder: Path, name: str) -> str:
    """Open and write the store `folder/name` in a child process that cannot bypass file
    permissions; "" if that worked, else the error it met."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            os.close(read_end)
            try:
                if os.geteuid() == 0:
                    _drop_permission_override()
                asyncio.run(_open_and_write(str(folder / name)))
                outcome = "ok"
            except BaseException as exc:
                outcome = f"{type(exc).__name__}: {exc}"
            os.write(write_end, outcome.encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        outcome = pipe.read().decode()
    os.waitpid(pid, 0)
    if outcome.startswith("CapabilityError"):
        pytest.skip(f"running as root and cannot give up CAP_DAC_OVERRIDE: {outcome}")
    return "" if outcome == "ok" else outcome


class CapabilityError(OSError):
    pass


def _drop_permission_override() -> None:
    """Give up CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (Linux capset(2)), for this process."""
    import ctypes

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [(f, ctypes.c_uint32) for f in ("effective", "permitted", "inheritable")]

    if not sys.platform.startswith("linux"):
        raise CapabilityError("not Linux")
    libc = ctypes.CDLL(None, use_errno=True)
    header, data = Header(0x20080522, 0), (Data * 2)()  # _LINUX_CAPABILITY_VERSION_3
    keep = ~((1 << 1) | (1 << 2)) & 0xFFFFFFFF  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
    if libc.capget(ctypes.byref(header), data) != 0:
        raise CapabilityError(ctypes.get_errno(), "capget")
    data[0].effective &= keep
    data[0].permitted &= keep
    if libc.capset(ctypes.byref(header), data) != 0:
        raise CapabilityError(ctypes.get_errno(), "capset")


async def _open_and_write(name: str) -> None:
    store = SQLiteStore(name)
    await store.open()
    try:
        await store.create_session(session_record("s2"))
    finally:
        await store.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork and POSIX permissions")
@pytest.mark.parametrize(
    ("case", "folder_mode", "file_mode"),
    [
        ("read-only file", 0o777, 0o444),
        ("read-only folder", 0o555, 0o666),
        ("new file in a read-only folder", 0o555, None),
    ],
    ids=["file", "folder", "new-file"],
)
def test_a_store_that_cannot_be_written_is_refused_on_open(
    tmp_path: Path, case: str, folder_mode: int, file_mode: int | None
) -> None:
    folder = tmp_path / "store"
    folder.mkdir()
    path = folder / "sessions.db"
    if file_mode is not None:
        asyncio.run(filled(path))
        path.chmod(file_mode)
    before = path.read_bytes() if path.exists() else None
    folder.chmod(folder_mode)
    try:
        outcome = _open_without_privileges(folder, "sessions.db")
    finally:
        folder.chmod(0o755)
    assert outcome.startswith(f"StoreError: {path}: cannot be written"), (case, outcome)
    assert "opening" in outcome or "migrating" in outcome  # found by open(), not later
    assert (path.read_bytes() if path.exists() else None) == before

    # The control: where it may write, the same child opens and writes a store.
    control = tmp_path / "control"
    control.mkdir()
    assert _open_without_privileges(control, "sessions.db") == ""


# -- several processes --------------------------------------------------------------------
def _race_worker(paths: list[str], worker: str, barrier: Any, results: Any) -> None:
    """Open each store, wait for the other worker, and claim at the same moment."""
    loop = asyncio.new_event_loop()
    try:
        for path in paths:
            store = SQLiteStore(path)
            loop.run_until_complete(store.open())
            barrier.wait(timeout=60)
            claimed = loop.run_until_complete(store.claim(worker, now=1000.0, lease=60.0))
            loop.run_until_complete(store.close())
            results.put((path, worker, claimed.id if claimed else None))
    finally:
        loop.close()


def test_two_processes_racing_for_a_run_claim_it_exactly_once(tmp_path: Path) -> None:
    rounds = 20
    paths = [str(tmp_path / f"race{n}.db") for n in range(rounds)]
    for path in paths:
        asyncio.run(filled(Path(path)))

    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    results = context.Queue()
    workers = [
        context.Process(target=_race_worker, args=(paths, name, barrier, results))
        for name in ("w1", "w2")
    ]
    for process in workers:
        process.start()
    got = [results.get(timeout=120) for _ in range(2 * rounds)]
    for process in workers:
        process.join(timeout=60)
        assert process.exitcode == 0

    wins: dict[str, list[str]] = {path: [] for path in paths}
    for path, worker, claimed in got:
        if claimed is not None:
            assert claimed == "r1"
            wins[path].append(worker)
    assert all(len(winners) == 1 for winners in wins.values()), wins
    for path, (winner,) in wins.items():
        with sqlite3.connect(path) as conn:
            assert conn.execute("SELECT lease_owner FROM runs").fetchall() == [(winner,)]
        conn.close()
    print(f"\nclaim race: w1 won {sum(w == ['w1'] for w in wins.values())} of {rounds}")


# -- size ---------------------------------------------------------------------------------
async def test_a_thousand_sessions_list_fast_and_a_run_loads_alone(tmp_path: Path) -> None:
    store = await opened(tmp_path / "sessions.db")
    try:
        for n in range(1000):
            sid, rid = f"s{n:04}", f"r{n:04}"
            await store.create_session(session_record(sid, at=float(n)))
            await store.create_run(run_record(rid, sid, at=float(n)))
            await store.flush(
                Flush(
                    run_id=rid,
                    status="completed",
                    scalars="{}",
                    at=float(n),
                    messages=[(i, f'"{rid}-m{i}"') for i in range(5)],
                    checkpoint=Checkpoint(segment=1, messages=5, steps=0, decisions=0),
                )
            )

        start = time.perf_counter()
        newest = await store.sessions(limit=100)
        listed = time.perf_counter() - start
        start = time.perf_counter()
        oldest = await store.sessions(limit=100, offset=900)
        listed_far = time.perf_counter() - start
        start = time.perf_counter()
        loaded = await store.load("r0500")
        load_time = time.perf_counter() - start
    finally:
        await store.close()

    print(
        f"\n1,000 sessions: sessions(limit=100) {listed * 1000:.2f} ms, "
        f"offset=900 {listed_far * 1000:.2f} ms, load {load_time * 1000:.2f} ms"
    )
    assert [s.id for s in newest] == [f"s{n:04}" for n in range(999, 899, -1)]
    assert [s.id for s in oldest] == [f"s{n:04}" for n in range(99, -1, -1)]
    assert listed < 1.0
    assert listed_far < 1.0
    assert loaded is not None
    assert list(loaded.messages) == [f'"r0500-m{i}"' for i in range(5)]


def test_listing_and_loading_read_indexes_not_tables(tmp_path: Path) -> None:
    """`sessions()` walks the updated_at index in order (no sort), and every query of `load`
    and `claim(run_id=…)` seeks the run's rows: their cost does not grow with other runs."""
    asyncio.run(filled(tmp_path / "sessions.db"))

    def plan(sql: str, args: object) -> str:
        with sqlite3.connect(tmp_path / "sessions.db") as conn:
            found = conn.execute(f"EXPLAIN QUERY PLAN {sql}", args).fetchall()
        conn.close()
        return " | ".join(row[3] for row in found)

    listing_plan = plan(_SQL.SESSIONS, (100, 0))
    assert "USING INDEX sessions_by_updated" in listing_plan
    assert "TEMP B-TREE" not in listing_plan
    by_run = [
        (_SQL.RUN, ("r1",)),
        (_SQL.ROWS.format(table="messages"), ("r1", 3)),
        (_SQL.ROWS.format(table="steps"), ("r1", 3)),
        (_SQL.ROWS.format(table="decisions"), ("r1", 3)),
        (_SQL.JOURNAL, ("r1", 0)),
        (_SQL.ALL_ROWS.format(table="messages"), ("r1",)),
        (_SQL.CALLS, ("r1",)),
        (_SQL.CLAIM_ONE, {"worker": "w", "now": 1.0, "run_id": "r1", "over": None}),
    ]
    for sql, args in by_run:
        query_plan = plan(sql, args)
        assert "SEARCH" in query_plan, (sql, query_plan)
        assert "SCAN" not in query_plan, (sql, query_plan)
    # The next runnable run: read from the index of runs not ended, in its order.
    claim_plan = plan(_SQL.CLAIM, {"worker": "w", "now": 1.0, "run_id": None, "over": None})
    assert "USING INDEX runs_active" in claim_plan, claim_plan
    assert "SCAN runs |" not in claim_plan + " |" and "TEMP B-TREE" not in claim_plan


# -- failures -----------------------------------------------------------------------------
async def test_a_store_that_is_closed_or_not_open_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    with pytest.raises(StoreError, match="not open"):
        await SQLiteStore(path).session("s1")

    store = await opened(path)
    assert [t.name for t in threading.enumerate() if t.name.startswith("hookagent-sqlite")]
    await store.close()
    await store.close()  # twice is fine
    assert not [t for t in threading.enumerate() if t.name.startswith("hookagent-sqlite")]
    with pytest.raises(StoreError, match="was closed") as caught:
        await store.session("s1")
    assert str(path) in str(caught.value)
    with pytest.raises(StoreError, match="closed"):
        await store.open()


async def test_a_database_error_is_a_store_error_naming_file_and_operation(
    tmp_path: Path,
) -> None:
    path = tmp_path / "sessions.db"
    store = await opened(path)
    try:
        with sqlite3.connect(path) as conn:
            conn.execute("DROP TABLE questions")
        conn.close()
        with pytest.raises(StoreError) as caught:
            await store.questions("r1")
    finally:
        await store.close()
    assert str(caught.value).startswith(f"{path}: list questions failed")
    assert "no such table" in str(caught.value)
    assert isinstance(caught.value.__cause__, sqlite3.Error)


async def test_a_failed_flush_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    await filled(path)
    store = await opened(path)
    stray = QuestionRecord(
        id="q1", run_id="r1", session_id="nope", key="k", data="{}", fingerprint=None,
        created_at=1.0,
    )  # fmt: skip
    try:
        with pytest.raises(StoreError, match="flush a run"):
            await store.flush(
                Flush(
                    run_id="r1",
                    status="running",
                    scalars='{"n": 1}',
                    at=5.0,
                    messages=[(0, '"m0"')],
                    checkpoint=Checkpoint(segment=1, messages=1, steps=0, decisions=0),
                    questions=[stray],  # its session does not exist
                )
            )
        assert await store.run("r1") == run_record("r1", "s1")
        loaded = await store.load("r1")
        assert loaded is not None
        assert list(loaded.messages) == []
        assert await store.questions("r1") == []
    finally:
        await store.close()


# -- open_store ---------------------------------------------------------------------------
def test_open_store_memory() -> None:
    assert isinstance(open_store("memory:"), MemoryStore)


def test_open_store_paths(tmp_path: Path) -> None:
    cases = {
        str(tmp_path / "a.db"): tmp_path / "a.db",
        "rel/b.db": tmp_path / "rel" / "b.db",  # relative to the project
        f"sqlite:///{tmp_path}/c.db": tmp_path / "c.db",  # sqlite:////tmp/…: absolute
        "sqlite:///rel/d.db": tmp_path / "rel" / "d.db",
    }
    for url, path in cases.items():
        store = open_store(url, project_dir=tmp_path)
        assert isinstance(store, SQLiteStore), url
        assert store.url == str(path), url
    store = open_store(tmp_path / "e.db")
    assert isinstance(store, SQLiteStore)
    assert store.url == str(tmp_path / "e.db")


@pytest.mark.parametrize("url", ["mysql://me:secret@db/x", "sqlite://", "sqlite:x.db", " "])
def test_open_store_refuses_an_unknown_url(url: str) -> None:
    with pytest.raises(ConfigError) as caught:
        open_store(url)
    message = str(caught.value)
    assert "secret" not in message
    assert url.replace(":secret", ":***").strip() in message


@pytest.mark.parametrize("url", ["postgresql://me:secret@db/x", "postgres://db/x"])
def test_open_store_postgres_needs_its_extra(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "hookagent.store._postgres", None)  # as if not installed
    with pytest.raises(ConfigError, match=r"pip install 'hookagent\[postgres\]'") as caught:
        open_store(url)
    assert "secret" not in str(caught.value)
    assert url.replace(":secret", ":***") in str(caught.value)
