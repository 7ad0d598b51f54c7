"""The `hookagent serve` application: the routes over one opened store (or, for runs, a
Temporal server), every error a problem, request bodies bounded; its OpenAPI schema at
`/openapi.json`."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path
from typing import TYPE_CHECKING, Final

from fastapi import FastAPI

from hookagent._errors import ConfigError
from hookagent.durable._lease import worker_name
from hookagent.server import _problems as problems
from hookagent.server._limits import BodyLimit
from hookagent.server._routes_audit import router as audit_router
from hookagent.server._routes_control import router as control_router
from hookagent.server._routes_inbox import router as inbox_router
from hookagent.server._routes_pages import router as pages_router
from hookagent.server._routes_runs import router as runs_router
from hookagent.server._source import RunSource, StoreSource
from hookagent.server._streams import router as streams_router
from hookagent.store._base import Store

if TYPE_CHECKING:
    from temporalio.client import Client

    from hookagent.capabilities.notify import Notify

__all__ = ["MAX_BODY", "POLL", "create_app"]

MAX_BODY: Final = 64 * 1024
"""Bytes a request body may have: an answer is a few hundred."""
POLL: Final = 0.5
"""Seconds between a live stream's reads of the store."""


def create_app(
    store: Store,
    *,
    max_body: int = MAX_BODY,
    poll: float = POLL,
    files_root: str | Path | None = None,
    notify: Notify | None = None,
    temporal: Client | None = None,
    task_queue: str | None = None,
) -> FastAPI:
    """The API over `store`, which the caller opens before serving and closes after; live
    streams read it every `poll` seconds. Requests may name files under `files_root` only
    (settings and plugins to replay under, audit files), and none without it. `notify` is
    told of the questions of the runs the server resumes.

    With `temporal`, the runs are those of that Temporal client's namespace (on
    `task_queue` only, if given: `server.temporal_source`), and `store` keeps the tokens
    only."""
    from importlib.metadata import version

    app = FastAPI(
        title="hookagent",
        version=version("hookagent"),
        description="Durable runs kept in a store: read them, and answer the questions "
        "paused runs wait on. Every endpoint but /health and /openapi.json needs a bearer "
        "token.",
        docs_url=None,  # the interactive pages load scripts from the network
        redoc_url=None,
    )
    app.state.store = store  # the tokens; the runs too, unless they are on Temporal
    app.state.runs = _source(store, temporal, task_queue)
    if temporal is not None and notify is not None:
        raise ConfigError("notify is for the runs the server resumes, none on Temporal")
    app.state.poll = poll
    app.state.session_key = secrets.token_bytes(32)  # a restart signs browsers out
    app.state.files_root = Path(files_root).resolve() if files_root is not None else None
    app.state.worker = worker_name()  # the lease holder of the runs it resumes
    app.state.tasks = set[asyncio.Task[None]]()
    app.state.notify = notify
    problems.install(app)
    app.add_middleware(BodyLimit, limit=max_body)

    @app.get("/health", summary="Whether the server is up (no token needed)")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    app.include_router(runs_router)
    app.include_router(inbox_router)
    app.include_router(control_router)
    app.include_router(audit_router)
    app.include_router(streams_router)
    app.include_router(pages_router)
    return app


def _source(store: Store, temporal: Client | None, task_queue: str | None) -> RunSource:
    if temporal is None:
        if task_queue is not None:
            raise ConfigError("a task queue is for runs on Temporal", key="task_queue")
        return StoreSource(store)
    from hookagent.server._temporal_source import TemporalSource

    return TemporalSource(temporal, temporal.service_client.config.target_host, task_queue)
