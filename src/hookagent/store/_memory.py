"""`MemoryStore`: the store contract kept in dicts, for tests and for runs that need pausing
but no persistence across processes. It is also the reference the other stores are tested
against: the same contract tests run on all of them."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import TYPE_CHECKING, Unpack, final

from hookagent._errors import LeaseLost, StoreError
from hookagent.store._records import (
    CallRecord,
    Flush,
    JournalEntry,
    QuestionRecord,
    RunRecord,
    SessionRecord,
    StoredRun,
    TokenRecord,
)

if TYPE_CHECKING:  # keyword arguments' types
    from hookagent.store._records import SessionQuery

__all__ = ["LoadedRun", "MemoryStore", "refused"]

RUNNABLE_WAITING = "waiting"


LoadedRun = StoredRun
"""The rows `MemoryStore.load` and `rows` return."""


@final
class _RunData:
    def __init__(self, record: RunRecord) -> None:
        self.record = record
        self.messages: dict[int, str] = {}
        self.steps: dict[int, str] = {}
        self.decisions: dict[int, str] = {}
        self.journal: list[JournalEntry] = []
        self.calls: dict[str, CallRecord] = {}


@final
class MemoryStore:
    def __init__(self) -> None:
        self._sessions: dict[str, SessionRecord] = {}
        self._runs: dict[str, _RunData] = {}
        self._questions: dict[str, QuestionRecord] = {}
        self._tokens: dict[str, TokenRecord] = {}

    @property
    def url(self) -> str:
        return "memory:"

    async def open(self) -> None:
        return None

    async def close(self) -> None:
        return None

    # -- sessions -------------------------------------------------------------------------
    async def create_session(self, session: SessionRecord) -> None:
        if session.id in self._sessions:
            raise StoreError(f"session {session.id!r} exists already (store {self.url})")
        if session.name is not None and any(
            s.name == session.name for s in self._sessions.values()
        ):
            raise StoreError(f"a session named {session.name!r} exists already ({self.url})")
        self._sessions[session.id] = copy.copy(session)

    async def session(self, key: str) -> SessionRecord | None:
        found = self._sessions.get(key) or next(
            (s for s in self._sessions.values() if s.name == key), None
        )
        return copy.copy(found) if found else None

    async def sessions(self, *, limit: int = 100, offset: int = 0) -> list[SessionRecord]:
        ordered = sorted(self._sessions.values(), key=lambda s: s.updated_at, reverse=True)
        return [copy.copy(s) for s in ordered[offset : offset + limit]]

    async def runs(self, session_id: str) -> list[RunRecord]:
        found = [d.record for d in self._runs.values() if d.record.session_id == session_id]
        return [copy.copy(r) for r in sorted(found, key=lambda r: r.created_at)]

    # -- runs -----------------------------------------------------------------------------
    async def create_run(self, run: RunRecord) -> None:
        session = self._sessions.get(run.session_id)
        if session is None:
            raise StoreError(f"no session {run.session_id!r} for run {run.id!r} ({self.url})")
        if run.id in self._runs:
            raise StoreError(f"run {run.id!r} exists already ({self.url})")
        self._runs[run.id] = _RunData(copy.copy(run))
        session.head_run_id, session.status = run.id, run.status
        session.updated_at = run.updated_at
        if not session.title and run.prompt:
            session.title = run.prompt[:80]

    async def run(self, run_id: str) -> RunRecord | None:
        data = self._runs.get(run_id)
        return copy.copy(data.record) if data else None

    async def load(self, run_id: str) -> LoadedRun | None:
        data = self._runs.get(run_id)
        if data is None:
            return None
        point = data.record.checkpoint
        limits = (point.messages, point.steps, point.decisions) if point else (0, 0, 0)
        try:
            messages = [data.messages[i] for i in range(limits[0])]
            steps = [data.steps[i] for i in range(limits[1])]
            decisions = [data.decisions[i] for i in range(limits[2])]
        except KeyError as exc:
            raise StoreError(
                f"run {run_id} lacks row {exc} its checkpoint counts ({self.url})"
            ) from exc
        return LoadedRun(
            run=copy.copy(data.record),
            messages=messages,
            steps=steps,
            decisions=decisions,
            journal=[e for e in data.journal if point is None or e.segment >= point.segment],
            calls=[copy.copy(c) for c in data.calls.values()],
        )

    async def rows(self, run_id: str) -> LoadedRun | None:
        data = self._runs.get(run_id)
        if data is None:
            return None
        return LoadedRun(
            run=copy.copy(data.record),
            messages=[data.messages[i] for i in sorted(data.messages)],
            steps=[data.steps[i] for i in sorted(data.steps)],
            decisions=[data.decisions[i] for i in sorted(data.decisions)],
            calls=[copy.copy(c) for c in data.calls.values()],
        )

    async def flush(self, flush: Flush) -> None:
        data = self._runs.get(flush.run_id)
        if data is None:
            raise StoreError(f"no run {flush.run_id!r} to write to ({self.url})")
        record = data.record
        if (record.lease_owner, record.lease_epoch) != (flush.worker, flush.epoch):
            raise refused(flush, record.lease_owner, record.lease_epoch, self.url)
        if flush.worker is not None and flush.lease > 0:
            record.lease_until = max(record.lease_until, flush.at + flush.lease)
        data.messages.update(flush.messages)
        data.steps.update(flush.steps)
        data.decisions.update(flush.decisions)
        if flush.checkpoint is not None:
            data.record.checkpoint = flush.checkpoint
            data.journal = [e for e in data.journal if e.segment >= flush.checkpoint.segment]
        keys = {(e.segment, e.key): i for i, e in enumerate(data.journal)}
        for entry in flush.journal:
            at = keys.get((entry.segment, entry.key))
            if at is None:
                keys[entry.segment, entry.key] = len(data.journal)
                data.journal.append(entry)
            else:
                data.journal[at] = entry
        for call in flush.calls:
            data.calls[call.call_id] = copy.copy(call)
        for question in flush.questions:
            self._questions.setdefault(question.id, copy.copy(question))
        data.record.status, data.record.scalars = flush.status, flush.scalars
        data.record.updated_at = max(data.record.updated_at, flush.at)
        session = self._sessions[data.record.session_id]
        if session.head_run_id == flush.run_id:
            session.status, session.updated_at = flush.status, data.record.updated_at

    # -- questions ------------------------------------------------------------------------
    async def questions(self, run_id: str, *, pending: bool = True) -> list[QuestionRecord]:
        found = [
            q
            for q in self._questions.values()
            if q.run_id == run_id and (not pending or q.answer is None)
        ]
        return [copy.copy(q) for q in sorted(found, key=lambda q: q.created_at)]

    async def answer(self, question_id: str, answer: str, at: float) -> bool:
        question = self._questions.get(question_id)
        if question is None or question.answer is not None:
            return False
        question.answer, question.answered_at = answer, at
        return True

    async def approvals(self, session_id: str, fingerprint: str) -> list[QuestionRecord]:
        found = [
            q
            for q in self._questions.values()
            if q.session_id == session_id and q.fingerprint == fingerprint and q.answer
        ]
        found.sort(key=lambda q: q.answered_at or 0.0, reverse=True)
        return [copy.copy(q) for q in found]

    # -- workers --------------------------------------------------------------------------
    async def claim(self, worker: str, now: float, lease: float) -> RunRecord | None:
        candidates = sorted(self._runs.values(), key=lambda d: d.record.updated_at)
        return self._lease(candidates, worker, now, lease, over_epoch=None)

    async def claim_run(
        self, run_id: str, worker: str, now: float, lease: float, *, over_epoch: int | None = None
    ) -> RunRecord | None:
        candidates = [self._runs[run_id]] if run_id in self._runs else []
        return self._lease(candidates, worker, now, lease, over_epoch=over_epoch)

    def _lease(
        self,
        candidates: list[_RunData],
        worker: str,
        now: float,
        lease: float,
        over_epoch: int | None,
    ) -> RunRecord | None:
        """The first candidate `worker` may take; a held one only when it is named and its
        epoch is `over_epoch`."""
        for data in candidates:
            record = data.record
            held = record.lease_owner not in (None, worker) and record.lease_until > now
            if held and record.lease_epoch != over_epoch:
                continue
            if not self._runnable(record, now):
                continue
            record.lease_owner, record.lease_until = worker, now + lease
            record.lease_epoch += 1
            return replace(record)
        return None

    def _runnable(self, record: RunRecord, now: float) -> bool:
        if record.status in ("queued", "running"):
            return True
        if record.status != RUNNABLE_WAITING:
            return False
        pending = [
            q for q in self._questions.values() if q.run_id == record.id and q.answer is None
        ]
        return all(q.expires_at is not None and q.expires_at <= now for q in pending)

    async def renew(
        self, run_id: str, worker: str, now: float, lease: float, *, epoch: int
    ) -> bool:
        data = self._runs.get(run_id)
        if data is None or (data.record.lease_owner, data.record.lease_epoch) != (worker, epoch):
            return False
        data.record.lease_until = now + lease
        return True

    async def release(self, run_id: str, worker: str, *, epoch: int) -> None:
        data = self._runs.get(run_id)
        if data is not None and (data.record.lease_owner, data.record.lease_epoch) == (
            worker,
            epoch,
        ):
            data.record.lease_until = 0.0

    # -- what `hookagent serve` reads and keeps -------------------------------------------
    async def find_sessions(self, **query: Unpack[SessionQuery]) -> list[SessionRecord]:
        status, needle = query.get("status"), (query.get("search") or "").casefold()
        found = [
            s
            for s in sorted(self._sessions.values(), key=lambda s: s.updated_at, reverse=True)
            if (status is None or s.status == status)
            and (needle in s.title.casefold() or needle in (s.name or "").casefold())
        ]
        offset = query.get("offset", 0)
        return [copy.copy(s) for s in found[offset : offset + query.get("limit", 100)]]

    async def question(self, question_id: str) -> QuestionRecord | None:
        found = self._questions.get(question_id)
        return copy.copy(found) if found else None

    async def open_questions(self, *, limit: int = 100, offset: int = 0) -> list[QuestionRecord]:
        found = [
            q
            for q in reversed(self._questions.values())
            if q.answer is None and self._runs[q.run_id].record.status == "waiting"
        ]
        found.sort(key=lambda q: q.created_at, reverse=True)
        return [copy.copy(q) for q in found[offset : offset + limit]]

    async def inbox(
        self, *, limit: int = 100, offset: int = 0
    ) -> list[tuple[QuestionRecord, SessionRecord | None]]:
        newest: dict[str, float] = {}
        for q in self._questions.values():
            newest[q.run_id] = max(newest.get(q.run_id, q.created_at), q.created_at)
        current = [
            q
            for q in await self.open_questions(limit=len(self._questions))
            if q.created_at >= newest[q.run_id]
        ]
        return [
            (q, copy.copy(self._sessions[q.session_id]) if q.session_id in self._sessions else None)
            for q in current[offset : offset + limit]
        ]

    async def create_token(self, token: TokenRecord) -> None:
        if token.id in self._tokens or any(t.digest == token.digest for t in self._tokens.values()):
            raise StoreError(f"{self.url}: token {token.id} exists already")
        self._tokens[token.id] = replace(token, revoked_at=None)

    async def token(self, digest: str) -> TokenRecord | None:
        found = next((t for t in self._tokens.values() if t.digest == digest), None)
        return copy.copy(found) if found else None

    async def tokens(self) -> list[TokenRecord]:
        ordered = sorted(self._tokens.values(), key=lambda t: t.created_at)
        return [copy.copy(t) for t in ordered]

    async def revoke_token(self, token_id: str, at: float) -> bool:
        token = self._tokens.get(token_id)
        if token is None or token.revoked_at is not None:
            return False
        token.revoked_at = at
        return True


def refused(flush: Flush, holder: str | None, epoch: int, where: str) -> StoreError:
    """Why a flush the fence turned away was refused: `LeaseLost` for a writer whose lease
    went to `holder` (at `epoch`)."""
    if flush.worker is None:
        return StoreError(
            f"run {flush.run_id} is held by {holder} (lease epoch {epoch}): a write that holds "
            f"no lease is refused; nothing was written ({where})"
        )
    return LeaseLost(flush.run_id, worker=flush.worker, holder=holder, where=where)
