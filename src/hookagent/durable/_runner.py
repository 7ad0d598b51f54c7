"""Durable runs of an agent: start one in a session, or take one up again from the store.

A run holds a **lease** on itself while it executes, so that a worker that dies lets another
take the run over once the lease has run out. The lease is renewed at every barrier and in
the background (from a thread while the run holds its event loop); each claim gives it a
new epoch, which every write is fenced on (see `Durable`). A session is a line of runs: a
new message continues the newest run's conversation in a new run.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator
from typing import final

from hookagent._errors import ConfigError, StoreError
from hookagent._messages import Message
from hookagent.durable import _codec as codec
from hookagent.durable._journal import Durable, scalars_of
from hookagent.durable._lease import holder_state, lease_seconds, refusal, worker_name
from hookagent.durable._loop_free import LoopFreeRenewal, Reopens
from hookagent.durable._restore import restore
from hookagent.kernel._state import RunState
from hookagent.store._base import RunRows, Store
from hookagent.store._records import RunRecord, SessionRecord

__all__ = ["DurableRuns", "lease_seconds", "worker_name"]


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
        clear: bool = False,
    ) -> Durable:
        """A new run in the session named `session_key` (created if it does not exist; a
        new session with a generated name if None), continuing its conversation, or with
        `clear` starting it afresh. A `queued` run is only written down, for a worker to
        claim."""
        if clear and not session_key:
            raise ConfigError(
                "clear=True starts a session's conversation afresh: name the session "
                "(session=NAME, --session NAME)",
                key="clear",
            )
        lease = lease_seconds()
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
            if head is not None and not clear:
                state.messages.extend(_final_messages(head))
        state.session_id = session.id
        record = RunRecord(
            id=state.run_id,
            session_id=session.id,
            status="queued" if queued else "running",
            created_at=now,
            updated_at=now,
            parent_run_id=state.parent_run_id,
            prompt=prompt,
            scalars=scalars_of(state, 0),
            lease_owner=self.worker,
            lease_until=now + lease,
            lease_epoch=1,
            policy_version=self.policy_version,
        )
        await self.store.create_run(record)
        durable = Durable(self.store, record, lease=lease)
        await durable.begin(state, "queued" if queued else "running")
        if queued:  # held only while it was written down: a worker may claim it now
            await self.store.release(state.run_id, self.worker, epoch=1)
        return durable

    async def reopen(
        self, key: str, *, worker: str | None = None, force: bool = False
    ) -> tuple[RunState, Durable, str | None]:
        """The run `key` (a run id, or a session whose newest run it is), claimed for
        `worker` (this process by default), its state at its last checkpoint, and its
        prompt. With `force`, a run whose lease has not run out is taken over all the same
        if its holder is provably gone (see `lease`); otherwise the error says who holds it
        and for how long."""
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
        owner, lease = worker or self.worker, lease_seconds()
        claimed = await self._claim(run, owner, lease, force)
        try:
            rows = await self.store.load(run.id)
            if rows is None:
                raise StoreError(f"run {run.id} vanished from {self.store.url}")
            state = restore(rows)
        except BaseException:
            await self.store.release(run.id, owner, epoch=claimed.lease_epoch)
            raise
        claimed.policy_version = self.policy_version  # the version it runs under from now
        durable = Durable(self.store, claimed, lease=lease, rows=rows)
        return state, durable, run.prompt

    async def _claim(self, run: RunRecord, owner: str, lease: float, force: bool) -> RunRecord:
        claimed = await self.store.claim_run(run.id, owner, time.time(), lease)
        if claimed is not None:
            return claimed
        now = await self.store.run(run.id) or run  # as it stands after the lost claim
        if force and now.lease_owner is not None and holder_state(now.lease_owner) == "gone":
            claimed = await self.store.claim_run(
                run.id, owner, time.time(), lease, over_epoch=now.lease_epoch
            )
            if claimed is not None:
                return claimed
            now = await self.store.run(run.id) or now
        raise StoreError(refusal(now, time.time(), force=force))

    @contextlib.asynccontextmanager
    async def leased(self, durable: Durable) -> AsyncIterator[None]:
        """Renew the run's lease in the background while the body runs (barriers renew it
        too, and a thread while the body holds the loop: `LoopFreeRenewal`); release it
        after, unless it was lost. A renewal that finds the lease gone marks `durable` lost,
        so its next barrier fails without writing."""
        lease = durable.lease or lease_seconds()
        store = self.store
        off_loop = LoopFreeRenewal(store, durable, lease) if isinstance(store, Reopens) else None

        async def renew() -> None:
            while True:
                await asyncio.sleep(lease / 3)
                if off_loop is not None:
                    off_loop.beat()
                try:
                    held = await self.store.renew(
                        durable.run_id, durable.worker, time.time(), lease, epoch=durable.epoch
                    )
                    if held:
                        continue
                    now = await self.store.run(durable.run_id)
                except StoreError:
                    continue  # the store is out of reach: the next barrier is fenced anyway
                durable.lose(now.lease_owner if now is not None else None)
                return

        task = asyncio.create_task(renew())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            if off_loop is not None:
                await off_loop.stop()
            if not durable.lost:
                await self.store.release(durable.run_id, durable.worker, epoch=durable.epoch)


def _final_messages(rows: RunRows) -> list[Message]:
    """A finished run's conversation: its last checkpoint (before execution_end) has it all."""
    return [codec.load("message", m) for m in rows.messages]
