"""Reading runs (a viewer's endpoints), from the server's `RunSource`: sessions, a session
with its runs, a run with its open questions, and a run's messages, steps, tool calls and
decision records.

Lists are pages by `limit` and `offset`; each says where the next one starts."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request

from hookagent.server._auth import Viewer
from hookagent.server._problems import known
from hookagent.server._schemas import PROBLEMS, CallOut, Page, RunDetail, SessionDetail, SessionOut
from hookagent.server._source import Table, source_of
from hookagent.server._views import Limit, Offset, page

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
    found = await source_of(request).sessions(status, search, limit, offset)
    return page(found, limit, offset)


@router.get(
    "/sessions/{key}",
    response_model=SessionDetail,
    summary="A session (by id or name) and its runs, oldest first",
)
async def session(request: Request, _: Viewer, key: str) -> dict[str, Any]:
    return known(await source_of(request).session(key), f"session {key!r}")


@router.get(
    "/runs/{run_id}", response_model=RunDetail, summary="A run and the questions it waits on"
)
async def run(request: Request, _: Viewer, run_id: str) -> dict[str, Any]:
    return known(await source_of(request).run(run_id), f"run {run_id!r}")


def _table(table: Table) -> Callable[..., Awaitable[dict[str, Any]]]:
    """The route that pages through one of a run's tables."""

    async def route(
        request: Request, _: Viewer, run_id: str, limit: Limit = 50, offset: Offset = 0
    ) -> dict[str, Any]:
        rows = await source_of(request).rows(run_id, table, limit, offset)
        return page(known(rows, f"run {run_id!r}"), limit, offset)

    return route


_TABLES: tuple[tuple[Table, Any, str], ...] = (
    ("messages", dict[str, Any], "A run's conversation, oldest first"),
    ("steps", dict[str, Any], "A run's finished steps, in order"),
    ("decisions", dict[str, Any], "A run's decision records, in order"),
    ("tool-calls", CallOut, "A run's tool-call journal, in order"),
)
for _path, _model, _summary in _TABLES:
    router.add_api_route(
        f"/runs/{{run_id}}/{_path}",
        _table(_path),
        methods=["GET"],
        name=_path.replace("-", "_"),
        response_model=Page[_model],  # type: ignore[valid-type]
        summary=_summary,
    )
