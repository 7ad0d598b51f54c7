"""`SQLiteStore`: the default store, one SQLite file (`.hookagent/sessions.db`).

All database work runs on one dedicated thread that owns the store's only connection, and
every public method is a single hop to that thread running one transaction: a flush costs one
hop however many rows it writes (aiosqlite would pay a hop per statement). Writes take
SQLite's write lock up front (`BEGIN IMMEDIATE`), which makes `claim` exactly-once across the
processes sharing the file.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Final, TypeVar, final

from hookagent.errors import StoreError
from hookagent.store.memory import lease_lost
from hookagent.store.migrations.sqlite import LATEST, MIGRATIONS
from hookagent.store.records import (
    CallRecord,
    Checkpoint,
    Flush,
    JournalEntry,
    QuestionRecord,
    RunRecord,
    SessionRecord,
)

__all__ = ["SQLiteRows", "SQLiteStore"]

T = TypeVar("T")
Row = tuple[Any, ...]

_NOTADB: Final = 26  # SQLITE_NOTADB
_CORRUPT: Final = 11  # SQLITE_CORRUPT
_UNWRITABLE: Final = frozenset({3, 8, 14, 23})  # SQLITE_PERM, _READONLY, _CANTOPEN, _AUTH
_CHECKPOINT_FIELDS: Final = frozenset(f.name for f in fields(Checkpoint))

_SESSION_COLUMNS: Final = (
    "id, name, created_at, updated_at, head_run_id, forked_from, status, title"
)
_RUN_COLUMNS: Final = (
    "id, session_id, status, created_at, updated_at, parent_run_id, prompt, scalars, "
    "checkpoint, lease_owner, lease_until, policy_version"
)
_QUESTION_COLUMNS: Final = (
    "id, run_id, session_id, key, data, fingerprint, created_at, expires_at, answer, answered_at"
)


@final
class _SQL:
    """Statements used on the hot paths (tests check their query plans)."""

    SESSIONS: Final = (
        f"SELECT {_SESSION_COLUMNS} FROM sessions ORDER BY updated_at DESC, rowid LIMIT ? OFFSET ?"
    )
    RUN: Final = f"SELECT {_RUN_COLUMNS} FROM runs WHERE id = ?"
    ROWS: Final = "SELECT data FROM {table} WHERE run_id = ? AND idx < ? ORDER BY idx"
    """Messages, steps or decisions up to the checkpoint's count."""
    ALL_ROWS: Final = "SELECT data FROM {table} WHERE run_id = ? ORDER BY idx"
    JOURNAL: Final = (
        "SELECT segment, key, kind, data FROM journal "
        "WHERE run_id = ? AND segment >= ? ORDER BY rowid"
    )
    CALLS: Final = (
        "SELECT call_id, step, name, args, idempotency_key, state, result, updated_at "
        "FROM tool_calls WHERE run_id = ? ORDER BY rowid"
    )
    CLAIM: Final = (
        f"SELECT {_RUN_COLUMNS} FROM runs "
        "WHERE status IN ('queued', 'running', 'waiting') "
        "AND (lease_owner IS NULL OR lease_owner = :worker OR lease_until <= :now) "
        "AND (status != 'waiting' OR NOT EXISTS ("
        " SELECT 1 FROM questions q WHERE q.run_id = runs.id AND q.answer IS NULL"
        " AND (q.expires_at IS NULL OR q.expires_at > :now))) "
        "ORDER BY updated_at, rowid LIMIT 1"
    )
    CLAIM_ONE: Final = CLAIM.replace("ORDER BY", "AND id = :run_id ORDER BY")


@final
@dataclass(slots=True, kw_only=True)
class SQLiteRows:
    """A run's rows as `SQLiteStore.load` and `SQLiteStore.rows` return them (a `RunRows`)."""

    run: RunRecord
    messages: Sequence[str] = field(default_factory=list[str])
    steps: Sequence[str] = field(default_factory=list[str])
    decisions: Sequence[str] = field(default_factory=list[str])
    journal: Sequence[JournalEntry] = field(default_factory=list[JournalEntry])
    calls: Sequence[CallRecord] = field(default_factory=list[CallRecord])


@final
class SQLiteStore:
    """The store in one SQLite file, created (with its folder) on `open` if missing."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._url = os.fspath(path)
        self._path = Path(path)
        self._executor: ThreadPoolExecutor | None = None
        self._conn: sqlite3.Connection | None = None
        self._fast: sqlite3.Connection | None = None
        """A second connection, used on the event loop's own thread for flushes when the
        file is free: a flush is on the path of every step, and a hop to the store's
        thread costs ten times the transaction (GIL hand-offs). It never waits for a lock:
        when another process holds the file, the flush goes to the store's thread."""
        self._closed = False

    @property
    def url(self) -> str:
        return self._url

    def __repr__(self) -> str:
        return f"SQLiteStore({self._url!r})"

    # -- opening and closing --------------------------------------------------------------
    async def open(self) -> None:
        if self._closed:
            raise StoreError(f"{self._url}: the store was closed; open a new one")
        if self._executor is not None:
            return
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hookagent-sqlite")
        try:
            await asyncio.get_running_loop().run_in_executor(executor, self._open_sync)
        except BaseException:
            executor.shutdown(wait=False)
            raise
        self._executor = executor
        try:
            fast = sqlite3.connect(self._path, isolation_level=None, timeout=0)
            for pragma in ("busy_timeout = 0", "foreign_keys = ON", "synchronous = NORMAL"):
                fast.execute(f"PRAGMA {pragma}")
        except sqlite3.Error:
            return  # flushes take the store's thread, as every other call does
        self._fast = fast

    async def close(self) -> None:
        fast, self._fast = self._fast, None
        if fast is not None:
            with contextlib.suppress(sqlite3.Error):
                fast.close()
        executor, self._executor, self._closed = self._executor, None, True
        if executor is None:
            return
        try:
            await asyncio.get_running_loop().run_in_executor(executor, self._close_sync)
        finally:
            executor.shutdown(wait=True)

    def _open_sync(self) -> None:
        folder = self._path.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{self._url}: cannot create its folder {folder}: {exc}") from exc
        if self._path.is_dir():
            raise StoreError(f"{self._url}: is a folder, not a hookagent store")
        try:
            self._conn = sqlite3.connect(self._path, isolation_level=None, timeout=5.0)
        except sqlite3.Error as exc:
            raise self._fault("opening", exc) from exc
        try:
            self._prepare(self._conn)
        except BaseException:
            self._close_sync()
            raise

    def _prepare(self, conn: sqlite3.Connection) -> None:
        """Check the file before anything is written to it, then migrate it."""
        try:
            for pragma in ("busy_timeout = 5000", "foreign_keys = ON", "synchronous = NORMAL"):
                conn.execute(f"PRAGMA {pragma}")
            conn.execute("BEGIN")
            try:
                self._version(conn)
            finally:
                _rollback(conn)
            conn.execute("PRAGMA journal_mode = WAL").fetchone()
        except sqlite3.Error as exc:
            raise self._fault("opening", exc) from exc
        self._transaction("migrating the schema", self._migrate, write=True)

    def _version(self, conn: sqlite3.Connection) -> int:
        """The file's schema version (0 for an empty database); a `StoreError` if it is
        another program's database or a newer hookagent's store."""
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        if "schema_version" not in tables:
            if tables:
                raise StoreError(
                    f"{self._url}: not a hookagent store (a SQLite database of something "
                    "else, without a schema_version table); nothing was changed"
                )
            return 0
        version = int(conn.execute("SELECT MAX(version) FROM schema_version").fetchone()[0] or 0)
        if version > LATEST:
            raise StoreError(
                f"{self._url}: written by a newer hookagent (schema version {version}; this "
                f"hookagent knows versions up to {LATEST}); upgrade hookagent to open it. "
                "Nothing was changed"
            )
        return version

    def _migrate(self, conn: sqlite3.Connection) -> None:
        for version in range(self._version(conn) + 1, LATEST + 1):
            for statement in MIGRATIONS[version - 1]:
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
                (version, time.time()),
            )
        # A write that changes nothing, to find a read-only file now rather than at the first
        # flush: in WAL mode `BEGIN IMMEDIATE` succeeds on one, this does not.
        conn.execute("UPDATE schema_version SET version = version WHERE 0")

    def _close_sync(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except sqlite3.Error as exc:
                raise self._fault("closing", exc) from exc

    # -- one transaction on the store's thread --------------------------------------------
    async def _do(self, op: str, fn: Callable[[sqlite3.Connection], T], *, write: bool) -> T:
        executor = self._executor
        if executor is None:
            state = "was closed" if self._closed else "is not open (call open() first)"
            raise StoreError(f"{self._url}: cannot {op}: the store {state}")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(executor, self._transaction, op, fn, write)

    def _transaction(self, op: str, fn: Callable[[sqlite3.Connection], T], write: bool) -> T:
        conn = self._conn
        if conn is None:
            raise StoreError(f"{self._url}: cannot {op}: the store is not open")
        try:
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                result = fn(conn)
                conn.execute("COMMIT")
            finally:
                _rollback(conn)
        except sqlite3.Error as exc:
            raise self._fault(op, exc) from exc
        return result

    def _fault(self, op: str, exc: sqlite3.Error) -> StoreError:
        code = getattr(exc, "sqlite_errorcode", None)
        primary = code & 0xFF if isinstance(code, int) else None
        if primary == _NOTADB:
            return StoreError(
                f"{self._url}: not a hookagent store (not a SQLite database: {exc}); "
                "nothing was changed"
            )
        if primary in _UNWRITABLE:
            return StoreError(
                f"{self._url}: cannot be written ({op}: {exc}); check the permissions of "
                "the file and of its folder"
            )
        if primary == _CORRUPT:
            return StoreError(f"{self._url}: the database is corrupt ({op}: {exc})")
        return StoreError(f"{self._url}: {op} failed: {exc}")

    # -- sessions -------------------------------------------------------------------------
    async def create_session(self, session: SessionRecord) -> None:
        def insert(conn: sqlite3.Connection) -> None:
            if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session.id,)).fetchone():
                raise StoreError(f"session {session.id!r} exists already (store {self._url})")
            if (
                session.name is not None
                and conn.execute(
                    "SELECT 1 FROM sessions WHERE name = ?", (session.name,)
                ).fetchone()
            ):
                raise StoreError(f"a session named {session.name!r} exists already ({self._url})")
            conn.execute(
                f"INSERT INTO sessions ({_SESSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                _session_row(session),
            )

        await self._do("create a session", insert, write=True)

    async def session(self, key: str) -> SessionRecord | None:
        def select(conn: sqlite3.Connection) -> SessionRecord | None:
            for column in ("id", "name"):
                row = conn.execute(
                    f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE {column} = ?", (key,)
                ).fetchone()
                if row is not None:
                    return _session(row)
            return None

        return await self._do("read a session", select, write=False)

    async def sessions(self, *, limit: int = 100, offset: int = 0) -> list[SessionRecord]:
        def select(conn: sqlite3.Connection) -> list[SessionRecord]:
            return [_session(row) for row in conn.execute(_SQL.SESSIONS, (limit, offset))]

        return await self._do("list sessions", select, write=False)

    async def runs(self, session_id: str) -> list[RunRecord]:
        def select(conn: sqlite3.Connection) -> list[RunRecord]:
            rows = conn.execute(
                f"SELECT {_RUN_COLUMNS} FROM runs WHERE session_id = ? ORDER BY created_at, rowid",
                (session_id,),
            )
            return [self._run(row) for row in rows]

        return await self._do("list runs", select, write=False)

    # -- runs -----------------------------------------------------------------------------
    async def create_run(self, run: RunRecord) -> None:
        def insert(conn: sqlite3.Connection) -> None:
            found = conn.execute(
                "SELECT title FROM sessions WHERE id = ?", (run.session_id,)
            ).fetchone()
            if found is None:
                raise StoreError(f"no session {run.session_id!r} for run {run.id!r} ({self._url})")
            if conn.execute("SELECT 1 FROM runs WHERE id = ?", (run.id,)).fetchone():
                raise StoreError(f"run {run.id!r} exists already ({self._url})")
            conn.execute(
                f"INSERT INTO runs ({_RUN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                _run_row(run),
            )
            title = found[0] if found[0] or not run.prompt else run.prompt[:80]
            conn.execute(
                "UPDATE sessions SET head_run_id = ?, status = ?, updated_at = ?, title = ? "
                "WHERE id = ?",
                (run.id, run.status, run.updated_at, title, run.session_id),
            )

        await self._do("create a run", insert, write=True)

    async def run(self, run_id: str) -> RunRecord | None:
        def select(conn: sqlite3.Connection) -> RunRecord | None:
            row = conn.execute(_SQL.RUN, (run_id,)).fetchone()
            return None if row is None else self._run(row)

        return await self._do("read a run", select, write=False)

    async def load(self, run_id: str) -> SQLiteRows | None:
        def select(conn: sqlite3.Connection) -> SQLiteRows | None:
            row = conn.execute(_SQL.RUN, (run_id,)).fetchone()
            if row is None:
                return None
            run = self._run(row)
            point = run.checkpoint
            journal = conn.execute(_SQL.JOURNAL, (run_id, point.segment if point else 0))
            calls = conn.execute(_SQL.CALLS, (run_id,))
            return SQLiteRows(
                run=run,
                messages=self._rows(conn, "messages", run_id, point.messages if point else 0),
                steps=self._rows(conn, "steps", run_id, point.steps if point else 0),
                decisions=self._rows(conn, "decisions", run_id, point.decisions if point else 0),
                journal=[
                    JournalEntry(segment=segment, key=key, kind=kind, data=data)
                    for segment, key, kind, data in journal
                ],
                calls=[_call(row) for row in calls],
            )

        return await self._do("load a run", select, write=False)

    async def rows(self, run_id: str) -> SQLiteRows | None:
        def select(conn: sqlite3.Connection) -> SQLiteRows | None:
            row = conn.execute(_SQL.RUN, (run_id,)).fetchone()
            if row is None:
                return None
            every = {
                table: [r[0] for r in conn.execute(_SQL.ALL_ROWS.format(table=table), (run_id,))]
                for table in ("messages", "steps", "decisions")
            }
            return SQLiteRows(
                run=self._run(row),
                messages=every["messages"],
                steps=every["steps"],
                decisions=every["decisions"],
                calls=[_call(r) for r in conn.execute(_SQL.CALLS, (run_id,))],
            )

        return await self._do("read a run's rows", select, write=False)

    def _rows(self, conn: sqlite3.Connection, table: str, run_id: str, count: int) -> list[str]:
        if count <= 0:
            return []
        rows = [row[0] for row in conn.execute(_SQL.ROWS.format(table=table), (run_id, count))]
        if len(rows) != count:
            raise StoreError(
                f"{self._url}: run {run_id!r} is missing {table}: its checkpoint counts "
                f"{count}, the store holds {len(rows)}"
            )
        return rows

    async def flush(self, flush: Flush) -> None:
        fast = self._fast
        if fast is not None and self._flush_here(fast, flush):
            return
        await self._do("flush a run", lambda conn: self._flush(conn, flush), write=True)

    def _flush_here(self, conn: sqlite3.Connection, flush: Flush) -> bool:
        """Flush on this thread if the file's write lock is free at once; False if not."""
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if getattr(exc, "sqlite_errorcode", 0) & 0xFF == _BUSY:
                return False
            raise self._fault("flush a run", exc) from exc
        try:
            self._flush(conn, flush)
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise self._fault("flush a run", exc) from exc
        finally:
            _rollback(conn)
        return True

    def _flush(self, conn: sqlite3.Connection, flush: Flush) -> None:
        """The run row first: its update is also the lease check (fencing)."""
        run_id = flush.run_id
        point = _checkpoint_json(flush.checkpoint) if flush.checkpoint is not None else None
        found = conn.execute(
            "UPDATE runs SET status = ?, scalars = ?, updated_at = MAX(updated_at, ?), "
            "checkpoint = COALESCE(?, checkpoint) WHERE id = ? "
            "AND (? IS NULL OR lease_owner IS NULL OR lease_owner = ?) "
            "RETURNING session_id, updated_at",
            (flush.status, flush.scalars, flush.at, point, run_id, flush.worker, flush.worker),
        ).fetchone()
        if found is None:
            owner = conn.execute("SELECT lease_owner FROM runs WHERE id = ?", (run_id,)).fetchone()
            if owner is None:
                raise StoreError(f"no run {run_id!r} to write to ({self._url})")
            raise StoreError(lease_lost(run_id, flush.worker or "", owner[0], self._url))
        session_id, updated_at = found
        for table, rows in (
            ("messages", flush.messages),
            ("steps", flush.steps),
            ("decisions", flush.decisions),
        ):
            if rows:
                conn.executemany(
                    f"INSERT OR REPLACE INTO {table} (run_id, idx, data) VALUES (?, ?, ?)",
                    [(run_id, idx, data) for idx, data in rows],
                )
        if flush.checkpoint is not None:
            conn.execute(
                "DELETE FROM journal WHERE run_id = ? AND segment < ?",
                (run_id, flush.checkpoint.segment),
            )
        if flush.journal:
            # A retried entry keeps its row, so the journal stays in first-write order.
            conn.executemany(
                "INSERT INTO journal (run_id, segment, key, kind, data) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (run_id, segment, key) "
                "DO UPDATE SET kind = excluded.kind, data = excluded.data",
                [(run_id, e.segment, e.key, e.kind, e.data) for e in flush.journal],
            )
        if flush.calls:
            conn.executemany(
                "INSERT INTO tool_calls (run_id, call_id, step, name, args, idempotency_key, "
                "state, result, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (run_id, call_id) DO UPDATE SET step = excluded.step, "
                "name = excluded.name, args = excluded.args, "
                "idempotency_key = excluded.idempotency_key, state = excluded.state, "
                "result = excluded.result, updated_at = excluded.updated_at",
                [(run_id, *_call_row(call)) for call in flush.calls],
            )
        if flush.questions:
            conn.executemany(
                f"INSERT INTO questions ({_QUESTION_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
                [_question_row(q) for q in flush.questions],
            )
        if flush.checkpoint is not None or flush.status != "running":
            # Mid-segment barriers leave the session row alone: its status cannot change
            # there, and listing order need not follow every tool call.
            conn.execute(
                "UPDATE sessions SET status = ?, updated_at = ? WHERE id = ? AND head_run_id = ?",
                (flush.status, updated_at, session_id, run_id),
            )

    # -- questions ------------------------------------------------------------------------
    async def questions(self, run_id: str, *, pending: bool = True) -> list[QuestionRecord]:
        def select(conn: sqlite3.Connection) -> list[QuestionRecord]:
            rows = conn.execute(
                f"SELECT {_QUESTION_COLUMNS} FROM questions WHERE run_id = ? "
                f"{'AND answer IS NULL ' if pending else ''}ORDER BY created_at, rowid",
                (run_id,),
            )
            return [_question(row) for row in rows]

        return await self._do("list questions", select, write=False)

    async def answer(self, question_id: str, answer: str, at: float) -> bool:
        def update(conn: sqlite3.Connection) -> bool:
            cursor = conn.execute(
                "UPDATE questions SET answer = ?, answered_at = ? WHERE id = ? AND answer IS NULL",
                (answer, at, question_id),
            )
            return cursor.rowcount == 1

        return await self._do("answer a question", update, write=True)

    async def approvals(self, session_id: str, fingerprint: str) -> list[QuestionRecord]:
        def select(conn: sqlite3.Connection) -> list[QuestionRecord]:
            rows = conn.execute(
                f"SELECT {_QUESTION_COLUMNS} FROM questions "
                "WHERE session_id = ? AND fingerprint = ? AND answer IS NOT NULL "
                "AND answer != '' ORDER BY COALESCE(answered_at, 0) DESC, rowid",
                (session_id, fingerprint),
            )
            return [_question(row) for row in rows]

        return await self._do("list approvals", select, write=False)

    # -- workers --------------------------------------------------------------------------
    async def claim(
        self, worker: str, now: float, lease: float, run_id: str | None = None
    ) -> RunRecord | None:
        def take(conn: sqlite3.Connection) -> RunRecord | None:
            sql = _SQL.CLAIM if run_id is None else _SQL.CLAIM_ONE
            row = conn.execute(sql, {"worker": worker, "now": now, "run_id": run_id}).fetchone()
            if row is None:
                return None
            run = self._run(row)
            run.lease_owner, run.lease_until = worker, now + lease
            conn.execute(
                "UPDATE runs SET lease_owner = ?, lease_until = ? WHERE id = ?",
                (run.lease_owner, run.lease_until, run.id),
            )
            return run

        return await self._do("claim a run", take, write=True)

    async def renew(self, run_id: str, worker: str, now: float, lease: float) -> bool:
        def update(conn: sqlite3.Connection) -> bool:
            cursor = conn.execute(
                "UPDATE runs SET lease_until = ? WHERE id = ? AND lease_owner = ?",
                (now + lease, run_id, worker),
            )
            return cursor.rowcount == 1

        return await self._do("renew a lease", update, write=True)

    async def release(self, run_id: str, worker: str) -> None:
        def update(conn: sqlite3.Connection) -> None:
            conn.execute(
                "UPDATE runs SET lease_owner = NULL, lease_until = 0 "
                "WHERE id = ? AND lease_owner = ?",
                (run_id, worker),
            )

        await self._do("release a lease", update, write=True)

    # -- rows to records ------------------------------------------------------------------
    def _run(self, row: Row) -> RunRecord:
        (
            run_id,
            session_id,
            status,
            created_at,
            updated_at,
            parent_run_id,
            prompt,
            scalars,
            checkpoint,
            lease_owner,
            lease_until,
            policy_version,
        ) = row
        return RunRecord(
            id=run_id,
            session_id=session_id,
            status=status,
            created_at=created_at,
            updated_at=updated_at,
            parent_run_id=parent_run_id,
            prompt=prompt,
            scalars=scalars,
            checkpoint=None if checkpoint is None else self._checkpoint(run_id, checkpoint),
            lease_owner=lease_owner,
            lease_until=lease_until,
            policy_version=policy_version,
        )

    def _checkpoint(self, run_id: str, text: str) -> Checkpoint:
        try:
            data = json.loads(text)
            # Fields a newer hookagent added are dropped, so an older one can still resume.
            return Checkpoint(**{k: v for k, v in data.items() if k in _CHECKPOINT_FIELDS})
        except (ValueError, TypeError, AttributeError) as exc:
            raise StoreError(
                f"{self._url}: run {run_id!r} has an unreadable checkpoint {text!r}: {exc}"
            ) from exc


_BUSY: Final = 5
"""SQLITE_BUSY: another connection holds the write lock."""


def _rollback(conn: sqlite3.Connection) -> None:
    if not conn.in_transaction:
        return  # SQLite rolled it back already, on the error
    # If ROLLBACK fails there is nothing more to undo: the error that brought us here is
    # the one to report.
    with contextlib.suppress(sqlite3.Error):
        conn.execute("ROLLBACK")


def _checkpoint_json(point: Checkpoint) -> str:
    return json.dumps(asdict(point), separators=(",", ":"))


def _session_row(s: SessionRecord) -> Row:
    return (
        s.id,
        s.name,
        s.created_at,
        s.updated_at,
        s.head_run_id,
        s.forked_from,
        s.status,
        s.title,
    )


def _session(row: Row) -> SessionRecord:
    session_id, name, created_at, updated_at, head_run_id, forked_from, status, title = row
    return SessionRecord(
        id=session_id,
        name=name,
        created_at=created_at,
        updated_at=updated_at,
        head_run_id=head_run_id,
        forked_from=forked_from,
        status=status,
        title=title,
    )


def _run_row(r: RunRecord) -> Row:
    return (
        r.id,
        r.session_id,
        r.status,
        r.created_at,
        r.updated_at,
        r.parent_run_id,
        r.prompt,
        r.scalars,
        None if r.checkpoint is None else _checkpoint_json(r.checkpoint),
        r.lease_owner,
        r.lease_until,
        r.policy_version,
    )


def _call_row(c: CallRecord) -> Row:
    return (c.call_id, c.step, c.name, c.args, c.idempotency_key, c.state, c.result, c.updated_at)


def _call(row: Row) -> CallRecord:
    call_id, step, name, args, idempotency_key, state, result, updated_at = row
    return CallRecord(
        call_id=call_id,
        step=step,
        name=name,
        args=args,
        idempotency_key=idempotency_key,
        state=state,
        result=result,
        updated_at=updated_at,
    )


def _question_row(q: QuestionRecord) -> Row:
    return (
        q.id,
        q.run_id,
        q.session_id,
        q.key,
        q.data,
        q.fingerprint,
        q.created_at,
        q.expires_at,
        q.answer,
        q.answered_at,
    )


def _question(row: Row) -> QuestionRecord:
    (
        question_id,
        run_id,
        session_id,
        key,
        data,
        fingerprint,
        created_at,
        expires_at,
        answer,
        answered_at,
    ) = row
    return QuestionRecord(
        id=question_id,
        run_id=run_id,
        session_id=session_id,
        key=key,
        data=data,
        fingerprint=fingerprint,
        created_at=created_at,
        expires_at=expires_at,
        answer=answer,
        answered_at=answered_at,
    )
