"""Lease renewal that does not wait for the event loop.

The background renewal task runs on the run's event loop, so code that holds the loop (a
blocking call in a coroutine, a `@tool(blocking=False)` function, a long computation) would
starve it, and a process alive and running its run would lose the run to the first worker
that polls the store. A daemon thread watches the task: once it is half a lease late, the
thread renews the lease itself, through a store of its own on the same database
(`reopened()`, in an event loop of its own), every half lease until the task goes on. A
renewal that finds the lease gone marks the run lost, as the task's would. A process frozen
as a whole (SIGSTOP, a VM pause) freezes this thread too: its lease still runs out.

A store that cannot be reopened is renewed by the task alone; for a `MemoryStore` that is
enough, since nothing outside the process can claim its runs, and nothing inside it can
while the loop is held.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Protocol, final, runtime_checkable

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
    """Renews `durable`'s lease from a thread while its loop's task is late; started at
    once, `stop()`ped before the lease is released."""

    def __init__(self, store: Reopens, durable: Durable, lease: float) -> None:
        self._store, self._durable, self._lease = store, durable, lease
        self._beat = time.monotonic()
        self._stop = threading.Event()
        self._busy = threading.Lock()
        """Held while the thread renews, so that `stop` can wait for that renewal's end."""
        self._thread = threading.Thread(target=self._watch, name="hookagent-lease", daemon=True)
        self._thread.start()

    def beat(self) -> None:
        """The loop's task came round: the loop is free."""
        self._beat = time.monotonic()

    async def stop(self) -> None:
        """No renewal after this returns: a lease released then stays released."""
        self._stop.set()
        if not self._busy.acquire(blocking=False):
            await in_thread(self._busy.acquire)  # a renewal under way: let it end first
        self._busy.release()

    def _watch(self) -> None:
        while not self._stop.wait(self._lease / 6):
            if time.monotonic() - self._beat < self._lease / 2:
                continue
            with self._busy:
                if self._stop.is_set():
                    return
                try:
                    asyncio.run(self._renew())
                except StoreError:
                    continue  # the store is out of reach: the next barrier is fenced anyway

    async def _renew(self) -> None:
        durable, store = self._durable, self._store.reopened()
        await store.open()
        try:
            renewed = await store.renew(
                durable.run_id, durable.worker, time.time(), self._lease, epoch=durable.epoch
            )
            now = None if renewed else await store.run(durable.run_id)
        finally:
            await store.close()
        if renewed:
            self.beat()
            return
        durable.lose(now.lease_owner if now is not None else None)
        self._stop.set()
