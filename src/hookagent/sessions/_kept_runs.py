"""A run kept in a store, taken up again, replayed or continued by the agent it was started
with, rebuilt from the options `hookagent run` saved with it (`cli.agent_spec`): the one
implementation behind `hookagent resume`, `replay` and `submit` and `hookagent serve`'s
endpoints for them, so a run does the same whichever of them moves it on.

What a run's state does not allow is a `WrongState`, raised before anything is written.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from hookagent.durable._lease import lease_seconds, refusal
from hookagent.durable._sessions import UNFINISHED, WrongState

if TYPE_CHECKING:
    from hookagent._agent import Agent
    from hookagent.capabilities.notify import Notify
    from hookagent.kernel._result import RunResult
    from hookagent.live._events import StreamEvent
    from hookagent.sessions._agent_spec import RunOptions
    from hookagent.sessions._replay import ReplayReport
    from hookagent.store._base import Store
    from hookagent.store._records import RunRecord

__all__ = [
    "ENDED",
    "UNFINISHED",
    "Watch",
    "WrongState",
    "claim",
    "rebuilt",
    "replay_run",
    "resume",
    "submit",
    "unended",
    "unfinished_head",
]

ENDED: Final = ("completed", "failed", "stopped")

Watch: TypeAlias = "Callable[[AsyncIterator[StreamEvent]], Awaitable[RunResult[Any]]]"
"""What shows a resumed run's events as they come: the result they ended with."""


def unended(run: RunRecord) -> None:
    """`WrongState` if `run` has ended: an ended run is never taken up again."""
    if run.status in ENDED:
        raise WrongState(f"run {run.id} has ended ({run.status}); nothing to resume")


async def unfinished_head(store: Store, key: str) -> RunRecord | None:
    """The newest run of session `key` if it has not ended: the session takes no new run
    (and is not forked) until it has."""
    session = await store.session(key)
    if session is None or session.head_run_id is None:
        return None
    head = await store.run(session.head_run_id)
    return head if head is not None and head.status in UNFINISHED else None


@asynccontextmanager
async def rebuilt(
    run: RunRecord,
    store: Store | None = None,
    *,
    settings: Sequence[str] | None = None,
    plugins: Sequence[str] | None = None,
    notify: Notify | None = None,
) -> AsyncIterator[Agent]:
    """The agent `run` was started with (kept in `store` if given), its MCP servers
    connected for the block; `settings` and `plugins`, if given, replace the run's own;
    `notify` (never saved with a run: a process's own) is told of its questions. A
    `ConfigError` if the run saved no options or they no longer build an agent."""
    from hookagent.sessions._agent_spec import connected_agent, options_of

    options = options_of(run)
    if notify is not None:
        options = replace(options, notify=notify)
    if settings is not None:
        options = replace(options, settings=tuple(settings))
    if plugins is not None:
        options = replace(options, plugins=tuple(plugins))
    async with connected_agent(options, store) as (agent, _):
        yield agent


async def resume(
    store: Store,
    run: RunRecord,
    *,
    worker: str | None = None,
    force: bool = False,
    notify: Notify | None = None,
    watch: Watch | None = None,
    deltas: bool = True,
) -> RunResult[Any]:
    """Take `run` up where its last checkpoint left it, under `worker`'s lease (this
    process's by default); see `Agent.resume` for `force`. `notify` is told of each
    question it asks from here. `watch`: the run is streamed (`Agent.stream_resume`, with
    model deltas if `deltas`) and `watch` gets its events, returning the result they ended
    with."""
    unended(run)
    async with rebuilt(run, store, notify=notify) as agent:
        if watch is None:
            return await agent.resume(run.id, worker=worker, force=force)
        return await watch(agent.stream_resume(run.id, worker=worker, force=force, deltas=deltas))


async def claim(store: Store, run: RunRecord, worker: str) -> RunRecord:
    """Claim `run` for `worker` now, as `hookagent worker` claims the runs it takes up, so
    that whoever resumes it next under that name is the only one to; `WrongState` saying
    why not (ended, waiting on a question, or held by another's lease)."""
    unended(run)
    claimed = await store.claim_run(run.id, worker, time.time(), lease_seconds())
    if claimed is None:
        now = await store.run(run.id) or run
        raise WrongState(refusal(now, time.time(), force=False))
    return claimed


async def replay_run(
    store: Store,
    run: RunRecord,
    *,
    settings: Sequence[str] | None = None,
    plugins: Sequence[str] | None = None,
) -> ReplayReport:
    """`run`'s recording through the hooks of its own agent, or of `settings` and
    `plugins` in place of its own: the decisions that changed (see `durable.replay`)."""
    from hookagent.sessions._replay import load_recording, replay

    async with rebuilt(run, settings=settings, plugins=plugins) as agent:
        return await replay(await load_recording(store, run.id), agent)


async def submit(store: Store, options: RunOptions) -> tuple[str, str]:
    """A run of `options.prompt` written down as queued in session `options.session`, its
    options saved for the worker that claims it; its id and its session's name (or id).
    The agent is built first, so options that build none are refused now (`ConfigError`),
    not when a worker takes the run up."""
    from hookagent.sessions._agent_spec import CLI_KEY, connected_agent, saved_options
    from hookagent.sessions._session_script import continued_script

    if options.session is not None and (head := await unfinished_head(store, options.session)):
        raise WrongState(
            f"session {options.session} has a run that is not finished ({head.id}, "
            f"{head.status}): resume or answer it first"
        )
    queued = await continued_script(store, options)
    metadata = {CLI_KEY: saved_options(queued)}
    async with connected_agent(queued, store) as (agent, _):  # its MCP servers checked
        run_id = await agent.submit(options.prompt, session=options.session, metadata=metadata)
    run = await store.run(run_id)
    session = await store.session(run.session_id) if run is not None else None
    return run_id, (session.name or session.id) if session is not None else ""
