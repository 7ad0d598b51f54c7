"""Lease renewal that does not wait for the event loop.

The background renewal task runs on the run's event loop, so code that holds the loop (a
blocking call in a coroutine, a `@tool(blocking=False)` function, a long computation) would
starve it, and a process alive and running its run would lose the run to the first worker
that polls the store. One daemon thread per process watches the tasks of the runs it was
given: once a task is half a lease late, the thread renews that lease itself, through a store
of its own on the same database (`reopened()`, in an event loop of its own), every half lease
until the task goes on. A renewal that finds the lease gone marks the run lost, as the task's
would. A process frozen as a whole (SIGSTOP, a VM pause) freezes this thread too: its leases
still run out.

A store that cannot be reopened is renewed by the task alone; for a `MemoryStore` that is
enough, since nothing outside the process can claim its runs, and nothing inside it can
while the loop is held.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from typing import Final, Protocol, final, runtime_checkable

from hookagent._errors import StoreError
from hookagent._threads import in_thread
from hookagent.durable._journal import Durable
from hookagent.store._base import Store

__all__ = ["LoopFreeRenewal", "Reopens"]


@runtime_checkable
class Reopens(Protocol):
    def reopened(self) -> Store:
        """A new store on the same database, not yet opened: its own connection, usable
        from another thread's event loop."""
        ...


@final
class LoopFreeRenewal:
    """`durable`'s lease, watched from the thread from now until `stop()`, which comes
    before the lease is released."""

    __slots__ = ("beat_at", "durable", "lease", "stopped", "store")

    def __init__(self, store: Reopens, durable: Durable, lease: float) -> None:
        self.store, self.durable, self.lease = store, durable, lease
        self.beat_at = time.monotonic()
        self.stopped = False
        _watcher.add(self)

    def beat(self) -> None:
        """The loop's task came round: the loop is free."""
        self.beat_at = time.monotonic()

    async def stop(self) -> None:
        """No renewal of this lease after this returns: released then, it stays released."""
        self.stopped = True
        watcher = _watcher
        watcher.discard(self)
        if not watcher.busy.acquire(blocking=False):
            await in_thread(watcher.busy.acquire)  # a renewal under way: let it end first
        watcher.busy.release()


@final
class _Watcher:
    def __init__(self) -> None:
        self.forked()

    def forked(self) -> None:
        """Anew: a forked child has none of its parent's threads, and maybe a lock one of
        them held."""
        self.busy = threading.Lock()
        """Held while the thread renews, so that `stop` can wait for the renewal's end."""
        self._leases: set[LoopFreeRenewal] = set()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def add(self, lease: LoopFreeRenewal) -> None:
        with self._changed:
            self._leases.add(lease)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._watch, name="hookagent-lease", daemon=True
                )
                self._thread.start()
            self._changed.notify()

    def discard(self, lease: LoopFreeRenewal) -> None:
        with self._changed:
            self._leases.discard(lease)

    def _watch(self) -> None:
        while True:
            with self._changed:
                while not self._leases:
                    self._changed.wait()
                self._changed.wait(min(lease.lease for lease in self._leases) / 6)
                now = time.monotonic()
                late = [x for x in self._leases if now - x.beat_at >= x.lease / 2]
            if late:
                with self.busy:
                    asyncio.run(self._renew([x for x in late if not x.stopped]))

    async def _renew(self, leases: list[LoopFreeRenewal]) -> None:
        """Each late lease, through one store of its own per database."""
        by_store: dict[int, list[LoopFreeRenewal]] = {}
        for lease in leases:
            by_store.setdefault(id(lease.store), []).append(lease)
        for group in by_store.values():
            store = group[0].store.reopened()
            try:
                await store.open()
                try:
                    for lease in group:
                        await self._renew_one(store, lease)
                finally:
                    await store.close()
            except StoreError:
                continue  # the store is out of reach: the next barrier is fenced anyway

    async def _renew_one(self, store: Store, lease: LoopFreeRenewal) -> None:
        durable = lease.durable
        run_id, worker, epoch = durable.run_id, durable.worker, durable.epoch
        if await store.renew(run_id, worker, time.time(), lease.lease, epoch=epoch):
            lease.beat()
            return
        now = await store.run(run_id)
        durable.lose(now.lease_owner if now is not None else None)
        lease.stopped = True
        self.discard(lease)


_watcher: Final = _Watcher()
os.register_at_fork(after_in_child=_watcher.forked)
