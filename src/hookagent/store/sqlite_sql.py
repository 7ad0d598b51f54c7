"""What `SQLiteStore` says to its file: its statements (its schema is in `migrations.sqlite`),
records as statement parameters, rows as records, and `SQLiteRows`.

Tables without a natural order keep insertion order with SQLite's `rowid`."""

from __future__ import annotations

import json
from dataclasses import asdict, fields
from typing import Any, Final, final

from hookagent.errors import StoreError
from hookagent.store.records import (
    CallRecord,
    Checkpoint,
    QuestionRecord,
    RunRecord,
    SessionRecord,
    StoredRun,
)

__all__ = [
    "QUESTION_COLUMNS",
    "RUN_COLUMNS",
    "SESSION_COLUMNS",
    "SQL",
    "Row",
    "SQLiteRows",
    "call_record",
    "call_values",
    "checkpoint_json",
    "question_record",
    "question_values",
    "run_record",
    "run_values",
    "session_record",
    "session_values",
]

Row = tuple[Any, ...]

SESSION_COLUMNS: Final = "id, name, created_at, updated_at, head_run_id, forked_from, status, title"
RUN_COLUMNS: Final = (
    "id, session_id, status, created_at, updated_at, parent_run_id, prompt, scalars, "
    "checkpoint, lease_owner, lease_until, policy_version, lease_epoch"
)
QUESTION_COLUMNS: Final = (
    "id, run_id, session_id, key, data, fingerprint, created_at, expires_at, answer, answered_at"
)

_CHECKPOINT_FIELDS: Final = frozenset(f.name for f in fields(Checkpoint))


@final
class SQL:
    """The store's statements; tests check the query plans of those on the hot paths
    (`SESSIONS`, `RUN`, `ROWS`, `ALL_ROWS`, `JOURNAL`, `CALLS`, `CLAIM_ONE`)."""

    # -- opening --------------------------------------------------------------------------
    TABLES: Final = "SELECT name FROM sqlite_master"
    VERSION: Final = "SELECT MAX(version) FROM schema_version"
    RECORD_VERSION: Final = "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)"
    WRITABLE: Final = "UPDATE schema_version SET version = version WHERE 0"
    """A write that changes nothing, to find a read-only file on `open` rather than at the
    first flush: in WAL mode `BEGIN IMMEDIATE` succeeds on one, this does not."""

    # -- sessions -------------------------------------------------------------------------
    SESSION_EXISTS: Final = "SELECT 1 FROM sessions WHERE id = ?"
    NAME_TAKEN: Final = "SELECT 1 FROM sessions WHERE name = ?"
    INSERT_SESSION: Final = (
        f"INSERT INTO sessions ({SESSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    )
    SESSION_BY_ID: Final = f"SELECT {SESSION_COLUMNS} FROM sessions WHERE id = ?"
    SESSION_BY_NAME: Final = f"SELECT {SESSION_COLUMNS} FROM sessions WHERE name = ?"
    SESSIONS: Final = (
        f"SELECT {SESSION_COLUMNS} FROM sessions ORDER BY updated_at DESC, rowid LIMIT ? OFFSET ?"
    )
    RUNS: Final = f"SELECT {RUN_COLUMNS} FROM runs WHERE session_id = ? ORDER BY created_at, rowid"

    # -- runs -----------------------------------------------------------------------------
    SESSION_TITLE: Final = "SELECT title FROM sessions WHERE id = ?"
    RUN_EXISTS: Final = "SELECT 1 FROM runs WHERE id = ?"
    INSERT_RUN: Final = (
        f"INSERT INTO runs ({RUN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    )
    HEAD: Final = (
        "UPDATE sessions SET head_run_id = ?, status = ?, updated_at = ?, title = ? WHERE id = ?"
    )
    RUN: Final = f"SELECT {RUN_COLUMNS} FROM runs WHERE id = ?"
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

    # -- flush ----------------------------------------------------------------------------
    UPDATE_RUN: Final = (
        "UPDATE runs SET status = :status, scalars = :scalars, "
        "updated_at = MAX(updated_at, :at), checkpoint = COALESCE(:checkpoint, checkpoint), "
        "lease_until = MAX(lease_until, :until) "
        "WHERE id = :run_id AND lease_owner IS :worker AND lease_epoch = :epoch "
        "RETURNING session_id, updated_at"
    )
    """The run row, written first: its update is also the lease check (fencing), and
    extends the lease (`:until` is 0 for a writer without one)."""
    LEASE_OWNER: Final = "SELECT lease_owner, lease_epoch FROM runs WHERE id = ?"
    UPSERT_ROW: Final = "INSERT OR REPLACE INTO {table} (run_id, idx, data) VALUES (?, ?, ?)"
    DROP_JOURNAL: Final = "DELETE FROM journal WHERE run_id = ? AND segment < ?"
    UPSERT_JOURNAL: Final = (
        "INSERT INTO journal (run_id, segment, key, kind, data) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT (run_id, segment, key) "
        "DO UPDATE SET kind = excluded.kind, data = excluded.data"
    )
    """A retried entry keeps its row, so the journal stays in first-write order."""
    UPSERT_CALL: Final = (
        "INSERT INTO tool_calls (run_id, call_id, step, name, args, idempotency_key, "
        "state, result, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (run_id, call_id) DO UPDATE SET step = excluded.step, "
        "name = excluded.name, args = excluded.args, "
        "idempotency_key = excluded.idempotency_key, state = excluded.state, "
        "result = excluded.result, updated_at = excluded.updated_at"
    )
    INSERT_QUESTION: Final = (
        f"INSERT INTO questions ({QUESTION_COLUMNS}) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING"
    )
    UPDATE_SESSION: Final = (
        "UPDATE sessions SET status = ?, updated_at = ? WHERE id = ? AND head_run_id = ?"
    )

    # -- questions ------------------------------------------------------------------------
    QUESTIONS: Final = (
        f"SELECT {QUESTION_COLUMNS} FROM questions WHERE run_id = ? ORDER BY created_at, rowid"
    )
    PENDING_QUESTIONS: Final = (
        f"SELECT {QUESTION_COLUMNS} FROM questions WHERE run_id = ? "
        "AND answer IS NULL ORDER BY created_at, rowid"
    )
    ANSWER: Final = (
        "UPDATE questions SET answer = ?, answered_at = ? WHERE id = ? AND answer IS NULL"
    )
    APPROVALS: Final = (
        f"SELECT {QUESTION_COLUMNS} FROM questions "
        "WHERE session_id = ? AND fingerprint = ? AND answer IS NOT NULL "
        "AND answer != '' ORDER BY COALESCE(answered_at, 0) DESC, rowid"
    )

    # -- workers --------------------------------------------------------------------------
    CLAIM: Final = (
        f"SELECT {RUN_COLUMNS} FROM runs INDEXED BY runs_active "
        "WHERE status IN ('queued', 'running', 'waiting') "
        "AND (lease_owner IS NULL OR lease_owner = :worker OR lease_until <= :now) "
        "AND (status != 'waiting' OR NOT EXISTS ("
        " SELECT 1 FROM questions q WHERE q.run_id = runs.id AND q.answer IS NULL"
        " AND (q.expires_at IS NULL OR q.expires_at > :now))) "
        "ORDER BY updated_at, rowid LIMIT 1"
    )
    """The runnable run updated longest ago, read in the order of the index of runs not
    ended (migration 3): named, so that no statistics make the planner scan every run."""
    CLAIM_ONE: Final = (
        CLAIM.replace(" INDEXED BY runs_active", "")
        .replace("OR lease_until <= :now)", "OR lease_until <= :now OR lease_epoch = :over)")
        .replace("ORDER BY", "AND id = :run_id ORDER BY")
    )
    """The named run; `:over` is the epoch of a holder known to be gone (or NULL)."""
    LEASE: Final = (
        "UPDATE runs SET lease_owner = ?, lease_until = ?, lease_epoch = lease_epoch + 1 "
        "WHERE id = ? RETURNING lease_epoch"
    )
    RENEW: Final = (
        "UPDATE runs SET lease_until = ? WHERE id = ? AND lease_owner = ? AND lease_epoch = ?"
    )
    RELEASE: Final = (
        "UPDATE runs SET lease_until = 0 WHERE id = ? AND lease_owner = ? AND lease_epoch = ?"
    )
    """The holder's name stays: a writer fenced off later is told who had the run."""


SQLiteRows = StoredRun
"""The rows `SQLiteStore.load` and `rows` return."""


# -- records as parameters, rows as records ------------------------------------------------
def checkpoint_json(point: Checkpoint) -> str:
    return json.dumps(asdict(point), separators=(",", ":"))


def session_values(s: SessionRecord) -> Row:
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


def session_record(row: Row) -> SessionRecord:
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


def run_values(r: RunRecord) -> Row:
    return (
        r.id,
        r.session_id,
        r.status,
        r.created_at,
        r.updated_at,
        r.parent_run_id,
        r.prompt,
        r.scalars,
        None if r.checkpoint is None else checkpoint_json(r.checkpoint),
        r.lease_owner,
        r.lease_until,
        r.policy_version,
        r.lease_epoch,
    )


def run_record(row: Row, where: str) -> RunRecord:
    """The run a row of `RUN_COLUMNS` holds; a `StoreError` naming `where` if its checkpoint
    cannot be read."""
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
        lease_epoch,
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
        checkpoint=None if checkpoint is None else _checkpoint(run_id, checkpoint, where),
        lease_owner=lease_owner,
        lease_until=lease_until,
        policy_version=policy_version,
        lease_epoch=lease_epoch,
    )


def _checkpoint(run_id: str, text: str, where: str) -> Checkpoint:
    try:
        data = json.loads(text)
        # Fields a newer hookagent added are dropped, so an older one can still resume.
        return Checkpoint(**{k: v for k, v in data.items() if k in _CHECKPOINT_FIELDS})
    except (ValueError, TypeError, AttributeError) as exc:
        raise StoreError(
            f"{where}: run {run_id!r} has an unreadable checkpoint {text!r}: {exc}"
        ) from exc


def call_values(c: CallRecord) -> Row:
    return (c.call_id, c.step, c.name, c.args, c.idempotency_key, c.state, c.result, c.updated_at)


def call_record(row: Row) -> CallRecord:
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


def question_values(q: QuestionRecord) -> Row:
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


def question_record(row: Row) -> QuestionRecord:
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
