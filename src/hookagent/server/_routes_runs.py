"""Reading the store (a viewer's endpoints): sessions, a session with its runs, a run with
its open questions, and a run's messages, steps, tool calls and decision records.

Lists are pages by `limit` and `offset`; each says where the next one starts."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request

from hookagent.server._auth import Viewer, store_of
from hookagent.server._problems import Problem
from hookagent.server._schemas import PROBLEMS, CallOut, Page, RunDetail, SessionDetail, SessionOut
from hookagent.server._views import (
    Limit,
    Offset,
    call_json,
    page,
    question_json,
    run_json,
    session_json,
)
from hookagent.store._base import RunRows

__all__ = ["router"]

router = APIRouter(responses=PROBLEMS)
Status = Literal["idle", "queued", "running", "waiting", "completed", "failed", "stopped"]


@router.get(
    "/sessions",
    response_model=Page[SessionOut],
    summary="Sessions, the most recently updated first",
)
async def sessions(
    request: Request,
    _: Viewer,
    status: Annotated[Status | None, Query(description="Only sessions in this state.")] = None,
    search: Annotated[
        str | None, Query(max_length=200, description="Only sessions whose title or name holds it.")
    ] = None,
    limit: Limit = 50,
    offset: Offset = 0,
) -> dict[str, Any]:
    found = await store_of(request).find_sessions(
        status=status, search=search, limit=limit, offset=offset
    )
    return page([session_json(s) for s in found], limit, offset)


@router.get(
    "/sessions/{key}",
    response_model=SessionDetail,
    summary="A session (by id or name) and its runs, oldest first",
)
async def session(request: Request, _: Viewer, key: str) -> dict[str, Any]:
    store = store_of(request)
    found = await store.session(key)
    if found is None:
        raise Problem(404, f"no session {key!r}")
    return {
        "session": session_json(found),
        "runs": [run_json(r) for r in await store.runs(found.id)],
    }


@router.get(
    "/runs/{run_id}", response_model=RunDetail, summary="A run and the questions it waits on"
)
async def run(request: Request, _: Viewer, run_id: str) -> dict[str, Any]:
    store = store_of(request)
    found = await store.run(run_id)
    if found is None:
        raise Problem(404, f"no run {run_id!r}")
    waiting = await store.questions(run_id) if found.status == "waiting" else []
    return {**run_json(found), "questions": [question_json(q) for q in waiting]}


async def _rows(request: Request, run_id: str) -> RunRows:
    rows = await store_of(request).rows(run_id)
    if rows is None:
        raise Problem(404, f"no run {run_id!r}")
    return rows


def _json_page(texts: Any, limit: int, offset: int) -> dict[str, Any]:
    return page([json.loads(t) for t in list(texts)[offset : offset + limit]], limit, offset)


@router.get(
    "/runs/{run_id}/messages",
    response_model=Page[dict[str, Any]],
    summary="A run's conversation, oldest first",
)
async def messages(
    request: Request, _: Viewer, run_id: str, limit: Limit = 50, offset: Offset = 0
) -> dict[str, Any]:
    return _json_page((await _rows(request, run_id)).messages, limit, offset)


@router.get(
    "/runs/{run_id}/steps",
    response_model=Page[dict[str, Any]],
    summary="A run's finished steps, in order",
)
async def steps(
    request: Request, _: Viewer, run_id: str, limit: Limit = 50, offset: Offset = 0
) -> dict[str, Any]:
    return _json_page((await _rows(request, run_id)).steps, limit, offset)


@router.get(
    "/runs/{run_id}/decisions",
    response_model=Page[dict[str, Any]],
    summary="A run's decision records, in order",
)
async def decisions(
    request: Request, _: Viewer, run_id: str, limit: Limit = 50, offset: Offset = 0
) -> dict[str, Any]:
    return _json_page((await _rows(request, run_id)).decisions, limit, offset)


@router.get(
    "/runs/{run_id}/tool-calls",
    response_model=Page[CallOut],
    summary="A run's tool-call journal, in order",
)
async def tool_calls(
    request: Request, _: Viewer, run_id: str, limit: Limit = 50, offset: Offset = 0
) -> dict[str, Any]:
    calls = list((await _rows(request, run_id)).calls)[offset : offset + limit]
    return page([call_json(c) for c in calls], limit, offset)
