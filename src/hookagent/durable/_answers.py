"""Answers to a durable run's questions: from the journal, from an approval that still
applies, from the store once someone answered, or by pausing the run until someone does.

An approval is bound to what was reviewed: its **fingerprint** hashes the tool, its canonical
arguments and the run's policy version (the hooks it runs under), so a call whose arguments a
hook rewrote, or a run under other hooks, is not covered by it. Its **scope** says how far it
reaches: `once` (this question), `run` (calls with the same fingerprint in this run) or
`session` (in any run of the session), optionally for `ttl` seconds.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import TYPE_CHECKING, Any, Literal

from hookagent.durable import _codec as codec
from hookagent.durable._seam import Suspended
from hookagent.kernel._approval import Answer, Question
from hookagent.store._records import QuestionRecord

if TYPE_CHECKING:
    from hookagent.durable._journal import Durable

__all__ = ["Scope", "answer_json", "existing", "fingerprint", "question_json", "waiting"]

Scope = Literal["once", "run", "session"]


def fingerprint(question: Question, policy_version: str) -> str:
    if question.tool_name is not None:
        args = dict(question.args) if question.args is not None else {}
        return codec.digest("tool", question.tool_name, args, policy_version)
    return codec.digest(question.point, question.hook, question.question, policy_version)


def answer_json(
    approved: bool,
    *,
    reason: str | None = None,
    by: str = "cli",
    scope: Scope = "once",
    ttl: float | None = None,
    updated_args: dict[str, Any] | None = None,
) -> str:
    return json.dumps(
        {
            "approved": approved,
            "reason": reason,
            "by": by,
            "scope": scope,
            "ttl": ttl,
            "updated_args": updated_args,
        }
    )


async def existing(durable: Durable, question: Question, key: str) -> Answer | None:
    """An answer that already exists: to this very question, or an approval in scope."""
    now = time.time()
    mark = fingerprint(question, durable.policy_version)
    for record in await durable.store.questions(durable.run_id, pending=False):
        if record.key != key or record.run_id != durable.run_id:
            continue
        if record.answer is not None:
            if record.fingerprint == mark:
                return _decode(record, f"question {record.id}")
            continue  # answered for other arguments or other hooks: ask again
        if record.expires_at is not None and record.expires_at <= now:
            approved = question.default == "approve"
            why = f"no answer before the question expired; default {question.default}"
            return Answer(approved=approved, by="default", reason=why)
        raise Suspended(record)  # still waiting
    for record in await durable.store.approvals(durable.session_id, mark):
        data = json.loads(record.answer or "{}")
        scope, ttl = data.get("scope", "once"), data.get("ttl")
        if not data.get("approved") or scope == "once":
            continue
        if scope == "run" and record.run_id != durable.run_id:
            continue
        if ttl is not None and (record.answered_at or 0.0) + float(ttl) <= now:
            continue
        return _decode(record, f"approval {record.id} (scope {scope})")
    return None


def waiting(durable: Durable, question: Question, key: str) -> QuestionRecord:
    """The record of a question that waits for someone."""
    now = time.time()
    return QuestionRecord(
        id=uuid.uuid4().hex[:12],
        run_id=durable.run_id,
        session_id=durable.session_id,
        key=key,
        data=question_json(question),
        fingerprint=fingerprint(question, durable.policy_version),
        created_at=now,
        expires_at=now + question.timeout if question.timeout is not None else None,
    )


def _decode(record: QuestionRecord, by: str) -> Answer:
    data = json.loads(record.answer or "{}")
    return Answer(
        approved=bool(data.get("approved")),
        reason=data.get("reason"),
        by=f"{data.get('by') or 'someone'} via {by}",
        updated_args=data.get("updated_args"),
    )


def question_json(question: Question) -> str:
    return json.dumps(
        {
            "point": question.point,
            "hook": question.hook,
            "question": question.question,
            "options": list(question.options),
            "step": question.step,
            "call_id": question.call_id,
            "tool_name": question.tool_name,
            "args": dict(question.args) if question.args is not None else None,
            "timeout": question.timeout,
            "default": question.default,
        },
        default=repr,
    )
