"""What `SQLiteStore` says to its file: its statements (its schema is in `migrations.sqlite`,
its rows become records in `columns`), and `SQLiteRows`.

Tables without a natural order keep insertion order with SQLite's `rowid`."""

from __future__ import annotations

from typing import Final, final

from hookagent.store._columns import QUESTION_COLUMNS, RUN_COLUMNS, SESSION_COLUMNS, upserts
from hookagent.store._records import StoredRun

__all__ = ["QUESTION_COLUMNS", "RUN_COLUMNS", "SESSION_COLUMNS", "SQL", "SQLiteRows"]


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
    REFRESH_RUN: Final = (
        "UPDATE runs SET scalars = :scalars, checkpoint = COALESCE(:checkpoint, checkpoint), "
        "lease_until = MAX(lease_until, :until) "
        "WHERE id = :run_id AND lease_owner IS :worker AND lease_epoch = :epoch "
        "AND status = :status AND updated_at > :at - :fresh "
        "RETURNING 1"
    )
    """`UPDATE_RUN` for a run whose status stays and whose `updated_at` is recent: it sets
    no indexed column, so the commit writes the run's page alone (not those of the indexes
    on status and `updated_at`, nor the session's). No row: `UPDATE_RUN` decides."""
    LEASE_OWNER: Final = "SELECT lease_owner, lease_epoch FROM runs WHERE id = ?"
    UPSERT_ROW: Final = "INSERT OR REPLACE INTO {table} (run_id, idx, data) VALUES (?, ?, ?)"
    DROP_JOURNAL: Final = "DELETE FROM journal WHERE run_id = ? AND segment < ?"
    UPSERT_JOURNAL: Final = (
        "INSERT INTO journal (run_id, segment, key, kind, data) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT (run_id, segment, key) "
        "DO UPDATE SET kind = excluded.kind, data = excluded.data"
    )
    """A retried entry keeps its row, so the journal stays in first-write order."""
    UPSERT: Final = upserts("?", row=UPSERT_ROW, journal=UPSERT_JOURNAL)
    """Table → the statement that writes what a flush adds to it (`columns.appended`)."""
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
