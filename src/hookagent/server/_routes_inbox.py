"""The inbox: the questions paused runs wait on, across every session, newest first (a
viewer's), and answering one (an approver's), through the server's `RunSource`: on a store
`durable.answering`, the implementation `hookagent approve`/`deny` use; on Temporal the
run's `answer` update. A stale question is refused with 409."""

from __future__ import annotations

from typing import Any, Literal, Self

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field, model_validator

from hookagent.server._auth import Approver, Viewer
from hookagent.server._problems import known
from hookagent.server._schemas import PROBLEMS, Answered, Page, QuestionOut, problem
from hookagent.server._source import Reply, source_of
from hookagent.server._views import Limit, Offset, page

__all__ = ["AnswerBody", "router"]

router = APIRouter(responses=PROBLEMS)


class AnswerBody(BaseModel):
    """An answer to one question."""

    model_config = ConfigDict(extra="forbid")

    decision: Literal["approve", "deny"]
    scope: Literal["once", "run", "session"] = Field(
        "once",
        description="How far an approval reaches: this question, the same call (tool and "
        "arguments) again in this run, or in any run of the session.",
    )
    ttl: float | None = Field(
        None, gt=0, allow_inf_nan=False, description="Seconds after which the approval lapses."
    )
    reason: str | None = Field(None, max_length=4000, description="Why; the model reads it.")
    fingerprint: str | None = Field(
        None,
        max_length=200,
        description="The question's fingerprint as the answerer saw it (from the inbox): if "
        "the question is about another call now, the answer is refused with 409.",
    )

    @model_validator(mode="after")
    def _denial_reaches_one_question(self) -> Self:
        if self.decision == "deny" and (self.scope != "once" or self.ttl is not None):
            raise ValueError("a denial answers this question only: leave scope and ttl out")
        return self


@router.get(
    "/inbox",
    response_model=Page[QuestionOut],
    summary="The questions paused runs wait on, newest first",
)
async def inbox(
    request: Request, _: Viewer, limit: Limit = 50, offset: Offset = 0
) -> dict[str, Any]:
    items, read = await source_of(request).inbox(limit, offset, rewrites=True)
    return page(items, limit, offset, read=read)


@router.get(
    "/questions/{question_id:path}",
    response_model=QuestionOut,
    summary="One question, answered or not",
)
async def question(request: Request, _: Viewer, question_id: str) -> dict[str, Any]:
    return known(await source_of(request).question(question_id), f"question {question_id!r}")


@router.post(
    "/questions/{question_id:path}/answer",
    response_model=Answered,
    summary="Approve or deny a question",
    responses={
        409: problem("The question is stale: its run does not wait on it."),
        413: problem("The body is larger than the server takes."),
    },
)
async def answer(
    request: Request, caller: Approver, question_id: str, body: AnswerBody
) -> dict[str, Any]:
    reply = Reply(
        approved=body.decision == "approve",
        scope=body.scope,
        reason=body.reason,
        ttl=body.ttl,
        by=f"api:{caller.name}",
        seen=body.fingerprint,
    )
    given, resume = await source_of(request).answer(question_id, reply)
    return {"question": given, "resume": resume}
