"""The `Store` protocol: what durable sessions need from a database.

Two implementations pass the same contract tests: SQLite (the default, one file under
`.hookagent/`) and PostgreSQL (many workers, many machines). A store keeps sessions, runs,
their messages, steps and decisions as rows appended at checkpoints, the journal of the
current segment of each run, the tool-call journal, and questions waiting for answers.
Every write of a durability barrier is one `flush`, one transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from hookagent.store.records import (
    CallRecord,
    Flush,
    JournalEntry,
    QuestionRecord,
    RunRecord,
    SessionRecord,
)

__all__ = ["RunRows", "Store"]


class RunRows(Protocol):
    """A run's durable state, as rows (JSON text) up to its checkpoint."""

    @property
    def run(self) -> RunRecord: ...
    @property
    def messages(self) -> Sequence[str]: ...
    @property
    def steps(self) -> Sequence[str]: ...
    @property
    def decisions(self) -> Sequence[str]: ...
    @property
    def journal(self) -> Sequence[JournalEntry]:
        """Entries of the segment the checkpoint began, in the order they were written."""
        ...

    @property
    def calls(self) -> Sequence[CallRecord]: ...


@runtime_checkable
class Store(Protocol):
    @property
    def url(self) -> str:
        """Where the store is, as given (a path or a database URL, password hidden)."""
        ...

    async def open(self) -> None:
        """Connect, and bring the schema up to date (migrations are applied in order, each
        once). A store from a newer hookagent, a file that is not a database or one that
        cannot be written is a `StoreError` naming it; nothing is changed then."""
        ...

    async def close(self) -> None: ...

    # -- sessions -------------------------------------------------------------------------
    async def create_session(self, session: SessionRecord) -> None:
        """A `StoreError` if the name is taken."""
        ...

    async def session(self, key: str) -> SessionRecord | None:
        """By id, or else by name."""
        ...

    async def sessions(self, *, limit: int = 100, offset: int = 0) -> list[SessionRecord]:
        """Newest first (by `updated_at`)."""
        ...

    async def runs(self, session_id: str) -> list[RunRecord]:
        """Oldest first."""
        ...

    # -- runs -----------------------------------------------------------------------------
    async def create_run(self, run: RunRecord) -> None:
        """Insert the run and make it its session's head."""
        ...

    async def run(self, run_id: str) -> RunRecord | None: ...

    async def load(self, run_id: str) -> RunRows | None:
        """Everything needed to resume the run."""
        ...

    async def rows(self, run_id: str) -> RunRows | None:
        """Everything stored for the run, past its checkpoint too (to show it, not to resume
        it); the journal is left out."""
        ...

    async def flush(self, flush: Flush) -> None:
        """Append rows, journal entries, questions and call states, update the run's status
        and scalars (and its session's), all in one transaction. Rows already present (same
        run and index, or same journal key) are replaced, so a flush may be retried.

        Fencing: a flush that names a `worker` is refused with a `StoreError` when another
        worker holds the run's lease (the writer's lease ran out and the run was taken over),
        and nothing is written."""
        ...

    # -- questions ------------------------------------------------------------------------
    async def questions(self, run_id: str, *, pending: bool = True) -> list[QuestionRecord]: ...

    async def answer(self, question_id: str, answer: str, at: float) -> bool:
        """Record the answer to a question that has none; False if it had one already."""
        ...

    async def approvals(self, session_id: str, fingerprint: str) -> list[QuestionRecord]:
        """Answered questions of the session with this fingerprint, newest first."""
        ...

    # -- workers --------------------------------------------------------------------------
    async def claim(
        self, worker: str, now: float, lease: float, run_id: str | None = None
    ) -> RunRecord | None:
        """Take one runnable run (or the named one) for `worker` until `now + lease`:
        a `waiting` run whose questions are all answered or expired, a `queued` run, or a
        `running` run whose lease has run out (its worker died). Exactly one of several
        racing workers gets a given run."""
        ...

    async def renew(self, run_id: str, worker: str, now: float, lease: float) -> bool:
        """Extend the lease; False if the worker no longer holds it."""
        ...

    async def release(self, run_id: str, worker: str) -> None: ...
