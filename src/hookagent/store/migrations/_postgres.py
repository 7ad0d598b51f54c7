"""The PostgreSQL schema as numbered migrations (see the package docstring).

The same tables as the SQLite schema, in PostgreSQL's types: JSON as TEXT, timestamps as
epoch seconds (DOUBLE PRECISION). PostgreSQL has no `rowid`, so the tables listed in
insertion order (sessions, runs, tool calls, questions) number their rows with an identity
column `seq`. Each migration runs inside the transaction that records its number in
`schema_version`, under an advisory lock (see `PostgresStore.open`)."""

from __future__ import annotations

from typing import Final

__all__ = ["LATEST", "MIGRATIONS"]

MIGRATIONS: Final[tuple[tuple[str, ...], ...]] = (
    # 1: the initial schema.
    (
        """
        CREATE TABLE schema_version (
            version INTEGER PRIMARY KEY,
            applied_at DOUBLE PRECISION NOT NULL
        )
        """,
        """
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            name TEXT UNIQUE,
            created_at DOUBLE PRECISION NOT NULL,
            updated_at DOUBLE PRECISION NOT NULL,
            head_run_id TEXT,
            forked_from TEXT,
            status TEXT NOT NULL DEFAULT 'idle',
            title TEXT NOT NULL DEFAULT '',
            seq BIGINT GENERATED ALWAYS AS IDENTITY
        )
        """,
        "CREATE INDEX sessions_by_updated ON sessions (updated_at DESC, seq)",
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
            lease_until DOUBLE PRECISION NOT NULL DEFAULT 0,
            policy_version TEXT NOT NULL DEFAULT '',
            created_at DOUBLE PRECISION NOT NULL,
            updated_at DOUBLE PRECISION NOT NULL,
            seq BIGINT GENERATED ALWAYS AS IDENTITY
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
        )
        """,
        """
        CREATE TABLE steps (
            run_id TEXT NOT NULL REFERENCES runs (id),
            idx INTEGER NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (run_id, idx)
        )
        """,
        """
        CREATE TABLE decisions (
            run_id TEXT NOT NULL REFERENCES runs (id),
            idx INTEGER NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (run_id, idx)
        )
        """,
        # `seq` numbers a run's entries in the order they were written; an entry written
        # again (a retried flush) keeps its place.
        """
        CREATE TABLE journal (
            run_id TEXT NOT NULL REFERENCES runs (id),
            segment INTEGER NOT NULL,
            seq BIGINT NOT NULL,
            key TEXT NOT NULL,
            kind TEXT NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (run_id, segment, seq),
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
            updated_at DOUBLE PRECISION NOT NULL,
            seq BIGINT GENERATED ALWAYS AS IDENTITY,
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
            created_at DOUBLE PRECISION NOT NULL,
            expires_at DOUBLE PRECISION,
            answer TEXT,
            answered_at DOUBLE PRECISION,
            seq BIGINT GENERATED ALWAYS AS IDENTITY
        )
        """,
        "CREATE INDEX questions_by_run ON questions (run_id)",
        "CREATE INDEX questions_by_fingerprint ON questions (session_id, fingerprint)",
    ),
    # 2: the lease's fencing token, one more at every claim.
    ("ALTER TABLE runs ADD COLUMN lease_epoch BIGINT NOT NULL DEFAULT 0",),
    # 3: `claim` reads the runs not ended, oldest first, from an index of those alone: its
    # cost follows the runs in flight, not every run the store ever held.
    (
        "CREATE INDEX runs_active ON runs (updated_at, seq) "
        "WHERE status IN ('queued', 'running', 'waiting')",
    ),
    # 4: the bearer tokens of `hookagent serve` (the SHA-256 of each secret, never the
    # secret). Its inbox reads the questions of waiting runs through `runs_by_status` and
    # `questions_by_run`: its cost follows the runs that wait, not every question.
    (
        """
        CREATE TABLE tokens (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            role TEXT NOT NULL,
            digest TEXT NOT NULL UNIQUE,
            created_at DOUBLE PRECISION NOT NULL,
            revoked_at DOUBLE PRECISION,
            seq BIGINT GENERATED ALWAYS AS IDENTITY
        )
        """,
    ),
)

LATEST: Final = len(MIGRATIONS)
"""The schema version this hookagent writes."""
