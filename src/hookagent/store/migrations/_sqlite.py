"""The SQLite schema as numbered migrations (see the package docstring).

Every row shaped by the runtime is JSON text; timestamps are epoch seconds (REAL). Each
migration runs inside the transaction that records its number in `schema_version`."""

from __future__ import annotations

from typing import Final

__all__ = ["LATEST", "MIGRATIONS"]

MIGRATIONS: Final[tuple[tuple[str, ...], ...]] = (
    # 1: the initial schema.
    (
        """
        CREATE TABLE schema_version (
            version INTEGER PRIMARY KEY,
            applied_at REAL NOT NULL
        )
        """,
        """
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            name TEXT UNIQUE,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            head_run_id TEXT,
            forked_from TEXT,
            status TEXT NOT NULL DEFAULT 'idle',
            title TEXT NOT NULL DEFAULT ''
        )
        """,
        # DESC so that "newest first, then in insertion order" reads the index in order.
        "CREATE INDEX sessions_by_updated ON sessions (updated_at DESC)",
        """
        CREATE TABLE runs (
            id TEXT PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES sessions (id),
            parent_run_id TEXT,
            status TEXT NOT NULL,
            prompt TEXT,
            scalars TEXT NOT NULL DEFAULT '{}',
            checkpoint TEXT,
            lease_owner TEXT,
            lease_until REAL NOT NULL DEFAULT 0,
            policy_version TEXT NOT NULL DEFAULT '',
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        )
        """,
        "CREATE INDEX runs_by_status ON runs (status, updated_at)",
        "CREATE INDEX runs_by_session ON runs (session_id, created_at)",
        """
        CREATE TABLE messages (
            run_id TEXT NOT NULL REFERENCES runs (id),
            idx INTEGER NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (run_id, idx)
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE steps (
            run_id TEXT NOT NULL REFERENCES runs (id),
            idx INTEGER NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (run_id, idx)
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE decisions (
            run_id TEXT NOT NULL REFERENCES runs (id),
            idx INTEGER NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (run_id, idx)
        ) WITHOUT ROWID
        """,
        # `seq` numbers a run's entries in the order they were written; an entry written
        # again (a retried flush) keeps its place.
        """
        CREATE TABLE journal (
            run_id TEXT NOT NULL REFERENCES runs (id),
            segment INTEGER NOT NULL,
            key TEXT NOT NULL,
            kind TEXT NOT NULL,
            data TEXT NOT NULL,
            UNIQUE (run_id, segment, key)
        )
        """,
        """
        CREATE TABLE tool_calls (
            run_id TEXT NOT NULL REFERENCES runs (id),
            call_id TEXT NOT NULL,
            step INTEGER NOT NULL,
            name TEXT NOT NULL,
            args TEXT NOT NULL,
            idempotency_key TEXT NOT NULL,
            state TEXT NOT NULL,
            result TEXT,
            updated_at REAL NOT NULL,
            PRIMARY KEY (run_id, call_id)
        )
        """,
        """
        CREATE TABLE questions (
            id TEXT PRIMARY KEY,
            run_id TEXT NOT NULL REFERENCES runs (id),
            session_id TEXT NOT NULL REFERENCES sessions (id),
            key TEXT NOT NULL,
            data TEXT NOT NULL,
            fingerprint TEXT,
            created_at REAL NOT NULL,
            expires_at REAL,
            answer TEXT,
            answered_at REAL
        )
        """,
        "CREATE INDEX questions_by_run ON questions (run_id)",
        "CREATE INDEX questions_by_fingerprint ON questions (session_id, fingerprint)",
    ),
    # 2: the lease's fencing token, one more at every claim.
    ("ALTER TABLE runs ADD COLUMN lease_epoch INTEGER NOT NULL DEFAULT 0",),
    # 3: `claim` reads the runs not ended, oldest first, from an index of those alone: its
    # cost follows the runs in flight, not every run the store ever held.
    (
        "CREATE INDEX runs_active ON runs (updated_at) "
        "WHERE status IN ('queued', 'running', 'waiting')",
    ),
    # 4: the bearer tokens of `hookagent serve` (the SHA-256 of each secret, never the
    # secret). Its inbox reads the questions of waiting runs from `runs_by_status` and
    # `questions_by_run`: its cost follows the runs that wait, not every question.
    (
        """
        CREATE TABLE tokens (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            role TEXT NOT NULL,
            digest TEXT NOT NULL UNIQUE,
            created_at REAL NOT NULL,
            revoked_at REAL
        )
        """,
    ),
)

LATEST: Final = len(MIGRATIONS)
"""The schema version this hookagent writes."""
