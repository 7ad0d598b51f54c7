"""A run's questions inside its workflow: asked, waited for on a durable timer, answered.

A question nobody's hooks answer waits in the workflow (`workflow.wait_condition` with the
question's timeout; a waiting workflow holds no worker) until an update answers it, with the
same JSON a store takes (`durable.answers.answer_json`: approved, reason, by, scope, ttl,
updated_args). With no answer in time, the question's default applies. An approval with
scope `run` covers later questions of the run with the same fingerprint (the tool, its
canonical arguments and the agent's policy version), for `ttl` seconds when given; one with
scope `session` covers them in the session's later runs too, which start with it (`inherited`).

The waiting questions and the session's approvals are also the workflow's memo (`questions`,
`approvals`), so that visibility lists them without a worker: an inbox reads the questions
there, and a session's next run its approvals.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any, Final, final

from temporalio import workflow

from hookagent.durable._answers import fingerprint, question_json
from hookagent.kernel._approval import Answer, Question

__all__ = ["MEMO_APPROVALS", "MEMO_QUESTIONS", "SCOPES", "Approval", "Questions"]

SCOPES: Final = ("once", "run", "session")
MEMO_QUESTIONS: Final = "questions"
MEMO_APPROVALS: Final = "approvals"
Approval = tuple[str, dict[str, Any], float]
"""An approval that reaches further than its question: fingerprint, answer, when given."""


@final
class Questions:
    """The questions of one run: pending, answered, and the approvals that reach further."""

    def __init__(
        self,
        policy_version: str,
        carried: Mapping[str, Any] | None = None,
        inherited: Sequence[Approval] = (),
    ) -> None:
        """`carried`: what `carried()` gave the workflow this run continued from;
        `inherited`: the approvals of scope session of the session's runs before."""
        self._policy = policy_version
        self.pending: dict[str, dict[str, Any]] = {}
        """By question id, each question waiting now (`question_json`, its id and when)."""
        self._answers: dict[str, dict[str, Any]] = {}
        given = (carried or {}).get("approvals", inherited)
        self._approvals: list[Approval] = [(mark, data, at) for mark, data, at in given]
        self._asked: int = (carried or {}).get("asked", 0)

    def carried(self) -> dict[str, Any]:
        """What the run's next workflow needs (it continues as new between turns, when no
        question waits): the approvals in scope and how many questions were asked."""
        return {"approvals": self._approvals, "asked": self._asked}

    def check(self, question_id: str, answer: Mapping[str, Any]) -> None:
        """Refuse an answer that cannot apply (an update's validator)."""
        if question_id not in self.pending:
            waiting = ", ".join(self.pending) or "none"
            raise ValueError(f"no question {question_id!r} waits in this run (waiting: {waiting})")
        if not isinstance(answer.get("approved"), bool):
            raise ValueError("an answer needs `approved`: true or false")
        scope = answer.get("scope", "once")
        if scope not in SCOPES:
            raise ValueError(f"scope {scope!r} is not one of {', '.join(SCOPES)}")
        seen = answer.get("fingerprint")
        if seen is not None and seen != self.pending[question_id]["fingerprint"]:
            raise ValueError(
                f"question {question_id!r} is about another call than the one answered "
                "(its fingerprint changed): read it again"
            )

    def answer(self, question_id: str, answer: Mapping[str, Any]) -> None:
        self.check(question_id, answer)
        self._answers[question_id] = dict(answer)

    async def settle(self, question: Question) -> Answer:
        """An approval in scope, or the answer someone gives, or the default in time."""
        mark = fingerprint(question, self._policy)
        covered = self._covered(mark)
        if covered is not None:
            return covered
        self._asked += 1
        ask_id = f"q{self._asked}"
        self.pending[ask_id] = {
            "id": ask_id,
            "asked_at": workflow.now().timestamp(),
            "fingerprint": mark,
            **json.loads(question_json(question)),
        }
        self._memo()
        timeout = timedelta(seconds=question.timeout) if question.timeout is not None else None
        try:
            await workflow.wait_condition(lambda: ask_id in self._answers, timeout=timeout)
        except TimeoutError:
            approved = question.default == "approve"
            why = f"no answer before the question expired; default {question.default}"
            return Answer(approved=approved, by="default", reason=why)
        finally:
            del self.pending[ask_id]
            self._memo()
        data = self._answers.pop(ask_id)
        scope = data.get("scope", "once")
        if data["approved"] and scope != "once":
            self._approvals.append((mark, data, workflow.now().timestamp()))
            if scope == "session":
                workflow.upsert_memo({MEMO_APPROVALS: self.session_approvals()})
        return _answer(data, f"question {ask_id}")

    def session_approvals(self) -> list[Approval]:
        """The approvals of scope session still in force: what the session's next run
        starts with (a denial never reaches further than its question)."""
        now = workflow.now().timestamp()
        return [a for a in self._approvals if a[1].get("scope") == "session" and _live(a, now)]

    def _memo(self) -> None:
        workflow.upsert_memo({MEMO_QUESTIONS: list(self.pending.values()) or None})

    def _covered(self, mark: str) -> Answer | None:
        now = workflow.now().timestamp()
        for approval in self._approvals:
            found, data, _ = approval
            if found == mark and _live(approval, now):
                return _answer(data, f"approval (scope {data.get('scope', 'run')})")
        return None


def _live(approval: Approval, now: float) -> bool:
    """Whether `approval` is in force at `now` (its `ttl` not past)."""
    ttl = approval[1].get("ttl")
    return ttl is None or approval[2] + float(ttl) > now


def _answer(data: Mapping[str, Any], via: str) -> Answer:
    return Answer(
        approved=bool(data["approved"]),
        reason=data.get("reason"),
        by=f"{data.get('by') or 'someone'} via {via}",
        updated_args=data.get("updated_args"),
    )
