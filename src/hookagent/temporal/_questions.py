"""A run's questions inside its workflow: asked, waited for on a durable timer, answered.

A question nobody's hooks answer waits in the workflow (`workflow.wait_condition` with the
question's timeout; a waiting workflow holds no worker) until an update answers it, with the
same JSON a store takes (`durable.answers.answer_json`: approved, reason, by, scope, ttl,
updated_args). With no answer in time, the question's default applies. An approval with
scope `run` covers later questions of the run with the same fingerprint (the tool, its
canonical arguments and the agent's policy version), for `ttl` seconds when given.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import timedelta
from typing import Any, Final, final

from temporalio import workflow

from hookagent.durable._answers import fingerprint, question_json
from hookagent.kernel._approval import Answer, Question

__all__ = ["Questions", "SCOPES"]

SCOPES: Final = ("once", "run")
"""Scopes an answer may have here. `session` needs sessions, which a run on Temporal does
not keep: an answer with it is refused, not narrowed."""


@final
class Questions:
    """The questions of one run: pending, answered, and the approvals that reach further."""

    def __init__(self, policy_version: str, carried: Mapping[str, Any] | None = None) -> None:
        """`carried`: what `carried()` gave the workflow this run continued from."""
        self._policy = policy_version
        self.pending: dict[str, dict[str, Any]] = {}
        """By question id, each question waiting now (`question_json`, its id and when)."""
        self._answers: dict[str, dict[str, Any]] = {}
        self._approvals: list[tuple[str, dict[str, Any], float]] = [
            (mark, data, at) for mark, data, at in (carried or {}).get("approvals", ())
        ]
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
            raise ValueError(f"scope {scope!r} is not one of {', '.join(SCOPES)} on Temporal")

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
            **json.loads(question_json(question)),
        }
        timeout = timedelta(seconds=question.timeout) if question.timeout is not None else None
        try:
            await workflow.wait_condition(lambda: ask_id in self._answers, timeout=timeout)
        except TimeoutError:
            approved = question.default == "approve"
            why = f"no answer before the question expired; default {question.default}"
            return Answer(approved=approved, by="default", reason=why)
        finally:
            del self.pending[ask_id]
        data = self._answers.pop(ask_id)
        if data["approved"] and data.get("scope", "once") == "run":
            self._approvals.append((mark, data, workflow.now().timestamp()))
        return _answer(data, f"question {ask_id}")

    def _covered(self, mark: str) -> Answer | None:
        now = workflow.now().timestamp()
        for approved, data, at in self._approvals:
            ttl = data.get("ttl")
            if approved == mark and (ttl is None or at + float(ttl) > now):
                return _answer(data, "approval (scope run)")
        return None


def _answer(data: Mapping[str, Any], via: str) -> Answer:
    return Answer(
        approved=bool(data["approved"]),
        reason=data.get("reason"),
        by=f"{data.get('by') or 'someone'} via {via}",
        updated_args=data.get("updated_args"),
    )
