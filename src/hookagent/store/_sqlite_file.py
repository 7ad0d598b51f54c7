"""`SQLiteFile`: the mechanics under `SQLiteStore`, one SQLite file and its connections.

All database work runs on one dedicated thread that owns the store's only connection, and
every operation is a single hop to that thread running one transaction: a flush costs one
hop however many rows it writes (aiosqlite would pay a hop per statement). Writes take
SQLite's write lock up front (`BEGIN IMMEDIATE`), which makes `claim` exactly-once across the
processes sharing the file. Here too: checking and migrating the file on open, turning
SQLite's error codes into `StoreError`s that say what to do, and the flush path, where the
chosen durability is kept and flushes of several runs are grouped (`sqlite_group`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Final, Literal, Self, TypeVar

from hookagent._errors import ConfigError, StoreError
from hookagent.store._records import Flush
from hookagent.store._sqlite_group import Pending, Runs, write
from hookagent.store._sqlite_sql import SQL
from hookagent.store.migrations import known_version
from hookagent.store.migrations._sqlite import LATEST, MIGRATIONS

__all__ = ["CHECKPOINT_EVERY", "DURABILITY", "Durability", "SQLiteFile"]

Durability = Literal["process", "power"]
DURABILITY: Final[tuple[Durability, ...]] = ("process", "power")

T = TypeVar("T")

_NOTADB: Final = 26  # SQLITE_NOTADB
_CORRUPT: Final = 11  # SQLITE_CORRUPT
_UNWRITABLE: Final = frozenset({3, 8, 14, 23})  # SQLITE_PERM, _READONLY, _CANTOPEN, _AUTH
_BUSY: Final = 5
"""SQLITE_BUSY: another connection holds the write lock."""
CHECKPOINT_EVERY: Final = 256
"""Commits between two WAL checkpoints, which this store runs itself, on its own thread.
SQLite's automatic checkpoint would run inside a commit, on the event loop: every few
hundred flushes one of them copied the WAL back and synced the file, which was four fifths
of a durable step's cost. A checkpoint is not needed for durability (a commit is in the
WAL), only to keep the WAL short."""
_PRAGMAS: Final = (
    "foreign_keys = ON",
    "synchronous = NORMAL",
    "wal_autocheckpoint = 0",
)


class SQLiteFile:
    """One SQLite file, created (with its folder) on `open` if missing.

    `durability` says which failure a run survives with nothing committed lost and no
    effect run twice. `"process"` (the default): the process dying at any instruction
    (`kill -9`, a crash, an OOM kill); commits reach the operating system, not the disk
    (WAL, `synchronous=NORMAL`), so a power loss or kernel panic may lose the last ones.
    `"power"`: a power loss too; the WAL is synced to disk at each barrier that precedes an
    external effect (a tool's `started`), a pause and the end of a run, which makes every
    commit before it durable as well, and nowhere else."""

    def __init__(self, path: str | os.PathLike[str], *, durability: Durability = "process") -> None:
        if durability not in DURABILITY:
            raise ConfigError(
                "must be 'process' (survives the process dying) or 'power' (also a power loss)",
                key="durability",
                value=repr(durability),
            )
        self.durability: Final = durability
        self._url = os.fspath(path)
        self._path = Path(path)
        self._executor: ThreadPoolExecutor | None = None
        self._conn: sqlite3.Connection | None = None
        self._commits = 0
        """Commits since the last checkpoint was started."""
        self._checkpointing: asyncio.Future[None] | None = None
        self._fast: sqlite3.Connection | None = None
        """A second connection, used on the event loop's own thread for flushes when the
        file is free: a flush is on the path of every step, and a hop to the store's
        thread costs ten times the transaction (GIL hand-offs). It never waits for a lock:
        when another process holds the file, the flush goes to the store's thread."""
        self._closed = False
        self._opening = asyncio.Lock()
        self._runs = Runs()
        self._group: list[Pending] | None = None
        """Flushes waiting for the loop to go round, to be written together."""
        self._writing: set[asyncio.Task[None]] = set()

    @property
    def url(self) -> str:
        return self._url

    def reopened(self) -> Self:
        """The same file as a new store, not yet opened: its own connection and thread,
        for an event loop of another thread (lease renewal while a run holds its loop)."""
        return type(self)(self._path, durability=self.durability)

    # -- opening and closing --------------------------------------------------------------
    async def open(self) -> None:
        """Idempotent; agents sharing the store may open it at once (they take turns)."""
        async with self._opening:
            await self._open()

    async def _open(self) -> None:
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
            for pragma in ("busy_timeout = 0", *_PRAGMAS):
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
            for pragma in ("busy_timeout = 5000", *_PRAGMAS):
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
        tables = {row[0] for row in conn.execute(SQL.TABLES)}
        if "schema_version" not in tables:
            if tables:
                raise StoreError(
                    f"{self._url}: not a hookagent store (a SQLite database of something "
                    "else, without a schema_version table); nothing was changed"
                )
            return 0
        return known_version(self._url, int(conn.execute(SQL.VERSION).fetchone()[0] or 0), LATEST)

    def _migrate(self, conn: sqlite3.Connection) -> None:
        for version in range(self._version(conn) + 1, LATEST + 1):
            for statement in MIGRATIONS[version - 1]:
                conn.execute(statement)
            conn.execute(SQL.RECORD_VERSION, (version, time.time()))
        conn.execute(SQL.WRITABLE)  # finds a read-only file now, not at the first flush

    def _close_sync(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(sqlite3.Error):  # the WAL is as good; next time, then
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
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

    def _transaction(
        self, op: str, fn: Callable[[sqlite3.Connection], T], write: bool, synced: bool = False
    ) -> T:
        conn = self._conn
        if conn is None:
            raise StoreError(f"{self._url}: cannot {op}: the store is not open")
        try:
            with _syncing(conn, synced):
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

    # -- the flush path -------------------------------------------------------------------
    async def flush(self, flush: Flush) -> None:
        """Written at once when no other run of this process is flushing; otherwise with
        the flushes other runs ask for before the loop goes round (`sqlite_group`)."""
        pending = Pending(flush)
        if self._runs.others(flush):
            loop = asyncio.get_running_loop()
            done = pending.done = loop.create_future()
            if self._group is None:
                self._group = []
                loop.call_soon(self._write_group)
            self._group.append(pending)
            await done
        else:
            await self._write([pending])
        self._commits += 1
        if self._commits >= CHECKPOINT_EVERY and self._checkpointing is None:
            self._start_checkpoint()

    async def _write(self, group: list[Pending]) -> None:
        """One transaction: on the loop's thread if the file's write lock is free at once,
        else on the store's thread."""
        synced = any(self._synced(pending.flush) for pending in group)
        fast = self._fast
        if fast is not None and self._write_here(fast, group, synced):
            return
        executor = self._executor
        if executor is None:
            raise StoreError(f"{self._url}: cannot flush a run: the store is not open")
        await asyncio.get_running_loop().run_in_executor(
            executor,
            self._transaction,
            "flush a run",
            lambda conn: write(conn, group, self._url, self._fault),
            True,
            synced,
        )

    def _write_group(self) -> None:
        group, self._group = self._group or [], None
        task = asyncio.get_running_loop().create_task(self._settle(group))
        self._writing.add(task)
        task.add_done_callback(self._writing.discard)

    async def _settle(self, group: list[Pending]) -> None:
        """Write the group, then wake each flush's barrier with its own outcome."""
        failed: BaseException | None = None
        try:
            await self._write(group)
        except BaseException as exc:  # the transaction failed: every flush in it did
            failed = exc
        for pending in group:
            done, error = pending.done, pending.error or failed
            if done is None or done.done():
                continue  # a barrier that stopped waiting: its flush was written all the same
            if error is None:
                done.set_result(None)
            else:
                done.set_exception(error)

    def _start_checkpoint(self) -> None:
        """Copy the WAL back into the file on the store's thread, not awaited: the run goes
        on, and the next operation on that thread waits for it. PASSIVE never blocks a
        writer; what it could not copy is copied next time."""
        executor = self._executor
        if executor is None:
            return
        self._commits = 0
        future = asyncio.get_running_loop().run_in_executor(executor, self._checkpoint_sync)
        self._checkpointing = future
        future.add_done_callback(self._checkpointed)

    def _checkpoint_sync(self) -> None:
        conn = self._conn
        if conn is not None:
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def _checkpointed(self, future: asyncio.Future[None]) -> None:
        self._checkpointing = None
        if not future.cancelled() and future.exception() is not None:
            self._commits = CHECKPOINT_EVERY  # try again at the next flush

    def _synced(self, flush: Flush) -> bool:
        """Whether this flush must reach the disk: in `power` mode, one before an effect
        (a call `started`), a pause or an end."""
        if self.durability != "power":
            return False
        ending = flush.status != "running" or bool(flush.questions)
        return ending or any(call.state == "started" for call in flush.calls)

    def _write_here(self, conn: sqlite3.Connection, group: list[Pending], synced: bool) -> bool:
        """Write on this thread if the file's write lock is free at once; False if not."""
        try:
            with _syncing(conn, synced):
                try:
                    conn.execute("BEGIN IMMEDIATE")
                except sqlite3.OperationalError as exc:
                    if getattr(exc, "sqlite_errorcode", 0) & 0xFF == _BUSY:
                        return False
                    raise
                try:
                    write(conn, group, self._url, self._fault)
                    conn.execute("COMMIT")
                finally:
                    _rollback(conn)
        except sqlite3.Error as exc:
            raise self._fault("flush a run", exc) from exc
        return True


def _rollback(conn: sqlite3.Connection) -> None:
    if not conn.in_transaction:
        return  # SQLite rolled it back already, on the error
    # If ROLLBACK fails there is nothing more to undo: the error that brought us here is
    # the one to report.
    with contextlib.suppress(sqlite3.Error):
        conn.execute("ROLLBACK")


def _syncing(conn: sqlite3.Connection, synced: bool) -> contextlib.AbstractContextManager[None]:
    """Within: commits on `conn` are synced to disk (`synchronous=FULL`) if `synced`."""
    return _synced(conn) if synced else contextlib.nullcontext()


@contextlib.contextmanager
def _synced(conn: sqlite3.Connection) -> Iterator[None]:
    conn.execute("PRAGMA synchronous = FULL")
    try:
        yield
    finally:
        conn.execute("PRAGMA synchronous = NORMAL")
