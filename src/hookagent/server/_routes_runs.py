"""Reading the store (a viewer's endpoints): sessions, a session with its runs, a run with
its open questions, and a run's messages, steps, tool calls and decision records.

Lists are pages by `limit` and `offset`; each says where the next one starts."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request

from hookagent.server._auth import Viewer, store_of
from hookagent.server._problems import known
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
    found = known(await store.session(key), f"session {key!r}")
    return {
        "session": session_json(found),
        "runs": [run_json(r) for r in await store.runs(found.id)],
    }


@router.get(
    "/runs/{run_id}", response_model=RunDetail, summary="A run and the questions it waits on"
)
async def run(request: Request, _: Viewer, run_id: str) -> dict[str, Any]:
    store = store_of(request)
    found = known(await store.run(run_id), f"run {run_id!r}")
    waiting = await store.questions(run_id) if found.status == "waiting" else []
    return {**run_json(found), "questions": [question_json(q) for q in waiting]}


def _table(table: str, item: Callable[[Any], Any]) -> Callable[..., Awaitable[dict[str, Any]]]:
    """The route that pages through one of a run's tables, each row shown by `item`."""

    async def route(
        request: Request, _: Viewer, run_id: str, limit: Limit = 50, offset: Offset = 0
    ) -> dict[str, Any]:
        rows = known(await store_of(request).rows(run_id), f"run {run_id!r}")
        chosen = list(getattr(rows, table))[offset : offset + limit]
        return page([item(row) for row in chosen], limit, offset)

    return route


for _path, _attr, _item, _model, _summary in (
    ("messages", "messages", json.loads, dict[str, Any], "A run's conversation, oldest first"),
    ("steps", "steps", json.loads, dict[str, Any], "A run's finished steps, in order"),
    ("decisions", "decisions", json.loads, dict[str, Any], "A run's decision records, in order"),
    ("tool-calls", "calls", call_json, CallOut, "A run's tool-call journal, in order"),
):
    router.add_api_route(
        f"/runs/{{run_id}}/{_path}",
        _table(_attr, _item),
        methods=["GET"],
        name=_path.replace("-", "_"),
        response_model=Page[_model],  # type: ignore[valid-type]
        summary=_summary,
    )
