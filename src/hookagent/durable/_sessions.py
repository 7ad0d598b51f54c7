"""Sessions as people handle them: list, inspect, answer a waiting run's questions, fork.

These work on a store alone, with no agent: `hookagent sessions`, `approve` and `deny` use
them, and so can a web handler that receives an approval hours after the question.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Final, final

from hookagent._errors import StoreError
from hookagent.durable import _codec as codec
from hookagent.durable._answering import StaleQuestion, answer_question, stale_reason
from hookagent.durable._answers import Scope
from hookagent.store._base import Store
from hookagent.store._records import (
    Checkpoint,
    Flush,
    QuestionRecord,
    RunRecord,
    SessionRecord,
)

__all__ = ["UNFINISHED", "SessionDetail", "WrongState", "answer", "find_run", "fork", "inspect"]

UNFINISHED: Final = ("running", "waiting", "queued")
"""The states of a run that has not ended."""


class WrongState(StoreError):
    """The run's (or session's) state does not allow what was asked; nothing was done."""


@final
@dataclass(slots=True, kw_only=True)
class SessionDetail:
    session: SessionRecord
    runs: list[RunRecord]
    messages: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    """The newest run's conversation as far as it is stored."""
    steps: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    decisions: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    pending: list[QuestionRecord] = field(default_factory=list[QuestionRecord])
    scalars: dict[str, Any] = field(default_factory=dict[str, Any])


async def find_run(store: Store, key: str) -> RunRecord:
    """A run by id, or the newest run of a session (by id or name)."""
    run = await store.run(key)
    if run is not None:
        return run
    session = await store.session(key)
    if session is None:
        raise StoreError(f"no session or run {key!r} in {store.url}")
    if session.head_run_id is None:
        raise StoreError(f"session {key!r} has no run yet ({store.url})")
    run = await store.run(session.head_run_id)
    if run is None:
        raise StoreError(f"session {key!r} names a missing run ({store.url})")
    return run


async def inspect(store: Store, key: str) -> SessionDetail:
    """A session (or the session of a run) with its newest run's rows and open questions."""
    session = await store.session(key)
    if session is None:
        run = await store.run(key)
        session = await store.session(run.session_id) if run is not None else None
    if session is None:
        raise StoreError(f"no session or run {key!r} in {store.url}")
    detail = SessionDetail(session=session, runs=await store.runs(session.id))
    if session.head_run_id is None:
        return detail
    rows = await store.rows(session.head_run_id)
    if rows is not None:
        detail.messages = [json.loads(m) for m in rows.messages]
        detail.steps = [json.loads(s) for s in rows.steps]
        detail.decisions = [json.loads(d) for d in rows.decisions]
        detail.scalars = json.loads(rows.run.scalars)
    detail.pending = await store.questions(session.head_run_id)
    return detail


async def answer(
    store: Store,
    key: str,
    *,
    approved: bool,
    call_id: str | None = None,
    scope: Scope = "once",
    reason: str | None = None,
    ttl: float | None = None,
    by: str = "cli",
) -> list[QuestionRecord]:
    """Answer the questions a run (or a session's newest run) waits on, or only the one
    about `call_id`, each as `answering.answer_question` does. A `StoreError` if there is
    nothing to answer."""
    run = await find_run(store, key)
    questions = await store.questions(run.id)
    if call_id is not None:
        questions = [q for q in questions if json.loads(q.data).get("call_id") == call_id]
    questions = [q for q in questions if await stale_reason(store, q) is None]
    if not questions:
        about = f" about call {call_id}" if call_id else ""
        raise StoreError(f"run {run.id} has no open question{about} ({run.status})")
    answered: list[QuestionRecord] = []
    for question in questions:
        try:
            given = await answer_question(
                store, question, approved=approved, scope=scope, reason=reason, ttl=ttl, by=by
            )
        except StaleQuestion:
            continue  # answered by someone else meanwhile
        answered.append(given)
    return answered


async def fork(store: Store, key: str, name: str | None = None) -> SessionRecord:
    """A new session that starts with the conversation of `key`'s newest run; the original
    is left as it is. `WrongState` while that run has not ended."""
    detail = await inspect(store, key)
    source = detail.session
    if detail.runs and detail.runs[-1].status in UNFINISHED:
        raise WrongState(
            f"session {source.name or source.id} has a run that is not finished; "
            "fork it once that run has ended"
        )
    now = time.time()
    session = SessionRecord(
        id=uuid.uuid4().hex[:12],
        name=name,
        created_at=now,
        updated_at=now,
        forked_from=source.id,
        title=source.title,
    )
    await store.create_session(session)
    run_id = uuid.uuid4().hex
    scalars = json.dumps({"session_id": session.id, "forked_from": source.head_run_id})
    await store.create_run(
        RunRecord(
            id=run_id,
            session_id=session.id,
            status="completed",
            created_at=now,
            updated_at=now,
            scalars=scalars,
        )
    )
    messages = [codec.canonical(m) for m in detail.messages]
    await store.flush(
        Flush(
            run_id=run_id,
            status="completed",
            scalars=scalars,
            at=now,
            messages=list(enumerate(messages)),
            checkpoint=Checkpoint(
                segment=0, messages=len(messages), steps=0, decisions=0, scalars=scalars
            ),
        )
    )
    found = await store.session(session.id)
    assert found is not None
    return found
