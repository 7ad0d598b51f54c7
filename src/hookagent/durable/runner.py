"""Durable runs of an agent: start one in a session, or take one up again from the store.

A run holds a **lease** on itself while it executes, renewed in the background, so that a
worker that dies lets another take the run over once the lease has run out. A session is a
line of runs: a new message continues the newest run's conversation in a new run.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import time
import uuid
from collections.abc import AsyncIterator
from typing import final

from hookagent.durable import codec
from hookagent.durable.journal import Durable, scalars_of
from hookagent.durable.restore import restore
from hookagent.errors import StoreError
from hookagent.kernel.state import RunState
from hookagent.messages import Message
from hookagent.store.base import RunRows, Store
from hookagent.store.records import Checkpoint, RunRecord, SessionRecord

__all__ = ["DurableRuns", "lease_seconds", "worker_name"]

LEASE: float = 60.0
"""The default lease, in seconds."""


def lease_seconds() -> float:
    """Seconds a run's lease lasts (`HOOKAGENT_LEASE_SECONDS`, default 60); it is renewed
    every third of that while the run executes. A run whose worker died can be taken over
    once its lease has run out."""
    return float(os.environ.get("HOOKAGENT_LEASE_SECONDS") or LEASE)


def worker_name() -> str:
    """`HOOKAGENT_WORKER` if set (a restarted worker under the same name takes its runs
    back at once), else host, process and a random part."""
    return os.environ.get("HOOKAGENT_WORKER") or (
        f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
    )


@final
class DurableRuns:
    def __init__(self, store: Store, policy_version: str, *, worker: str | None = None) -> None:
        self.store = store
        self.policy_version = policy_version
        self.worker = worker or worker_name()
        self._opened = False

    async def _open(self) -> None:
        if not self._opened:
            await self.store.open()
            self._opened = True

    async def start(
        self,
        prompt: str,
        state: RunState,
        session_key: str | None,
        *,
        queued: bool = False,
    ) -> Durable:
        """A new run in the session named `session_key` (created if it does not exist; a
        new session with a generated name if None), continuing its conversation. A `queued`
        run is only written down, for a worker to claim."""
        await self._open()
        now = time.time()
        session = await self.store.session(session_key) if session_key else None
        if session is None:
            session = SessionRecord(
                id=uuid.uuid4().hex[:12], name=session_key, created_at=now, updated_at=now
            )
            await self.store.create_session(session)
        elif session.head_run_id is not None:
            head = await self.store.load(session.head_run_id)
            if head is not None and head.run.status in ("running", "waiting", "queued"):
                raise StoreError(
                    f"session {session.name or session.id} has a run that is not finished "
                    f"({head.run.id}, {head.run.status}): resume or answer it first"
                )
            if head is not None:
                state.messages.extend(_final_messages(head))
        state.session_id = session.id
        await self.store.create_run(
            RunRecord(
                id=state.run_id,
                session_id=session.id,
                status="queued" if queued else "running",
                created_at=now,
                updated_at=now,
                parent_run_id=state.parent_run_id,
                prompt=prompt,
                scalars=scalars_of(state, 0),
                lease_owner=None if queued else self.worker,
                lease_until=0.0 if queued else now + lease_seconds(),
                policy_version=self.policy_version,
            )
        )
        durable = Durable(
            self.store,
            run_id=state.run_id,
            session_id=session.id,
            policy_version=self.policy_version,
            worker=self.worker,
        )
        await durable.begin(state, "queued" if queued else "running")
        return durable

    async def reopen(
        self, key: str, *, worker: str | None = None
    ) -> tuple[RunState, Durable, str | None]:
        """The run `key` (a run id, or a session whose newest run it is), claimed for
        `worker` (this process by default), its state at its last checkpoint, and its
        prompt."""
        await self._open()
        run = await self.store.run(key)
        if run is None:
            session = await self.store.session(key)
            if session is None or session.head_run_id is None:
                raise StoreError(f"no run or session {key!r} in {self.store.url}")
            run = await self.store.run(session.head_run_id)
            if run is None:
                raise StoreError(f"session {key!r} names a run that is missing ({self.store.url})")
        if run.status in ("completed", "failed", "stopped"):
            raise StoreError(f"run {run.id} has ended ({run.status}); nothing to resume")
        owner = worker or self.worker
        claimed = await self.store.claim(owner, time.time(), lease_seconds(), run_id=run.id)
        if claimed is None:
            now = await self.store.run(run.id) or run  # as it stands after the lost claim
            raise StoreError(_why_not(now, time.time()))
        rows = await self.store.load(run.id)
        if rows is None:
            raise StoreError(f"run {run.id} vanished from {self.store.url}")
        state = restore(rows)
        point = rows.run.checkpoint or Checkpoint(segment=0, messages=0, steps=0, decisions=0)
        durable = Durable(
            self.store,
            run_id=run.id,
            session_id=run.session_id,
            policy_version=self.policy_version,
            segment=point.segment,
            replay=list(rows.journal),
            calls=list(rows.calls),
            flushed=point,
            worker=owner,
        )
        return state, durable, run.prompt

    @contextlib.asynccontextmanager
    async def leased(self, durable: Durable) -> AsyncIterator[None]:
        """Renew the run's lease while the body runs; release it after."""

        async def renew() -> None:
            while True:
                lease = lease_seconds()
                await asyncio.sleep(lease / 3)
                await self.store.renew(durable.run_id, durable.worker, time.time(), lease)

        task = asyncio.create_task(renew())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            await self.store.release(durable.run_id, durable.worker)


def _final_messages(rows: RunRows) -> list[Message]:
    """A finished run's conversation: its last checkpoint (before execution_end) has it all."""
    return [codec.load("message", m) for m in rows.messages]


def _why_not(run: RunRecord, now: float) -> str:
    if run.status in ("completed", "failed", "stopped"):
        return f"run {run.id} has ended ({run.status}); nothing to resume"
    if run.lease_owner is not None and run.lease_until > now:
        return (
            f"run {run.id} is being run by {run.lease_owner} (lease for another "
            f"{run.lease_until - now:.0f} s)"
        )
    if run.status == "waiting":
        return f"run {run.id} is waiting for an answer: approve or deny its question first"
    return f"run {run.id} cannot be resumed now ({run.status})"
