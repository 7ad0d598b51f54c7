"""Answering one question of a paused run: the one implementation behind `hookagent
approve`/`deny` and `hookagent serve`'s `POST /questions/{id}/answer`.

An answer is given only to a question its run still waits on. A question is **stale** once
it has an answer, once its run is no longer waiting, once its run asked a newer question
(the run went past it, with its default after it expired), or when the answerer saw other
arguments: `seen` is the fingerprint (tool, canonical arguments, policy version) shown to
whoever answers, and a different one means they reviewed another call.
"""

from __future__ import annotations

import time

from hookagent._errors import StoreError
from hookagent.durable._answers import Scope, answer_json
from hookagent.store._base import Store
from hookagent.store._records import QuestionRecord

__all__ = ["SCOPES", "StaleQuestion", "answer_question", "stale_reason"]

SCOPES: tuple[Scope, ...] = ("once", "run", "session")


class StaleQuestion(StoreError):
    """The question no longer takes an answer (see the module docstring); nothing was
    written."""


async def stale_reason(
    store: Store, question: QuestionRecord, seen: str | None = None
) -> str | None:
    """Why `question` takes no answer now, or None if its run waits on it."""
    if question.answer is not None:
        return f"question {question.id} was answered already"
    if seen is not None and seen != question.fingerprint:
        return (
            f"question {question.id} is about another call than the one reviewed "
            "(its fingerprint differs): look at it again"
        )
    run = await store.run(question.run_id)
    if run is None or run.status != "waiting":
        status = "gone" if run is None else run.status
        return f"run {question.run_id} no longer waits on question {question.id} ({status})"
    newer = [
        q
        for q in await store.questions(run.id, pending=False)
        if q.created_at > question.created_at
    ]
    if newer:
        return f"run {run.id} went past question {question.id} (it now waits on {newer[-1].id})"
    return None


async def answer_question(
    store: Store,
    question: QuestionRecord,
    *,
    approved: bool,
    scope: Scope = "once",
    reason: str | None = None,
    ttl: float | None = None,
    by: str,
    seen: str | None = None,
) -> QuestionRecord:
    """Record the answer to `question` and return the question with it; `StaleQuestion` if
    the run does not wait on it (or another answer got there first). `scope` and `ttl`
    matter for an approval only: a denial always reaches this question alone."""
    if scope not in SCOPES:
        raise StoreError(f"scope must be once, run or session, not {scope!r}")
    if ttl is not None and not ttl > 0:
        raise StoreError(f"ttl must be a positive number of seconds, not {ttl!r}")
    why = await stale_reason(store, question, seen)
    if why is not None:
        raise StaleQuestion(f"{why}; nothing was recorded ({store.url})")
    text = answer_json(approved, reason=reason, by=by, scope=scope, ttl=ttl)
    now = time.time()
    if not await store.answer(question.id, text, now):
        raise StaleQuestion(
            f"question {question.id} was answered already; nothing was recorded ({store.url})"
        )
    question.answer, question.answered_at = text, now
    return question
