"""What only `PostgresStore` has: a server, its schema versions under concurrent opens, its
failures, many workers racing for runs, and `open_store`. (The contract tests run on it too.)

Each test gets an empty schema of the test server (`postgres_url`, see conftest)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from hookagent._errors import StoreError
from hookagent.store import Checkpoint, Flush, JournalEntry, RunRecord, SessionRecord
from hookagent.store._open import open_store
from hookagent.store._postgres import PostgresStore
from hookagent.store.migrations._postgres import LATEST

pytestmark = pytest.mark.postgres


def session_record(sid: str = "s1") -> SessionRecord:
    return SessionRecord(id=sid, name=None, created_at=1.0, updated_at=1.0)


def run_record(rid: str, at: float = 2.0) -> RunRecord:
    return RunRecord(id=rid, session_id="s1", status="queued", created_at=at, updated_at=at)


async def opened(url: str) -> PostgresStore:
    store = PostgresStore(url)
    await store.open()
    return store


@pytest.fixture
async def admin(postgres_url: str) -> AsyncIterator[asyncpg.Connection]:
    """A plain connection to the test's schema, to look at or spoil the store's tables."""
    conn = await asyncpg.connect(postgres_url)
    try:
        yield conn
    finally:
        await conn.close()


def with_password(url: str, password: str) -> tuple[str, str]:
    """`url` with a password (the test server trusts any), and the password it has then."""
    parts = urlsplit(url)
    if parts.password or not parts.username:
        return url, parts.password or ""
    netloc = f"{parts.username}:{password}@{parts.netloc.rpartition('@')[2]}"
    return urlunsplit(parts._replace(netloc=netloc)), password


def closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


# -- the schema ---------------------------------------------------------------------------
async def test_migrations_are_applied_once_even_by_workers_opening_together(
    postgres_url: str, admin: asyncpg.Connection
) -> None:
    stores = [PostgresStore(postgres_url) for _ in range(6)]
    await asyncio.gather(*(store.open() for store in stores))
    try:
        await stores[0].create_session(session_record())
        assert (await stores[-1].session("s1")) == session_record()
    finally:
        await asyncio.gather(*(store.close() for store in stores))

    later = await opened(postgres_url)  # an up-to-date store: nothing to apply
    await later.close()
    versions = await admin.fetch("SELECT version FROM schema_version ORDER BY version")
    assert [row["version"] for row in versions] == list(range(1, LATEST + 1))


async def test_a_newer_schema_is_refused_naming_the_store_and_both_versions(
    postgres_url: str, admin: asyncpg.Connection
) -> None:
    store = await opened(postgres_url)
    await store.close()
    await admin.execute("INSERT INTO schema_version VALUES ($1, 0)", LATEST + 1)

    url, password = with_password(postgres_url, "hunter2-secret")
    newer = PostgresStore(url)
    with pytest.raises(StoreError, match="newer hookagent") as caught:
        await newer.open()
    message = str(caught.value)
    assert newer.url in message
    assert f"schema version {LATEST + 1}" in message
    assert f"versions up to {LATEST}" in message
    if password:
        assert password not in message
        assert password not in newer.url
    assert await admin.fetchval("SELECT MAX(version) FROM schema_version") == LATEST + 1


async def test_a_schema_with_tables_of_another_program_is_refused(
    postgres_url: str, admin: asyncpg.Connection
) -> None:
    await admin.execute("CREATE TABLE runs (id INTEGER)")
    with pytest.raises(StoreError, match="not a hookagent store"):
        await opened(postgres_url)
    assert await admin.fetchval("SELECT to_regclass('schema_version')") is None


async def test_a_store_that_cannot_be_written_is_refused_on_open(postgres_url: str) -> None:
    await (await opened(postgres_url)).close()
    with pytest.raises(StoreError, match="can be written"):
        await opened(f"{postgres_url}&default_transaction_read_only=on")


# -- failures -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "url",
    [
        "postgresql://me:s3cret-pw@127.0.0.1:{port}/db",
        "postgres://me@127.0.0.1:{port}/db?password=s3cret-pw",
    ],
)
async def test_an_unreachable_server_is_a_store_error_without_the_password(url: str) -> None:
    store = PostgresStore(url.format(port=closed_port()))
    assert "s3cret-pw" not in store.url
    assert "***" in store.url
    with pytest.raises(StoreError, match="cannot connect") as caught:
        await store.open()
    assert store.url in str(caught.value)
    assert "s3cret-pw" not in str(caught.value)


async def test_a_database_error_is_a_store_error_naming_the_operation(
    postgres_url: str, admin: asyncpg.Connection
) -> None:
    store = await opened(postgres_url)
    try:
        await admin.execute("DROP TABLE runs CASCADE")
        with pytest.raises(StoreError, match=r"read a run failed: .*runs"):
            await store.run("r1")
        with pytest.raises(StoreError, match="claim a run failed"):
            await store.claim("w1", now=1.0, lease=1.0)
    finally:
        await store.close()
    with pytest.raises(StoreError, match="was closed"):
        await store.sessions()


# -- the flush path -----------------------------------------------------------------------
async def test_a_flush_is_one_statement_without_a_transaction_around_it(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One round trip per barrier: every row of every table, the fence and the run's and
    session's update go in one statement (its own transaction)."""
    store = await opened(postgres_url)
    said: list[str] = []
    try:
        await store.create_session(session_record())
        await store.create_run(run_record("r1"))
        for name in ("execute", "executemany", "fetch", "fetchrow", "fetchval", "transaction"):
            method = getattr(asyncpg.Connection, name)

            def counted(
                self: object, *args: object, _name: str = name, _m: object = method, **kw: object
            ) -> object:
                said.append(_name)
                return _m(self, *args, **kw)  # type: ignore[operator]

            monkeypatch.setattr(asyncpg.Connection, name, counted)
        entry = JournalEntry(segment=1, key="k", kind="model", data="{}")
        await store.flush(
            Flush(
                run_id="r1",
                status="running",
                scalars="{}",
                at=3.0,
                messages=[(0, '"m0"'), (1, '"m1"')],
                steps=[(0, '"s0"')],
                decisions=[(0, '"d0"')],
                journal=[entry],
                checkpoint=Checkpoint(segment=1, messages=2, steps=1, decisions=1),
            )
        )
        assert said == ["fetchval"]  # nor a reset of the connection after it
        loaded = await store.load("r1")
        assert loaded is not None and list(loaded.messages) == ['"m0"', '"m1"']
        assert [e.key for e in loaded.journal] == ["k"]
    finally:
        monkeypatch.undo()
        await store.close()


async def test_flushes_of_one_run_at_once_keep_every_journal_entry_in_order(
    postgres_url: str,
) -> None:
    """The barriers of tool calls running side by side flush the same run at once: each
    entry is written once, after those of the flush before."""
    store = await opened(postgres_url)
    try:
        await store.create_session(session_record())
        await store.create_run(run_record("r1"))

        def flush(n: int) -> Flush:
            journal = [
                JournalEntry(segment=0, key=f"{n}.{i}", kind="tool", data="{}") for i in range(3)
            ]
            return Flush(run_id="r1", status="running", scalars="{}", at=3.0, journal=journal)

        await asyncio.gather(*(store.flush(flush(n)) for n in range(12)))
        loaded = await store.load("r1")
        assert loaded is not None
        keys = [e.key for e in loaded.journal]
        assert sorted(keys) == sorted(f"{n}.{i}" for n in range(12) for i in range(3))
        for n in range(12):  # each flush's entries together, in their order
            at = keys.index(f"{n}.0")
            assert keys[at : at + 3] == [f"{n}.0", f"{n}.1", f"{n}.2"]
    finally:
        await store.close()


# -- workers ------------------------------------------------------------------------------
async def test_eight_workers_claim_fifty_runs_each_exactly_once(postgres_url: str) -> None:
    setup = await opened(postgres_url)
    await setup.create_session(session_record())
    ids = [f"r{n:02}" for n in range(50)]
    for n, rid in enumerate(ids):
        await setup.create_run(run_record(rid, at=float(n)))
    await setup.close()

    async def worker(name: str) -> list[str]:
        store = await opened(postgres_url)  # a pool of its own, as another machine has
        taken: list[str] = []
        try:
            while (run := await store.claim(name, now=100.0, lease=600.0)) is not None:
                taken.append(run.id)
                await store.flush(
                    Flush(
                        run_id=run.id,
                        status="completed",
                        scalars="{}",
                        at=101.0,
                        worker=name,
                        epoch=run.lease_epoch,
                    )
                )
                await store.release(run.id, name, epoch=run.lease_epoch)
        finally:
            await store.close()
        return taken

    claims = await asyncio.gather(*(worker(f"w{n}") for n in range(8)))
    every = [rid for taken in claims for rid in taken]
    assert sorted(every) == ids  # each run once: none lost, none taken twice

    check = await opened(postgres_url)
    try:
        runs = await check.runs("s1")
        assert {(r.status, r.lease_until, r.lease_epoch) for r in runs} == {("completed", 0, 1)}
    finally:
        await check.close()


async def test_workers_racing_for_one_named_run_leave_it_to_one(postgres_url: str) -> None:
    stores = [await opened(postgres_url) for _ in range(8)]
    try:
        await stores[0].create_session(session_record())
        await stores[0].create_run(run_record("r1"))
        got = await asyncio.gather(
            *(
                store.claim_run("r1", f"w{n}", now=100.0, lease=60.0)
                for n, store in enumerate(stores)
            )
        )
        winners = [run.lease_owner for run in got if run is not None]
        assert len(winners) == 1
        run = await stores[0].run("r1")
        assert run is not None
        assert run.lease_owner == winners[0]
    finally:
        await asyncio.gather(*(store.close() for store in stores))


# -- open_store ---------------------------------------------------------------------------
@pytest.mark.parametrize("scheme", ["postgresql", "postgres"])
def test_open_store_returns_a_postgres_store(scheme: str) -> None:
    store = open_store(f"{scheme}://me:s3cret-pw@db.example:5432/hookagent")
    assert isinstance(store, PostgresStore)
    assert store.url == f"{scheme}://me:***@db.example:5432/hookagent"


async def test_open_store_opens_the_test_server(postgres_url: str) -> None:
    store = open_store(postgres_url)
    assert isinstance(store, PostgresStore)
    await store.open()
    try:
        await store.create_session(session_record())
        assert [s.id for s in await store.sessions()] == ["s1"]
    finally:
        await store.close()
