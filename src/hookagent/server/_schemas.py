"""The shapes the API answers with, for its OpenAPI schema (and checked on the way out: a
key not declared here never leaves the server)."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from hookagent.sessions._replay import Change

__all__ = [
    "AnswerOut",
    "Answered",
    "ArgChange",
    "CallOut",
    "Forked",
    "PROBLEMS",
    "Page",
    "ProblemOut",
    "QuestionOut",
    "ReplayOut",
    "Resumed",
    "RunDetail",
    "RunOut",
    "SessionDetail",
    "SessionOut",
    "SessionRef",
    "Submitted",
    "VerifyOut",
    "problem",
]

T = TypeVar("T")


class Page(BaseModel, Generic[T]):
    """A page of a list; `next_offset` is where the next page starts (null after the last)."""

    items: list[T]
    limit: int
    offset: int
    next_offset: int | None


class SessionOut(BaseModel):
    id: str
    name: str | None
    status: str
    title: str
    created_at: float
    updated_at: float
    head_run_id: str | None
    forked_from: str | None


class SessionRef(BaseModel):
    id: str
    name: str | None
    title: str


class AnswerOut(BaseModel):
    approved: bool
    reason: str | None = None
    by: str | None = None
    """Who answered: `api:TOKEN-NAME` over HTTP, `cli:USER` from `hookagent approve`."""
    scope: str | None = None
    ttl: float | None = None
    updated_args: dict[str, Any] | None = None


class ArgChange(BaseModel):
    """One argument an earlier hook rewrote before the question was asked."""

    key: str
    before: Any = None
    after: Any = None
    change: str
    """`changed`, `added` (the model did not give it) or `removed` (a hook took it out)."""


class QuestionOut(BaseModel):
    id: str
    run_id: str
    session_id: str | None
    session: SessionRef | None = None
    hook: str | None
    point: str | None
    question: str | None
    """What the asking hook says: its reason for asking."""
    tool: str | None
    args: dict[str, Any] | None
    call_id: str | None
    step: int | None
    options: list[str]
    default: str | None
    """What the run does once the question expires unanswered."""
    created_at: float
    expires_at: float | None
    expired: bool
    fingerprint: str | None
    answer: AnswerOut | None
    answered_at: float | None
    original_args: dict[str, Any] | None = None
    """The arguments as the model gave them, where the inbox found the call (GET /inbox)."""
    rewritten: list[ArgChange] | None = None
    """What hooks before the asking one changed: `original_args` against `args` (empty
    when nothing; null where not looked up)."""


class RunOut(BaseModel):
    id: str
    session_id: str | None
    status: str
    created_at: float
    updated_at: float
    parent_run_id: str | None
    prompt: str | None
    policy_version: str
    output: Any = None
    stop_reason: str | None = None
    stop_message: str | None = None
    error: Any = None
    usage: dict[str, Any] | None = None
    started_at: float | None = None
    elapsed: float | None = None
    position: dict[str, Any] | None = None


class RunDetail(RunOut):
    questions: list[QuestionOut]
    """The questions the run waits on (none unless it is waiting)."""


class SessionDetail(BaseModel):
    session: SessionOut
    runs: list[RunOut]


class CallOut(BaseModel):
    call_id: str
    step: int
    name: str
    args: Any
    state: str
    result: Any
    updated_at: float


class Answered(BaseModel):
    question: QuestionOut
    resume: str


class Resumed(BaseModel):
    run: RunOut
    """The run as claimed: it resumes in the server, in the background."""
    events: str
    """Where to follow it live."""


class Forked(BaseModel):
    session: SessionOut


class Submitted(BaseModel):
    run: RunOut
    """The run written down as queued, for a `hookagent worker` to claim."""
    session: SessionOut


class ReplayOut(BaseModel):
    run_id: str
    changed: int
    decisions_before: int
    decisions_after: int
    changes: list[Change]


class VerifyOut(BaseModel):
    """An audit file's hash chain checked, as `hookagent audit verify --json` reports it."""

    path: str
    """As the request named it, relative to the server's files root."""
    ok: bool
    records: int
    first_bad_line: int | None
    problem: str | None
    head: str


class ProblemOut(BaseModel):
    """An error, as RFC 9457 shapes it (`application/problem+json`)."""

    type: str
    title: str
    status: int
    detail: str
    errors: list[dict[str, Any]] | None = None
    """For a 422: each field that is wrong (`where`) and what is wrong with it (`message`)."""


def problem(description: str) -> dict[str, Any]:
    return {
        "model": ProblemOut,
        "description": description,
        "content": {"application/problem+json": {}},
    }


PROBLEMS: dict[int | str, dict[str, Any]] = {
    401: problem("No bearer token, or one unknown or revoked."),
    403: problem("The token's role is too low."),
    404: problem("Nothing of that id."),
    422: problem("A query parameter or the body is not valid."),
    503: problem("The store failed."),
}
"""The errors every endpoint may answer with."""
