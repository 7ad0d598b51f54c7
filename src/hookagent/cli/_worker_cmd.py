"""`hookagent worker`'s loop: take up every runnable run of the store (answered, queued, or
orphaned by a worker that died), one after another.

Each run's agent is rebuilt from the options `hookagent run` saved with it (see `agent_spec`),
so the worker can only take up runs that `hookagent run` started; the others are held aside
(see `work`), never retried in a tight loop. A worker whose lease on a run was lost (it was
frozen or cut off past its lease, and the run was taken over) stops at once: `LeaseLost`.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import typer

from hookagent._errors import ConfigError, LeaseLost, StoreError
from hookagent.cli._notify_option import notified, notifier
from hookagent.cli._session_views import short
from hookagent.cli._store_access import open_at
from hookagent.durable._runner import lease_seconds, worker_name
from hookagent.sessions._agent_spec import connected_agent, options_of
from hookagent.store._base import Store
from hookagent.store._records import RunRecord

if TYPE_CHECKING:
    from hookagent.capabilities.notify import Delivery, Notify

__all__ = ["run_worker", "work"]


Log = Callable[..., None]
"""Reports one thing the worker did: `log(event, text, **fields)`."""


def run_worker(
    store_url: str | None,
    *,
    poll: float,
    once: bool,
    max_runs: int | None,
    json_output: bool = False,
    notify: tuple[tuple[str, ...], str | None] = ((), None),
) -> int:
    """The worker on the store at `store_url` until it is told to stop (or Ctrl-C); exit 0.
    `json_output`: each line is one JSON object (`time`, `event`, and the event's fields).
    `notify`: the `--notify` webhooks and `--notify-inbox` page; a message that failed for
    good is logged as a `notify_failed` event."""
    log = _json_line if json_output else _text_line
    notice = notifier(*notify, lambda failed: _failed(log, failed))
    opened = open_at(store_url)
    try:
        asyncio.run(work(opened, poll=poll, once=once, max_runs=max_runs, log=log, notify=notice))
    except KeyboardInterrupt:
        log("stopped", "worker stopped")
    return 0


async def work(
    store: Store,
    *,
    poll: float,
    once: bool,
    max_runs: int | None,
    log: Log | None = None,
    notify: Notify | None = None,
) -> None:
    """Claim, rebuild, resume, until told to stop. A run that cannot be rebuilt or resumed is
    held (its lease kept, under a name this worker then stops claiming with) until nothing
    else is runnable, then released: it neither blocks the runs behind it nor is retried in
    a tight loop; its reason is logged once. `notify`: told of every question a run asks;
    its messages go out while the worker goes on, and are waited for before it stops."""
    await store.open()
    base = worker_name()
    name, serial, handled = base, 0, 0
    held: list[tuple[str, str, int]] = []  # (run id, the name holding it, its epoch)
    skipped: set[str] = set()
    reported: dict[str, str] = {}
    log = log or _text_line
    log("started", f"worker {base} on {store.url}", worker=base, store=store.url)
    try:
        while max_runs is None or handled < max_runs:
            run = await store.claim(name, time.time(), lease_seconds())
            if run is None or run.id in skipped:
                if run is not None:  # a broken run again: hold it too, look further
                    held.append((run.id, name, run.lease_epoch))
                    serial += 1
                    name = f"{base}/{serial}"
                    continue
                for run_id, owner, epoch in held:
                    await store.release(run_id, owner, epoch=epoch)
                held.clear()
                skipped.clear()
                if once:
                    break
                await asyncio.sleep(poll)
                continue
            label = await _session_label(store, run)
            problem = await _take_up(store, run, name, label, log, notify)
            if problem is None:
                handled += 1
                continue
            if reported.get(run.id) != problem:
                log(
                    "skipped",
                    f"run {run.id} · session {label} · skipped: {problem}",
                    run_id=run.id,
                    session=label,
                    problem=problem,
                )
                reported[run.id] = problem
            held.append((run.id, name, await _epoch(store, run, name)))
            skipped.add(run.id)
            serial += 1
            name = f"{base}/{serial}"
    finally:
        for run_id, owner, epoch in held:
            await store.release(run_id, owner, epoch=epoch)
        await notified(notify)
        await store.close()


async def _take_up(
    store: Store, run: RunRecord, name: str, label: str, log: Log, notify: Notify | None
) -> str | None:
    """Resume `run` under `name`; what went wrong if it could not be."""
    try:
        async with connected_agent(replace(options_of(run), notify=notify), store) as (agent, _):
            try:
                result = await agent.resume(run.id, worker=name)
            except LeaseLost:
                raise  # this worker was frozen or cut off: it must not go on with anything
            except Exception as exc:  # a worker outlives any one run
                return f"{type(exc).__name__}: {exc}"
    except LeaseLost:
        raise
    except (ConfigError, StoreError) as exc:  # its agent could not be rebuilt
        return str(exc)
    status: str = result.status
    if status == "waiting":
        status += " (asked again: approve or deny it)"
    elif result.error:
        status += f" ({short(result.error)})"
    log(
        "run",
        f"run {run.id} · session {label} · {status}",
        run_id=run.id,
        session=label,
        status=result.status,
        stop_reason=result.stop_reason,
        error=result.error,
    )
    return None


async def _epoch(store: Store, run: RunRecord, name: str) -> int:
    """The epoch `name` holds `run` at now: a failed resume may have claimed it again."""
    now = await store.run(run.id)
    return now.lease_epoch if now is not None and now.lease_owner == name else run.lease_epoch


async def _session_label(store: Store, run: RunRecord) -> str:
    session = await store.session(run.session_id)
    return session.name or session.id if session is not None else run.session_id


def _failed(log: Log, failed: Delivery) -> None:
    log(
        "notify_failed",
        str(failed),
        run_id=failed.run_id,
        question_id=failed.question_id,
        url=failed.url,
        attempts=failed.attempts,
        error=failed.error,
    )


def _text_line(event: str, text: str, **fields: Any) -> None:
    typer.echo(f"{time.strftime('%H:%M:%S')} {text}")


def _json_line(event: str, text: str, **fields: Any) -> None:
    """JSON Lines: a worker runs on, so each event is a document of its own."""
    data = {"time": time.time(), "event": event, **fields}
    typer.echo(json.dumps(data, default=str, ensure_ascii=False))
