"""The `Store` protocol: what durable sessions need from a database.

Two implementations pass the same contract tests: SQLite (the default, one file under
`.hookagent/`) and PostgreSQL (many workers, many machines). A store keeps sessions, runs,
their messages, steps and decisions as rows appended at checkpoints, the journal of the
current segment of each run, the tool-call journal, and questions waiting for answers.
Every write of a durability barrier is one `flush`, one transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, Unpack, runtime_checkable

from hookagent.store._records import (
    CallRecord,
    Flush,
    JournalEntry,
    QuestionRecord,
    RunRecord,
    SessionRecord,
    TokenRecord,
)

if TYPE_CHECKING:  # keyword arguments' types
    from hookagent.store._records import SessionQuery

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
        """Insert the run and make it its session's head. A run created held (its
        `lease_owner` set) starts at the `lease_epoch` it names (1)."""
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

        Fencing, checked in the same statement (or under the same row lock) as the run's
        update: the flush is written only if the run's `lease_owner` and `lease_epoch` are
        still its `worker` and `epoch` (`None` and 0: a run nobody ever held). Otherwise
        nothing is written and it raises `LeaseLost` naming the run's holder now. A flush
        that is written extends the lease to `at + lease`, if that is later."""
        ...

    # -- questions ------------------------------------------------------------------------
    async def questions(self, run_id: str, *, pending: bool = True) -> list[QuestionRecord]: ...

    async def answer(self, question_id: str, answer: str, at: float) -> bool:
        """Record the answer to a question that has none; False if it had one already."""
        ...

    async def approvals(self, session_id: str, fingerprint: str) -> list[QuestionRecord]:
        """Answered questions of the session with this fingerprint, newest first."""
        ...

    # -- what `hookagent serve` reads and keeps -------------------------------------------
    async def find_sessions(self, **query: Unpack[SessionQuery]) -> list[SessionRecord]:
        """Sessions newest first (as `sessions`), only those whose status is `status` and
        whose title or name holds `search` (case-insensitive, taken literally); `limit`
        (100) of them from `offset` (0)."""
        ...

    async def question(self, question_id: str) -> QuestionRecord | None: ...

    async def open_questions(self, *, limit: int = 100, offset: int = 0) -> list[QuestionRecord]:
        """The unanswered questions of every waiting run, newest first."""
        ...

    async def inbox(
        self, *, limit: int = 100, offset: int = 0
    ) -> list[tuple[QuestionRecord, SessionRecord | None]]:
        """The questions runs wait on now, newest first, each with its session, in one
        read: `open_questions` less each one its run went past (the run asked a newer
        question: stale, as `durable.answering` has it)."""
        ...

    async def create_token(self, token: TokenRecord) -> None:
        """Keep a bearer token (not revoked); a `StoreError` if its id or digest exists."""
        ...

    async def token(self, digest: str) -> TokenRecord | None:
        """The token whose secret hashes to `digest`, revoked or not."""
        ...

    async def tokens(self) -> list[TokenRecord]:
        """Every token, revoked ones too, oldest first."""
        ...

    async def revoke_token(self, token_id: str, at: float) -> bool:
        """Revoke the token; False if there is none of that id or it was revoked already."""
        ...

    # -- workers --------------------------------------------------------------------------
    async def claim(self, worker: str, now: float, lease: float) -> RunRecord | None:
        """Take the runnable run updated longest ago for `worker` until `now + lease`:
        a `waiting` run whose questions are all answered or expired, a `queued` run, or a
        `running` run whose lease has run out (its worker died). Exactly one of several
        racing workers gets a given run. Every claim adds one to the run's `lease_epoch`,
        in the same statement, and returns the run with it: writers of older epochs are
        fenced off from then on."""
        ...

    async def claim_run(
        self, run_id: str, worker: str, now: float, lease: float, *, over_epoch: int | None = None
    ) -> RunRecord | None:
        """`claim` for the run `run_id` alone. With `over_epoch`, the run is taken even
        though its lease has not run out, provided its epoch is still `over_epoch` (its
        holder is known to be gone)."""
        ...

    async def renew(
        self, run_id: str, worker: str, now: float, lease: float, *, epoch: int
    ) -> bool:
        """Extend the lease to `now + lease`; False, and nothing changed, unless `worker`
        still holds the run at `epoch`."""
        ...

    async def release(self, run_id: str, worker: str, *, epoch: int) -> None:
        """End the lease `worker` holds at `epoch` (the run is claimable at once); nothing
        if the run was claimed again since."""
        ...
