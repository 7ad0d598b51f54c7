"""The body of each `SQLiteStore` operation: synchronous, on a connection already inside the
transaction `SQLiteStore` opened for it (and commits or rolls back after).

`where` is the store's URL, as errors name it."""

from __future__ import annotations

import sqlite3
from typing import Final

from hookagent._errors import StoreError
from hookagent.store import _columns as columns
from hookagent.store._memory import refused
from hookagent.store._records import (
    Flush,
    JournalEntry,
    QuestionRecord,
    RunRecord,
    SessionRecord,
)
from hookagent.store._sqlite_sql import SQL, SQLiteRows

__all__ = [
    "answer",
    "approvals",
    "claim",
    "create_run",
    "create_session",
    "flush",
    "load",
    "questions",
    "release",
    "renew",
    "rows",
    "run",
    "runs",
    "session",
    "sessions",
]


# -- sessions -----------------------------------------------------------------------------
def create_session(conn: sqlite3.Connection, session: SessionRecord, where: str) -> None:
    if conn.execute(SQL.SESSION_EXISTS, (session.id,)).fetchone():
        raise StoreError(f"session {session.id!r} exists already (store {where})")
    if session.name is not None and conn.execute(SQL.NAME_TAKEN, (session.name,)).fetchone():
        raise StoreError(f"a session named {session.name!r} exists already ({where})")
    conn.execute(SQL.INSERT_SESSION, columns.values(session, columns.SESSION_FIELDS))


def session(conn: sqlite3.Connection, key: str) -> SessionRecord | None:
    """By id, or else by name: the id wins."""
    for sql in (SQL.SESSION_BY_ID, SQL.SESSION_BY_NAME):
        row = conn.execute(sql, (key,)).fetchone()
        if row is not None:
            return columns.session_record(row)
    return None


def sessions(conn: sqlite3.Connection, limit: int, offset: int) -> list[SessionRecord]:
    return [columns.session_record(row) for row in conn.execute(SQL.SESSIONS, (limit, offset))]


def runs(conn: sqlite3.Connection, session_id: str, where: str) -> list[RunRecord]:
    return [columns.run_record(row, where) for row in conn.execute(SQL.RUNS, (session_id,))]


# -- runs ---------------------------------------------------------------------------------
def create_run(conn: sqlite3.Connection, run: RunRecord, where: str) -> None:
    found = conn.execute(SQL.SESSION_TITLE, (run.session_id,)).fetchone()
    if found is None:
        raise StoreError(f"no session {run.session_id!r} for run {run.id!r} ({where})")
    if conn.execute(SQL.RUN_EXISTS, (run.id,)).fetchone():
        raise StoreError(f"run {run.id!r} exists already ({where})")
    conn.execute(SQL.INSERT_RUN, columns.run_values(run))
    title = found[0] if found[0] or not run.prompt else run.prompt[:80]
    conn.execute(SQL.HEAD, (run.id, run.status, run.updated_at, title, run.session_id))


def run(conn: sqlite3.Connection, run_id: str, where: str) -> RunRecord | None:
    row = conn.execute(SQL.RUN, (run_id,)).fetchone()
    return None if row is None else columns.run_record(row, where)


def load(conn: sqlite3.Connection, run_id: str, where: str) -> SQLiteRows | None:
    """The run and the rows it resumes from: those its checkpoint counts, and the journal
    and tool calls since."""
    row = conn.execute(SQL.RUN, (run_id,)).fetchone()
    if row is None:
        return None
    found = columns.run_record(row, where)
    point = found.checkpoint
    journal = conn.execute(SQL.JOURNAL, (run_id, point.segment if point else 0))
    calls = conn.execute(SQL.CALLS, (run_id,))
    return SQLiteRows(
        run=found,
        messages=_rows(conn, "messages", run_id, point.messages if point else 0, where),
        steps=_rows(conn, "steps", run_id, point.steps if point else 0, where),
        decisions=_rows(conn, "decisions", run_id, point.decisions if point else 0, where),
        journal=[
            JournalEntry(segment=segment, key=key, kind=kind, data=data)
            for segment, key, kind, data in journal
        ],
        calls=[columns.call_record(row) for row in calls],
    )


def rows(conn: sqlite3.Connection, run_id: str, where: str) -> SQLiteRows | None:
    """The run and all its messages, steps, decisions and tool calls."""
    row = conn.execute(SQL.RUN, (run_id,)).fetchone()
    if row is None:
        return None
    every = {
        table: [r[0] for r in conn.execute(SQL.ALL_ROWS.format(table=table), (run_id,))]
        for table in ("messages", "steps", "decisions")
    }
    return SQLiteRows(
        run=columns.run_record(row, where),
        messages=every["messages"],
        steps=every["steps"],
        decisions=every["decisions"],
        calls=[columns.call_record(r) for r in conn.execute(SQL.CALLS, (run_id,))],
    )


def _rows(conn: sqlite3.Connection, table: str, run_id: str, count: int, where: str) -> list[str]:
    if count <= 0:
        return []
    found = [row[0] for row in conn.execute(SQL.ROWS.format(table=table), (run_id, count))]
    if len(found) != count:
        raise StoreError(
            f"{where}: run {run_id!r} is missing {table}: its checkpoint counts "
            f"{count}, the store holds {len(found)}"
        )
    return found


FRESH: Final = 1.0
"""Seconds a running run's `updated_at` (and its session's) may lag its last flush: within
them, a flush that leaves the status as it is writes no index (`SQL.REFRESH_RUN`)."""


def flush(conn: sqlite3.Connection, flush: Flush, where: str) -> None:
    """The run row first: its update is also the lease check (fencing)."""
    run_id = flush.run_id
    point = columns.checkpoint_json(flush.checkpoint) if flush.checkpoint is not None else None
    params = {
        "status": flush.status,
        "scalars": flush.scalars,
        "at": flush.at,
        "checkpoint": point,
        "until": flush.at + flush.lease if flush.worker is not None else 0.0,
        "run_id": run_id,
        "worker": flush.worker,
        "epoch": flush.epoch,
        "fresh": FRESH,
    }
    found = None
    if conn.execute(SQL.REFRESH_RUN, params).fetchone() is None:
        found = conn.execute(SQL.UPDATE_RUN, params).fetchone()
        if found is None:
            holder = conn.execute(SQL.LEASE_OWNER, (run_id,)).fetchone()
            if holder is None:
                raise StoreError(f"no run {run_id!r} to write to ({where})")
            raise refused(flush, holder[0], holder[1], where)
    if flush.checkpoint is not None:
        conn.execute(SQL.DROP_JOURNAL, (run_id, flush.checkpoint.segment))
    for table, rows in columns.appended(flush):
        conn.executemany(SQL.UPSERT[table], rows)
    if found is not None:  # the run's status or `updated_at` moved: so do its session's
        session_id, updated_at = found
        conn.execute(SQL.UPDATE_SESSION, (flush.status, updated_at, session_id, run_id))


# -- questions ----------------------------------------------------------------------------
def questions(conn: sqlite3.Connection, run_id: str, pending: bool) -> list[QuestionRecord]:
    sql = SQL.PENDING_QUESTIONS if pending else SQL.QUESTIONS
    return [columns.question_record(row) for row in conn.execute(sql, (run_id,))]


def answer(conn: sqlite3.Connection, question_id: str, answer: str, at: float) -> bool:
    return conn.execute(SQL.ANSWER, (answer, at, question_id)).rowcount == 1


def approvals(conn: sqlite3.Connection, session_id: str, fingerprint: str) -> list[QuestionRecord]:
    found = conn.execute(SQL.APPROVALS, (session_id, fingerprint))
    return [columns.question_record(row) for row in found]


# -- workers ------------------------------------------------------------------------------
def claim(
    conn: sqlite3.Connection,
    worker: str,
    now: float,
    lease: float,
    run_id: str | None,
    over_epoch: int | None,
    where: str,
) -> RunRecord | None:
    """The select and the update share the transaction's write lock (`BEGIN IMMEDIATE`):
    no other claim or flush comes between them."""
    sql = SQL.CLAIM if run_id is None else SQL.CLAIM_ONE
    args = {"worker": worker, "now": now, "run_id": run_id, "over": over_epoch}
    row = conn.execute(sql, args).fetchone()
    if row is None:
        return None
    taken = columns.run_record(row, where)
    taken.lease_owner, taken.lease_until = worker, now + lease
    (taken.lease_epoch,) = conn.execute(
        SQL.LEASE, (taken.lease_owner, taken.lease_until, taken.id)
    ).fetchone()
    return taken


def renew(
    conn: sqlite3.Connection, run_id: str, worker: str, epoch: int, now: float, lease: float
) -> bool:
    return conn.execute(SQL.RENEW, (now + lease, run_id, worker, epoch)).rowcount == 1


def release(conn: sqlite3.Connection, run_id: str, worker: str, epoch: int) -> None:
    conn.execute(SQL.RELEASE, (run_id, worker, epoch))
