"""What `PostgresStore` says to the server: its statements (its schema is in
`migrations.postgres`, its rows become records in `columns`), the part of asyncpg it uses,
and the URL as it may be shown.

Tables without a natural order keep insertion order with `seq`."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Final, Protocol, final
from urllib.parse import unquote, urlsplit

from hookagent.store._columns import (
    CALL_COLUMNS,
    QUESTION_COLUMNS,
    RUN_COLUMNS,
    SESSION_COLUMNS,
)

__all__ = ["SQL", "Connection", "Row", "hide_password", "secrets"]

_RUNNABLE: Final = (
    "status IN ('queued', 'running', 'waiting') "
    "AND (lease_owner IS NULL OR lease_owner = $1 OR lease_until <= $2{over}) "
    "AND (status <> 'waiting' OR NOT EXISTS ("
    " SELECT 1 FROM questions q WHERE q.run_id = runs.id AND q.answer IS NULL"
    " AND (q.expires_at IS NULL OR q.expires_at > $2)))"
)
"""A run `claim` may take: $1 is the worker, $2 the time; `{over}` is empty, or the
condition that takes a run over from a holder known to be gone."""
_PASSWORD_IN_NETLOC: Final = re.compile(r"^([^:/]+://[^:@/]*:)[^/]*@")
"""Up to the last `@` of the host part: a password with an `@` in it is hidden whole."""
_PASSWORD_IN_QUERY: Final = re.compile(r"([?&]password=)[^&#]*", re.IGNORECASE)


_CALL_TYPES: Final = ("text", "int", "text", "text", "text", "text", "text", "float8")
"""The types of `CALL_COLUMNS`, in order."""
_QUESTION_TYPES: Final = (
    *("text", "text", "text", "text", "text", "text"),
    *("float8", "float8", "text", "float8"),
)
"""The types of `QUESTION_COLUMNS`, in order."""


def _unnest(first: int, types: Sequence[str]) -> str:
    """Rows from one array parameter per column, numbered from `first`."""
    return "unnest(" + ", ".join(f"${first + i}::{t}[]" for i, t in enumerate(types)) + ")"


@final
class SQL:
    # -- opening --------------------------------------------------------------------------
    LOCK: Final = (
        "SELECT pg_advisory_xact_lock(hashtextextended("
        "'hookagent.store:' || COALESCE(current_schema(), ''), 0))"
    )
    """Taken by each migration's transaction: one worker migrates a schema at a time."""
    HAS_VERSIONS: Final = (
        "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
        "ON n.oid = c.relnamespace WHERE n.nspname = current_schema() "
        "AND c.relname = 'schema_version')"
    )
    """Read from the catalog rather than with `to_regclass`: a backend's cache of names does
    not hear of a table another worker created while this one waited for the lock."""
    VERSION: Final = "SELECT COALESCE(MAX(version), 0) FROM schema_version"
    FOUND_TABLES: Final = (
        "SELECT COALESCE(array_agg(c.relname::text ORDER BY c.relname), '{}') "
        "FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = current_schema() AND c.relname = ANY($1::text[])"
    )
    RECORD_VERSION: Final = "INSERT INTO schema_version (version, applied_at) VALUES ($1, $2)"
    WRITABLE: Final = "UPDATE schema_version SET version = version WHERE false"
    """A write that changes nothing: privileges and read-only transactions are checked all
    the same, so a store that cannot be written is found on `open`."""

    # -- sessions -------------------------------------------------------------------------
    INSERT_SESSION: Final = (
        f"INSERT INTO sessions ({SESSION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
    )
    SESSION: Final = (
        f"SELECT {SESSION_COLUMNS} FROM sessions WHERE id = $1 OR name = $1 "
        "ORDER BY id = $1 DESC LIMIT 1"
    )
    """By id, or else by name: the id wins."""
    SESSIONS: Final = (
        f"SELECT {SESSION_COLUMNS} FROM sessions ORDER BY updated_at DESC, seq LIMIT $1 OFFSET $2"
    )
    RUNS: Final = f"SELECT {RUN_COLUMNS} FROM runs WHERE session_id = $1 ORDER BY created_at, seq"

    # -- runs -----------------------------------------------------------------------------
    LOCK_SESSION: Final = "SELECT title FROM sessions WHERE id = $1 FOR NO KEY UPDATE"
    INSERT_RUN: Final = (
        f"INSERT INTO runs ({RUN_COLUMNS}) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) "
        "ON CONFLICT (id) DO NOTHING"
    )
    HEAD: Final = (
        "UPDATE sessions SET head_run_id = $1, status = $2, updated_at = $3, title = $4 "
        "WHERE id = $5"
    )
    RUN: Final = f"SELECT {RUN_COLUMNS} FROM runs WHERE id = $1"
    ROWS: Final = "SELECT data FROM {table} WHERE run_id = $1 AND idx < $2 ORDER BY idx"
    """Messages, steps or decisions up to the checkpoint's count."""
    ALL_ROWS: Final = "SELECT data FROM {table} WHERE run_id = $1 ORDER BY idx"
    JOURNAL: Final = (
        "SELECT segment, key, kind, data FROM journal "
        "WHERE run_id = $1 AND segment >= $2 ORDER BY seq"
    )
    CALLS: Final = f"SELECT {CALL_COLUMNS} FROM tool_calls WHERE run_id = $1 ORDER BY seq"

    # -- flush ----------------------------------------------------------------------------
    FLUSH: Final = (
        "WITH fence AS (SELECT id FROM runs WHERE id = $1 AND lease_owner IS NOT DISTINCT "
        "FROM $2 AND lease_epoch = $3 FOR UPDATE), "
        "r AS (UPDATE runs SET status = $4, scalars = $5, updated_at = GREATEST(updated_at, $6), "
        "checkpoint = COALESCE($7, checkpoint), lease_until = GREATEST(lease_until, $8) "
        "WHERE id = (SELECT id FROM fence) RETURNING session_id, updated_at), "
        "s AS (UPDATE sessions SET status = $4, updated_at = r.updated_at FROM r "
        "WHERE sessions.id = r.session_id AND sessions.head_run_id = $1), "
        "dropped AS (DELETE FROM journal WHERE run_id = (SELECT id FROM fence) "
        "AND segment < $9), "
        + "".join(
            f"{table} AS (INSERT INTO {table} (run_id, idx, data) SELECT f.id, u.idx, u.data "
            f"FROM fence f, unnest(${first}::int[], ${first + 1}::text[]) AS u (idx, data) "
            "ON CONFLICT (run_id, idx) DO UPDATE SET data = EXCLUDED.data), "
            for table, first in (("messages", 10), ("steps", 12), ("decisions", 14))
        )
        + "journal AS (INSERT INTO journal (run_id, segment, seq, key, kind, data) "
        "SELECT f.id, u.segment, (SELECT COALESCE(MAX(seq), -1) FROM journal j "
        "WHERE j.run_id = $1) + u.n, u.key, u.kind, u.data FROM fence f, "
        "unnest($16::int[], $17::text[], $18::text[], $19::text[]) WITH ORDINALITY "
        "AS u (segment, key, kind, data, n) ON CONFLICT (run_id, segment, key) "
        "DO UPDATE SET kind = EXCLUDED.kind, data = EXCLUDED.data), "
        f"calls AS (INSERT INTO tool_calls (run_id, {CALL_COLUMNS}) SELECT f.id, u.* "
        f"FROM fence f, {_unnest(20, _CALL_TYPES)} AS u ON CONFLICT (run_id, call_id) "
        "DO UPDATE SET "
        + ", ".join(f"{name} = EXCLUDED.{name}" for name in CALL_COLUMNS.split(", ")[1:])
        + f"), asked AS (INSERT INTO questions ({QUESTION_COLUMNS}) SELECT u.* FROM fence f, "
        f"{_unnest(20 + len(_CALL_TYPES), _QUESTION_TYPES)} AS u ON CONFLICT (id) DO NOTHING) "
        "SELECT count(*) FROM fence"
    )
    """Everything a flush writes, in one statement: one round trip, one transaction. The
    fence locks the run's row if its holder and epoch are still the writer's (a `claim` of
    the run waits for the lock, or skips the run, until the flush commits, and the other
    way); every other part writes only through it, so a refused flush writes nothing and
    counts 0. $9 is the checkpoint's segment (journal entries before it go) or NULL; then
    one array per column of each table's new rows. A journal entry goes last (its `seq`);
    one written again keeps its place."""
    LEASE_OWNER: Final = "SELECT lease_owner, lease_epoch FROM runs WHERE id = $1"

    # -- questions ------------------------------------------------------------------------
    QUESTIONS: Final = (
        f"SELECT {QUESTION_COLUMNS} FROM questions WHERE run_id = $1 "
        "AND (NOT $2 OR answer IS NULL) ORDER BY created_at, seq"
    )
    ANSWER: Final = (
        "UPDATE questions SET answer = $2, answered_at = $3 WHERE id = $1 AND answer IS NULL"
    )
    APPROVALS: Final = (
        f"SELECT {QUESTION_COLUMNS} FROM questions "
        "WHERE session_id = $1 AND fingerprint = $2 AND answer IS NOT NULL AND answer <> '' "
        "ORDER BY COALESCE(answered_at, 0) DESC, seq"
    )

    # -- workers --------------------------------------------------------------------------
    CLAIM: Final = (
        "UPDATE runs SET lease_owner = $1, lease_until = $3, lease_epoch = lease_epoch + 1 "
        f"WHERE id = (SELECT id FROM runs WHERE {_RUNNABLE.format(over='')} "
        "ORDER BY updated_at, seq LIMIT 1 FOR UPDATE SKIP LOCKED) "
        f"RETURNING {RUN_COLUMNS}"
    )
    """Take the runnable run updated longest ago, in one statement (one transaction): a run
    another worker is taking is locked, so it is skipped rather than taken twice."""
    CLAIM_ONE: Final = (
        "UPDATE runs SET lease_owner = $1, lease_until = $3, lease_epoch = lease_epoch + 1 "
        "WHERE id = (SELECT id FROM runs WHERE id = $4 AND "
        f"{_RUNNABLE.format(over=' OR lease_epoch = $5')} FOR UPDATE) "
        f"RETURNING {RUN_COLUMNS}"
    )
    """Take the named run: a lock on it is waited for, and the run checked again after.
    $5 is the epoch of a holder known to be gone, or NULL."""
    RENEW: Final = (
        "UPDATE runs SET lease_until = $3 WHERE id = $1 AND lease_owner = $2 AND lease_epoch = $4"
    )
    RELEASE: Final = (
        "UPDATE runs SET lease_until = 0 WHERE id = $1 AND lease_owner = $2 AND lease_epoch = $3"
    )
    """The holder's name stays: a writer fenced off later is told who had the run."""


class Row(Protocol):
    """What the store uses of an `asyncpg.Record`: a value by position or by column."""

    def __getitem__(self, key: int | str, /) -> Any: ...
    def __iter__(self) -> Iterator[Any]: ...
    def keys(self) -> Iterable[str]: ...


class Connection(Protocol):
    """What the store uses of an `asyncpg.Connection`."""

    async def execute(self, query: str, *args: object) -> str: ...
    async def executemany(self, command: str, args: Iterable[Sequence[object]]) -> None: ...
    async def fetch(self, query: str, *args: object) -> list[Row]: ...
    async def fetchrow(self, query: str, *args: object) -> Row | None: ...
    async def fetchval(self, query: str, *args: object) -> Any: ...
    def transaction(
        self, *, isolation: str | None = None, readonly: bool = False
    ) -> AbstractAsyncContextManager[Any]: ...


def hide_password(url: str) -> str:
    """The URL with its password (in the user part or a `password=` parameter) as `***`."""
    return _PASSWORD_IN_QUERY.sub(r"\1***", _PASSWORD_IN_NETLOC.sub(r"\1***@", url))


def secrets(url: str) -> list[str]:
    """The URL's password as it may show up in an error message: as written, and decoded."""
    found: list[str] = []
    try:
        password = urlsplit(url).password
    except ValueError:
        password = None
    found.extend(p for p in (password, unquote(password or "")) if p)
    for match in _PASSWORD_IN_QUERY.finditer(url):
        value = url[match.end(1) : match.end()]
        found.extend((value, unquote(value)))
    # Too short a password would mangle the message more than it hides.
    return sorted({s for s in found if len(s) >= 3}, key=len, reverse=True)
