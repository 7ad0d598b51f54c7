"""The inbox: the questions paused runs wait on, across every session, newest first (a
viewer's), and answering one (an approver's), through `durable.answering`, the
implementation `hookagent approve`/`deny` use: a stale question is refused with 409."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, Self

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field, model_validator

from hookagent.durable._answering import answer_question
from hookagent.server._auth import Approver, Viewer, store_of
from hookagent.server._problems import known
from hookagent.server._schemas import PROBLEMS, Answered, Page, QuestionOut, problem
from hookagent.server._views import Limit, Offset, arg_changes, given_args, page, question_json
from hookagent.store._base import Store

__all__ = ["AnswerBody", "pending", "router"]

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
    items, read = await pending(store_of(request), limit, offset, rewrites=True)
    return page(items, limit, offset, read=read)


async def pending(
    store: Store, limit: int, offset: int = 0, *, rewrites: bool = False
) -> tuple[list[dict[str, Any]], int]:
    """The questions runs wait on now, as the inbox shows them, with their sessions, in one
    read of the store (`Store.inbox`), and how many it read. `rewrites`: with each call's
    arguments as the model gave them and what earlier hooks changed in them (one more read
    per run asking about a call)."""
    found = await store.inbox(limit=limit, offset=offset)
    conversations: dict[str, Sequence[str]] = {}
    items = []
    for question, session in found:
        item = question_json(question, session)
        if rewrites:
            await with_rewrites(store, item, conversations)
        items.append(item)
    return items, len(found)


async def with_rewrites(
    store: Store, item: dict[str, Any], conversations: dict[str, Sequence[str]]
) -> None:
    """Add to a question about a call the arguments the model gave and what earlier hooks
    changed in them; `conversations` keeps each run's messages once read."""
    if item["call_id"] is None or not isinstance(item["args"], dict):
        return
    run_id = item["run_id"]
    if run_id not in conversations:
        rows = await store.rows(run_id)
        conversations[run_id] = rows.messages if rows is not None else ()
    given = given_args(conversations[run_id], item["call_id"])
    if given is not None:
        item["original_args"] = given
        item["rewritten"] = arg_changes(given, item["args"])


@router.get(
    "/questions/{question_id}", response_model=QuestionOut, summary="One question, answered or not"
)
async def question(request: Request, _: Viewer, question_id: str) -> dict[str, Any]:
    store = store_of(request)
    found = known(await store.question(question_id), f"question {question_id!r}")
    item = question_json(found, await store.session(found.session_id))
    await with_rewrites(store, item, {})
    return item


@router.post(
    "/questions/{question_id}/answer",
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
    store = store_of(request)
    found = known(await store.question(question_id), f"question {question_id!r}")
    given = await answer_question(
        store,
        found,
        approved=body.decision == "approve",
        scope=body.scope,
        reason=body.reason,
        ttl=body.ttl,
        by=f"api:{caller.name}",
        seen=body.fingerprint,
    )
    return {
        "question": question_json(given),
        "resume": f"hookagent resume {given.run_id} (or let `hookagent worker` take it)",
    }
