"""Live streams (Server-Sent Events) over the store: a run's rows as they are recorded, and
the inbox's questions as they are asked, answered or expire.

Any process may write to the store (a `hookagent worker`, a `run` in a shell), so a stream
polls it every `poll_interval` seconds (`create_app(..., poll=...)`) rather than listening
to the process it serves in. A client leaving ends its stream at the next event or ping;
the server stopping ends every stream (sse-starlette watches uvicorn's exit)."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any, Final

import anyio
from fastapi import APIRouter, Header, Request
from sse_starlette import EventSourceResponse, ServerSentEvent

from hookagent.server._auth import Viewer
from hookagent.server._problems import Problem, known
from hookagent.server._schemas import PROBLEMS
from hookagent.server._source import RunSource, source_of
from hookagent.server._views import call_json, run_json
from hookagent.store._base import Store

__all__ = ["ENDED", "INBOX_WINDOW", "router"]

router = APIRouter(responses=PROBLEMS)
ENDED: Final = frozenset({"completed", "failed", "stopped"})
"""A run in one of these states has nothing more to record: its stream ends after it."""
_PING: Final = 15
INBOX_WINDOW: Final = 200
"""The newest waiting questions the inbox stream follows, and the inbox page shows: the same
count, so that a question the stream names is one the page shows (a page reloading for one
it leaves out would reload without end)."""


def _interval(request: Request) -> float:
    poll: float = request.app.state.poll
    return poll


def _response(
    follow: Callable[[anyio.Event], AsyncIterator[ServerSentEvent]], poll: float
) -> EventSourceResponse:
    """A stream of `follow`'s events; on shutdown `follow` sees its event set and ends the
    stream itself, so the response completes."""
    stopping = anyio.Event()
    return EventSourceResponse(
        follow(stopping), ping=_PING, shutdown_event=stopping, shutdown_grace_period=poll + 1
    )


async def _rest(stopping: anyio.Event, poll: float) -> bool:
    """Wait `poll` seconds; True if the server stops meanwhile."""
    with anyio.move_on_after(poll):
        await stopping.wait()
    return stopping.is_set()


def _event(kind: str, data: Any, event_id: str | None = None) -> ServerSentEvent:
    return ServerSentEvent(data=json.dumps(data, separators=(",", ":")), event=kind, id=event_id)


def _position(last_event_id: str | None) -> tuple[int, int, float]:
    """Where a reconnecting client stopped: `STEPS:DECISIONS:CALL-TIME`, the steps and
    decisions it has seen and the time of the last tool-call change."""
    if not last_event_id:
        return 0, 0, 0.0
    try:
        steps, decisions, calls = last_event_id.split(":")
        position = int(steps), int(decisions), float(calls)
    except ValueError:
        raise Problem(
            400,
            f"Last-Event-ID {last_event_id!r} is not an id of this stream "
            "(STEPS:DECISIONS:CALL-TIME); leave it out to start from the beginning",
        ) from None
    if min(position) < 0:
        raise Problem(400, f"Last-Event-ID {last_event_id!r} has a negative count")
    return position


@router.get(
    "/runs/{run_id}/events",
    summary="A run's steps, tool calls and decisions as they are recorded (Server-Sent Events)",
    response_class=EventSourceResponse,
    responses={200: {"content": {"text/event-stream": {}}}},
)
async def run_events(
    request: Request,
    _: Viewer,
    run_id: str,
    last_event_id: Annotated[str | None, Header(alias="Last-Event-ID")] = None,
) -> EventSourceResponse:
    """Events `status` (the run, on connecting and at each change), `step`, `decision` and
    `tool_call` (a call each time its state changes); `end` once the run is completed,
    failed or stopped, and the stream closes. Each event's id resumes after it."""
    store = source_of(request).kept("a run's live events (GET /runs/{id}/events)")
    known(await store.run(run_id), f"run {run_id!r}")
    start = _position(last_event_id)
    poll = _interval(request)
    return _response(lambda stopping: _follow_run(store, run_id, start, poll, stopping), poll)


async def _follow_run(
    store: Store, run_id: str, start: tuple[int, int, float], poll: float, stopping: anyio.Event
) -> AsyncIterator[ServerSentEvent]:
    steps, decisions, calls_at = start
    status: str | None = None
    while True:
        rows = await store.rows(run_id)
        if rows is None:
            return  # deleted while watched
        if status is None:  # what the client connects to comes first
            status = rows.run.status
            yield _event("status", run_json(rows.run), f"{steps}:{decisions}:{calls_at!r}")
        fresh = sorted(
            (c for c in rows.calls if c.updated_at > calls_at), key=lambda c: c.updated_at
        )
        for text in rows.steps[steps:]:
            steps += 1
            yield _event("step", json.loads(text), f"{steps}:{decisions}:{calls_at!r}")
        for call in fresh:
            calls_at = call.updated_at
            yield _event("tool_call", call_json(call), f"{steps}:{decisions}:{calls_at!r}")
        for text in rows.decisions[decisions:]:
            decisions += 1
            yield _event("decision", json.loads(text), f"{steps}:{decisions}:{calls_at!r}")
        if rows.run.status != status:
            status = rows.run.status
            yield _event("status", run_json(rows.run), f"{steps}:{decisions}:{calls_at!r}")
        if status in ENDED:
            yield _event("end", {"status": status})
            return
        if await _rest(stopping, poll):
            return


@router.get(
    "/inbox/events",
    summary="Questions as they are asked, answered or expire (Server-Sent Events)",
    response_class=EventSourceResponse,
    responses={200: {"content": {"text/event-stream": {}}}},
)
async def inbox_events(request: Request, _: Viewer) -> EventSourceResponse:
    """Events `asked` (each waiting question, those waiting on connecting first), `answered`
    (with its answer) and `expired` (unanswered past its expiry, or its run went past it),
    each a question as `GET /inbox` shows it. A client that reconnects gets the waiting
    questions again: the stream has no history to resume."""
    source = source_of(request)
    poll = _interval(request)
    return _response(lambda stopping: _follow_inbox(source, poll, stopping), poll)


async def _follow_inbox(
    source: RunSource, poll: float, stopping: anyio.Event
) -> AsyncIterator[ServerSentEvent]:
    shown: dict[str, dict[str, Any]] = {}
    expired: set[str] = set()
    count = 0
    while True:
        waiting, _ = await source.inbox(INBOX_WINDOW)
        now = time.time()
        for item in reversed(waiting):  # oldest first, as they were asked
            if item["id"] not in shown:
                shown[item["id"]] = item
                count += 1
                yield _event("asked", item, str(count))
            if item["id"] not in expired and (item["expires_at"] or now + 1) <= now:
                expired.add(item["id"])
                count += 1
                yield _event("expired", {**item, "expired": True}, str(count))
        current = {item["id"] for item in waiting}
        for question_id in [q for q in shown if q not in current]:
            item = shown.pop(question_id)
            answered = await source.settled(item)
            if answered is None and question_id in expired:
                expired.discard(question_id)
                continue
            expired.discard(question_id)
            count += 1
            if answered is not None:
                yield _event("answered", answered, str(count))
            else:
                yield _event("expired", {**item, "expired": True}, str(count))
        if await _rest(stopping, poll):
            return
