"""`PostgresStore`: the store in a PostgreSQL database, for many workers on many machines.

It talks to the server through an asyncpg pool. Every public method is one statement or one
transaction: `flush` locks its run's row (`SELECT … FOR UPDATE`) before it writes, and `claim`
takes a run with `FOR UPDATE SKIP LOCKED`, so exactly one of several racing workers gets it.
The tables live in the first schema of the connection's `search_path` (`public` unless the
URL says otherwise, as in `postgresql://host/db?search_path=team_a`), so several stores can
share a database. Needs the `postgres` extra (`pip install 'hookagent[postgres]'`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, Final, TypeVar, final

import asyncpg

from hookagent._errors import StoreError
from hookagent.store._columns import (
    SESSION_FIELDS,
    call_record,
    question_record,
    run_record,
    run_values,
    session_record,
    values,
)
from hookagent.store._control import ControlSQL, Dialect, SQLControl
from hookagent.store._memory import refused
from hookagent.store._postgres_flush import flush_args
from hookagent.store._postgres_sql import SQL, Connection, Row, hide_password, secrets
from hookagent.store._records import (
    Flush,
    JournalEntry,
    QuestionRecord,
    RunRecord,
    SessionRecord,
    StoredRun,
)
from hookagent.store.migrations import known_version
from hookagent.store.migrations._postgres import LATEST, MIGRATIONS

__all__ = ["PostgresRows", "PostgresStore"]

T = TypeVar("T")

_FAULTS: Final = (
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    asyncpg.InternalClientError,
    OSError,  # refused, reset, unreachable; TimeoutError too
)
_TABLES: Final = (
    "sessions",
    "runs",
    "messages",
    "steps",
    "decisions",
    "journal",
    "tool_calls",
    "questions",
)
"""The store's tables: a schema holding one of them but no `schema_version` is another
program's."""


PostgresRows = StoredRun
"""The rows `PostgresStore.load` and `rows` return."""


@final
class PostgresStore(SQLControl):
    """The store in a PostgreSQL database; `open` connects and creates or migrates the
    tables."""

    _control = ControlSQL(Dialect(mark="$", order="seq", like="ILIKE"))

    def __init__(self, url: str, *, min_size: int = 1, max_size: int = 4) -> None:
        self._dsn = url
        self._url = hide_password(url)
        self._secrets = secrets(url)
        self._sizes = (min_size, max_size)
        self._pool: Any = None
        self._closed = False
        self._flushing: dict[str, _Turn] = {}
        """Per run with a flush under way, the lock its flushes take turns on."""

    @property
    def url(self) -> str:
        return self._url

    def reopened(self) -> PostgresStore:
        """The same database as a new store of one connection, not yet opened, for an event
        loop of another thread (lease renewal while a run holds its loop)."""
        return PostgresStore(self._dsn, min_size=1, max_size=1)

    def __repr__(self) -> str:
        return f"PostgresStore({self._url!r})"

    # -- opening and closing --------------------------------------------------------------
    async def open(self) -> None:
        if self._closed:
            raise StoreError(f"{self._url}: the store was closed; open a new one")
        if self._pool is not None:
            return
        min_size, max_size = self._sizes
        try:
            pool = await asyncpg.create_pool(
                self._dsn, min_size=min_size, max_size=max_size, reset=_as_it_is
            )
        except (*_FAULTS, ValueError) as exc:
            raise StoreError(f"{self._url}: cannot connect: {self._text(exc)}") from exc
        try:
            async with pool.acquire() as conn:
                await self._migrate(conn)
        except BaseException:
            pool.terminate()
            raise
        self._pool = pool

    async def close(self) -> None:
        pool, self._pool, self._closed = self._pool, None, True
        if pool is None:
            return
        try:
            await pool.close()
        except _FAULTS as exc:
            pool.terminate()
            raise self._fault("closing", exc) from exc

    async def _migrate(self, conn: Connection) -> None:
        """Apply the missing migrations, each in its own transaction under an advisory lock
        (workers opening the store together wait for each other), then check that the store
        can be written. A newer store is refused before anything is written."""
        op = "reading the schema version"
        try:
            version = await self._version(conn)
            for target in range(version + 1, LATEST + 1):
                op = f"migrating the schema to version {target}"
                async with conn.transaction():
                    await conn.execute(SQL.LOCK)
                    if await self._version(conn) >= target:
                        continue  # another worker got there first
                    for statement in MIGRATIONS[target - 1]:
                        await conn.execute(statement)
                    await conn.execute(SQL.RECORD_VERSION, target, time.time())
            op = "checking that the store can be written"
            await conn.execute(SQL.WRITABLE)
        except _FAULTS as exc:
            raise self._fault(op, exc) from exc

    async def _version(self, conn: Connection) -> int:
        """The schema's version (0 for none); a `StoreError` if the schema holds another
        program's tables of the same names, or a newer hookagent's store."""
        if not await conn.fetchval(SQL.HAS_VERSIONS):
            found: list[str] = list(await conn.fetchval(SQL.FOUND_TABLES, list(_TABLES)))
            if found:
                raise StoreError(
                    f"{self._url}: not a hookagent store (it has tables {', '.join(found)} but "
                    "no schema_version table); nothing was changed"
                )
            return 0
        return known_version(self._url, int(await conn.fetchval(SQL.VERSION)), LATEST)

    # -- one statement or one transaction -------------------------------------------------
    async def _do(
        self,
        op: str,
        fn: Callable[[Connection], Awaitable[T]],
        *,
        transaction: bool = True,
        readonly: bool = False,
    ) -> T:
        """`fn` on a pooled connection: in a transaction (a read-only one sees one snapshot),
        or, for a single statement, without one."""
        async with self._connection(op) as conn:
            if not transaction:
                return await fn(conn)
            isolation = "repeatable_read" if readonly else None
            async with conn.transaction(isolation=isolation, readonly=readonly):
                return await fn(conn)

    @asynccontextmanager
    async def _connection(self, op: str) -> AsyncIterator[Connection]:
        pool = self._pool
        if pool is None:
            state = "was closed" if self._closed else "is not open (call open() first)"
            raise StoreError(f"{self._url}: cannot {op}: the store {state}")
        try:
            async with pool.acquire() as conn:
                yield conn
        except _FAULTS as exc:
            raise self._fault(op, exc) from exc

    def _fault(self, op: str, exc: BaseException) -> StoreError:
        return StoreError(f"{self._url}: {op} failed: {self._text(exc)}")

    def _text(self, exc: BaseException) -> str:
        text = str(exc) or type(exc).__name__
        for secret in self._secrets:
            text = text.replace(secret, "***")
        return text

    # -- sessions -------------------------------------------------------------------------
    async def create_session(self, session: SessionRecord) -> None:
        async def insert(conn: Connection) -> None:
            try:
                await conn.execute(SQL.INSERT_SESSION, *values(session, SESSION_FIELDS))
            except asyncpg.UniqueViolationError as exc:
                if exc.constraint_name == "sessions_pkey":
                    raise StoreError(
                        f"session {session.id!r} exists already (store {self._url})"
                    ) from exc
                raise StoreError(
                    f"a session named {session.name!r} exists already ({self._url})"
                ) from exc

        await self._do("create a session", insert, transaction=False)

    async def session(self, key: str) -> SessionRecord | None:
        row = await self._fetchrow("read a session", SQL.SESSION, key)
        return None if row is None else session_record(row)

    async def sessions(self, *, limit: int = 100, offset: int = 0) -> list[SessionRecord]:
        rows = await self._fetch("list sessions", SQL.SESSIONS, limit, offset)
        return [session_record(row) for row in rows]

    async def runs(self, session_id: str) -> list[RunRecord]:
        return [
            run_record(row, self._url)
            for row in await self._fetch("list runs", SQL.RUNS, session_id)
        ]

    # -- runs -----------------------------------------------------------------------------
    async def create_run(self, run: RunRecord) -> None:
        async def insert(conn: Connection) -> None:
            found = await conn.fetchrow(SQL.LOCK_SESSION, run.session_id)
            if found is None:
                raise StoreError(f"no session {run.session_id!r} for run {run.id!r} ({self._url})")
            if await conn.execute(SQL.INSERT_RUN, *run_values(run)) == "INSERT 0 0":
                raise StoreError(f"run {run.id!r} exists already ({self._url})")
            title = found[0] if found[0] or not run.prompt else run.prompt[:80]
            await conn.execute(SQL.HEAD, run.id, run.status, run.updated_at, title, run.session_id)

        await self._do("create a run", insert)

    async def run(self, run_id: str) -> RunRecord | None:
        row = await self._fetchrow("read a run", SQL.RUN, run_id)
        return None if row is None else run_record(row, self._url)

    async def load(self, run_id: str) -> PostgresRows | None:
        async def select(conn: Connection) -> PostgresRows | None:
            row = await conn.fetchrow(SQL.RUN, run_id)
            if row is None:
                return None
            run = run_record(row, self._url)
            point = run.checkpoint
            journal = await conn.fetch(SQL.JOURNAL, run_id, point.segment if point else 0)
            return PostgresRows(
                run=run,
                messages=await self._rows(conn, "messages", run_id, point.messages if point else 0),
                steps=await self._rows(conn, "steps", run_id, point.steps if point else 0),
                decisions=await self._rows(
                    conn, "decisions", run_id, point.decisions if point else 0
                ),
                journal=[
                    JournalEntry(segment=segment, key=key, kind=kind, data=data)
                    for segment, key, kind, data in journal
                ],
                calls=[call_record(r) for r in await conn.fetch(SQL.CALLS, run_id)],
            )

        return await self._do("load a run", select, readonly=True)

    async def rows(self, run_id: str) -> PostgresRows | None:
        async def select(conn: Connection) -> PostgresRows | None:
            row = await conn.fetchrow(SQL.RUN, run_id)
            if row is None:
                return None
            every = {
                table: [r[0] for r in await conn.fetch(SQL.ALL_ROWS.format(table=table), run_id)]
                for table in ("messages", "steps", "decisions")
            }
            return PostgresRows(
                run=run_record(row, self._url),
                messages=every["messages"],
                steps=every["steps"],
                decisions=every["decisions"],
                calls=[call_record(r) for r in await conn.fetch(SQL.CALLS, run_id)],
            )

        return await self._do("read a run's rows", select, readonly=True)

    async def _rows(self, conn: Connection, table: str, run_id: str, count: int) -> list[str]:
        if count <= 0:
            return []
        rows = [row[0] for row in await conn.fetch(SQL.ROWS.format(table=table), run_id, count)]
        if len(rows) != count:
            raise StoreError(
                f"{self._url}: run {run_id!r} is missing {table}: its checkpoint counts "
                f"{count}, the store holds {len(rows)}"
            )
        return rows

    async def flush(self, flush: Flush) -> None:
        """One statement (`SQL.FLUSH`): one round trip, its own transaction. Flushes of one
        run (its calls' barriers, side by side) go one after the other: a statement reads
        the journal's last `seq` as it stood when it began, before the run's lock let it
        on."""
        args = flush_args(flush)
        turn = self._flushing.get(flush.run_id)
        if turn is None:
            turn = self._flushing[flush.run_id] = _Turn()
        turn.users += 1
        try:
            async with turn.lock:
                fenced = await self._do(
                    "flush a run", lambda conn: conn.fetchval(SQL.FLUSH, *args), transaction=False
                )
        finally:
            turn.users -= 1
            if not turn.users:
                del self._flushing[flush.run_id]
        if fenced:
            return
        found = await self._fetchrow("flush a run", SQL.LEASE_OWNER, flush.run_id)
        if found is None:
            raise StoreError(f"no run {flush.run_id!r} to write to ({self._url})")
        raise refused(flush, found[0], found[1], self._url)

    # -- questions ------------------------------------------------------------------------
    async def questions(self, run_id: str, *, pending: bool = True) -> list[QuestionRecord]:
        rows = await self._fetch("list questions", SQL.QUESTIONS, run_id, pending)
        return [question_record(row) for row in rows]

    async def answer(self, question_id: str, answer: str, at: float) -> bool:
        return await self._count("answer a question", SQL.ANSWER, question_id, answer, at) == 1

    async def approvals(self, session_id: str, fingerprint: str) -> list[QuestionRecord]:
        rows = await self._fetch("list approvals", SQL.APPROVALS, session_id, fingerprint)
        return [question_record(row) for row in rows]

    # -- workers --------------------------------------------------------------------------
    async def claim(self, worker: str, now: float, lease: float) -> RunRecord | None:
        row = await self._fetchrow("claim a run", SQL.CLAIM, worker, now, now + lease)
        return None if row is None else run_record(row, self._url)

    async def claim_run(
        self, run_id: str, worker: str, now: float, lease: float, *, over_epoch: int | None = None
    ) -> RunRecord | None:
        args = (worker, now, now + lease, run_id, over_epoch)
        row = await self._fetchrow("claim a run", SQL.CLAIM_ONE, *args)
        return None if row is None else run_record(row, self._url)

    async def renew(
        self, run_id: str, worker: str, now: float, lease: float, *, epoch: int
    ) -> bool:
        renewed = await self._count("renew a lease", SQL.RENEW, run_id, worker, now + lease, epoch)
        return renewed == 1

    async def release(self, run_id: str, worker: str, *, epoch: int) -> None:
        await self._count("release a lease", SQL.RELEASE, run_id, worker, epoch)

    # -- single statements ----------------------------------------------------------------
    async def _fetch(self, op: str, query: str, *args: object) -> list[Row]:
        async with self._connection(op) as conn:
            return await conn.fetch(query, *args)

    async def _fetchrow(self, op: str, query: str, *args: object) -> Row | None:
        async with self._connection(op) as conn:
            return await conn.fetchrow(query, *args)

    async def _count(self, op: str, query: str, *args: object) -> int:
        """How many rows the statement inserted, updated or deleted."""
        async with self._connection(op) as conn:
            status = await conn.execute(query, *args)
        return int(status.rsplit(" ", 1)[-1])


@final
class _Turn:
    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0


async def _as_it_is(conn: object) -> None:
    """A connection goes back to the pool as it is: the store sets no session state (no
    `SET`, `LISTEN` or session-level advisory lock), and asyncpg still rolls back a
    transaction left open. Its default reset (`RESET ALL` and more) would cost a round trip
    after every operation, doubling a flush's."""
