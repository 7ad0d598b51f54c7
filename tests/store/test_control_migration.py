"""Schema version 4 (the tokens of `hookagent serve`) reached from a version 3 store on
SQLite and PostgreSQL, its data kept; the inbox and a token lookup read indexes."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import asyncpg
import pytest

from hookagent.store import _tokens as tokens
from hookagent.store._postgres import PostgresStore
from hookagent.store._sqlite import _CONTROL_SQL, SQLiteStore
from hookagent.store.migrations import _postgres as pg_migrations
from hookagent.store.migrations import _sqlite as sqlite_migrations

_ROWS = (
    "INSERT INTO sessions (id, created_at, updated_at) VALUES ('s1', 1, 1)",
    "INSERT INTO runs (id, session_id, status, created_at, updated_at) "
    "VALUES ('r1', 's1', 'waiting', 2, 2)",
    "INSERT INTO questions (id, run_id, session_id, key, data, created_at) "
    "VALUES ('q1', 'r1', 's1', 'k', '{}', 3)",
)


async def test_a_sqlite_store_of_version_3_gains_tokens_and_keeps_its_questions(
    tmp_path: Path,
) -> None:
    path = tmp_path / "sessions.db"
    with sqlite3.connect(path) as conn:
        for version, statements in enumerate(sqlite_migrations.MIGRATIONS[:3], 1):
            for statement in statements:
                conn.execute(statement)
            conn.execute("INSERT INTO schema_version VALUES (?, 0)", (version,))
        for statement in _ROWS:
            conn.execute(statement)
    conn.close()
    store = SQLiteStore(path)
    await store.open()
    try:
        assert [q.id for q in await store.open_questions()] == ["q1"]
        record, secret = await tokens.issue(store, "viewer")
        assert await tokens.verify(store, secret) == record
    finally:
        await store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT MAX(version) FROM schema_version").fetchone() == (4,)
    conn.close()


@pytest.mark.postgres
async def test_a_postgres_store_of_version_3_gains_tokens_and_keeps_its_questions(
    postgres_url: str,
) -> None:
    conn = await asyncpg.connect(postgres_url)
    try:
        for version, statements in enumerate(pg_migrations.MIGRATIONS[:3], 1):
            for statement in statements:
                await conn.execute(statement)
            await conn.execute("INSERT INTO schema_version VALUES ($1, $2)", version, time.time())
        for statement in _ROWS:
            await conn.execute(statement)
    finally:
        await conn.close()
    store = PostgresStore(postgres_url)
    await store.open()
    try:
        assert [q.id for q in await store.open_questions()] == ["q1"]
        record, secret = await tokens.issue(store, "admin", name="ops")
        assert await tokens.verify(store, secret) == record
        assert await tokens.verify(store, secret + "x") is None
    finally:
        await store.close()


async def test_the_inbox_and_a_token_lookup_read_indexes(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    store = SQLiteStore(path)
    await store.open()
    await store.close()
    with sqlite3.connect(path) as conn:
        inbox = " | ".join(
            r[3] for r in conn.execute(f"EXPLAIN QUERY PLAN {_CONTROL_SQL.open_questions}", (50, 0))
        )
        lookup = " | ".join(
            r[3] for r in conn.execute(f"EXPLAIN QUERY PLAN {_CONTROL_SQL.token}", ("d",))
        )
    conn.close()
    # from the waiting runs to their questions: no scan of every question ever asked
    assert "SEARCH runs USING INDEX runs_by_status" in inbox, inbox
    assert "SEARCH questions USING INDEX questions_by_run" in inbox, inbox
    assert "SCAN" not in inbox, inbox
    assert "SEARCH tokens" in lookup, lookup
