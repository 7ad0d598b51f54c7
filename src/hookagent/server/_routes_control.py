"""Moving kept runs on: resume a run, fork a session, queue a new run in a session, replay a
run under other hooks, through `durable.kept_runs` and `durable.sessions`, the code
`hookagent resume`, `sessions fork`, `submit` and `replay` run.

Roles: an approver resumes (the answers it waited on decide what it does next), forks
(nothing runs) and replays (nothing is written; the hooks are the run's own, or files the
operator put under `--files-root`); only an admin submits, which gives a session's agent new
work. A run resumes in the server, in the background, under a lease claimed before the
answer, as `hookagent worker` claims the runs it takes up: a 202 means the run is this
server's to run, a 409 that it is not runnable now (ended, waiting on a question, or held
by another's lease)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any, Final

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field

from hookagent._errors import ConfigError, StoreError
from hookagent.durable._sessions import fork as fork_session
from hookagent.server._auth import Approver, require
from hookagent.server._files import confined
from hookagent.server._problems import Problem, known
from hookagent.server._schemas import PROBLEMS, Forked, ReplayOut, Resumed, Submitted, problem
from hookagent.server._source import source_of
from hookagent.server._views import run_json, session_json
from hookagent.sessions import _kept_runs as kept_runs
from hookagent.store._base import Store
from hookagent.store._records import RunRecord, TokenRecord

if TYPE_CHECKING:
    from hookagent.capabilities.notify import Notify

__all__ = ["router"]

router = APIRouter(responses=PROBLEMS)
_LOG: Final = logging.getLogger("hookagent.server")
_CONFLICT: Final[dict[int | str, dict[str, Any]]] = {
    409: problem("The run or session is not in a state that allows it."),
    501: problem("The server reads runs on Temporal, which this is not offered for."),
}
_FILES: Final[dict[int | str, dict[str, Any]]] = {
    403: problem("The token's role is too low, or a file named is outside --files-root."),
    **_CONFLICT,
}


async def _run(store: Store, run_id: str) -> RunRecord:
    return known(await store.run(run_id), f"run {run_id!r}")


def _rebuildable(run: RunRecord) -> None:
    """409 unless the run saved the options its agent is rebuilt from."""
    from hookagent.sessions._agent_spec import options_of

    try:
        options_of(run)
    except ConfigError as exc:
        raise Problem(409, str(exc)) from None


@router.post(
    "/runs/{run_id}/resume",
    status_code=202,
    response_model=Resumed,
    summary="Resume a run in the server, in the background (approver)",
    responses=_CONFLICT,
)
async def resume(request: Request, caller: Approver, run_id: str) -> dict[str, Any]:
    store = source_of(request).kept("resuming a run (POST /runs/{id}/resume)")
    run = await _run(store, run_id)
    kept_runs.unended(run)
    _rebuildable(run)
    worker: str = request.app.state.worker
    claimed = await kept_runs.claim(store, run, worker)
    notify: Notify | None = request.app.state.notify
    task = asyncio.create_task(_resume(store, claimed, worker, f"api:{caller.name}", notify))
    tasks: set[asyncio.Task[None]] = request.app.state.tasks
    tasks.add(task)
    task.add_done_callback(tasks.discard)
    return {"run": run_json(claimed), "events": f"/runs/{run_id}/events"}


async def _resume(
    store: Store, run: RunRecord, worker: str, by: str, notify: Notify | None
) -> None:
    """The run taken up under the lease claimed for it, which is let go if it never got
    that far (releasing is a no-op once the resume claimed the run again)."""
    _LOG.info("run %s resumed by %s", run.id, by)
    try:
        result = await kept_runs.resume(store, run, worker=worker, notify=notify)
        _LOG.info("run %s resumed by %s: %s", run.id, by, result.status)
    except Exception as exc:  # the request has been answered: the log is where this goes
        _LOG.error("run %s resumed by %s failed: %s: %s", run.id, by, type(exc).__name__, exc)
    finally:
        with contextlib.suppress(StoreError):
            await store.release(run.id, worker, epoch=run.lease_epoch)


class ForkBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(
        None, min_length=1, max_length=200, description="The new session's name."
    )


@router.post(
    "/sessions/{key}/fork",
    status_code=201,
    response_model=Forked,
    summary="A new session starting with a session's conversation (approver)",
    responses=_CONFLICT,
)
async def fork(
    request: Request, _: Approver, key: str, body: ForkBody | None = None
) -> dict[str, Any]:
    store = source_of(request).kept("forking a session (POST /sessions/{id}/fork)")
    known(await store.session(key), f"session {key!r}")
    name = body.name if body is not None else None
    if name is not None and await store.session(name) is not None:
        raise Problem(409, f"a session named {name!r} exists already")
    return {"session": session_json(await fork_session(store, key, name))}


class SubmitBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    prompt: str = Field(min_length=1, description="What the session's agent is asked next.")


Admin = Annotated[TokenRecord, Depends(require("admin"))]


@router.post(
    "/sessions/{key}/runs",
    status_code=201,
    response_model=Submitted,
    summary="Queue a new run in a session, for a worker (admin)",
    responses=_CONFLICT,
)
async def submit(request: Request, _: Admin, key: str, body: SubmitBody) -> dict[str, Any]:
    """The run takes the options of the session's newest run: a request names no model,
    tool or hook of its own."""
    store = source_of(request).kept("queuing a run (POST /sessions/{id}/runs)")
    session = known(await store.session(key), f"session {key!r}")
    head = await store.run(session.head_run_id) if session.head_run_id else None
    if head is None:
        raise Problem(409, f"session {key!r} has no run whose agent a new run could take")
    _rebuildable(head)
    from hookagent.sessions._agent_spec import options_of

    options = replace(options_of(head), prompt=body.prompt, session=session.id)
    try:
        run_id, _label = await kept_runs.submit(store, options)
    except ConfigError as exc:
        raise Problem(409, f"the agent of session {key!r} cannot be built now: {exc}") from None
    queued, now = await store.run(run_id), await store.session(session.id)
    assert queued is not None and now is not None
    return {"run": run_json(queued), "session": session_json(now)}


class ReplayBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    settings: list[str] | None = Field(
        None,
        max_length=20,
        description="Claude Code settings files under the server's --files-root, in place "
        "of the run's own.",
    )
    plugins: list[str] | None = Field(
        None,
        max_length=20,
        description="Plugin files (.py) under the server's --files-root, in place of the "
        "run's own (a module name is refused: it would be imported from the server's path).",
    )


@router.post(
    "/runs/{run_id}/replay",
    response_model=ReplayOut,
    summary="A run's hooks again, its own or named ones: the decisions that changed (approver)",
    responses=_FILES,
)
async def replay(
    request: Request, _: Approver, run_id: str, body: ReplayBody | None = None
) -> dict[str, Any]:
    store = source_of(request).kept("replaying a run (POST /runs/{id}/replay)")
    run = await _run(store, run_id)
    _rebuildable(run)
    given = body or ReplayBody(settings=None, plugins=None)
    settings = _files(request, given.settings, "settings")
    plugins = _files(request, given.plugins, "plugin", suffix=".py")
    try:
        report = await kept_runs.replay_run(store, run, settings=settings, plugins=plugins)
    except ConfigError as exc:
        status = 409 if settings is None and plugins is None else 422
        detail = f"the hooks to replay run {run_id} under do not load: {exc}"
        raise Problem(status, detail) from None
    return report.to_dict()


def _files(
    request: Request, given: list[str] | None, what: str, *, suffix: str | None = None
) -> list[str] | None:
    if given is None:
        return None
    return [str(confined(request, name, what, suffix=suffix)) for name in given]
