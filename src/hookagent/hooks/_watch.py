"""Timeouts for async hooks at almost no cost on the hot path.

Arming a timer for every hook call would cost far more than a typical hook (tens of µs
against well under one), and even reading the clock per call shows in the benchmarks. So
a fold writes, before it awaits a hook, which hook and which call (the awaitable) into its
`WaitSlot`, and clears the hook after; a sync hook writes nothing, as nothing can interrupt
it. Each task has a stack of slots, one per level of folds nested in it (a hook that folds
hooks), so the busy slots are always the enclosing folds, outermost first. One watchdog task
per run wakes every tick, notes when it first saw each call, and cancels a task whose
innermost call has outlived its hook's timeout; the fold turns that cancellation into a hook
failure. A call is first seen within a tick of its start, so a timeout fires between
`timeout` and `timeout + 2 * tick` seconds into the call. Hooks that may block declare
``blocking=True`` and run on a worker thread, which the watchdog covers like any async hook:
past its timeout the thread is abandoned (a daemon, it never holds the process) and the vote
says so.
"""

from __future__ import annotations

import asyncio
import contextlib
from time import perf_counter
from typing import TYPE_CHECKING, Any, final

if TYPE_CHECKING:
    from hookagent.hooks._hook import Hook

__all__ = ["HookTimeout", "HookWatch", "WaitSlot"]


class HookTimeout(Exception):
    """Raised inside the fold when the watchdog cancelled an overrunning hook."""

    def __init__(self, hook_id: str, abandoned: bool = False) -> None:
        super().__init__(hook_id)
        self.abandoned = abandoned
        """The hook ran on a worker thread, left running (see `hookagent._threads`)."""


@final
class WaitSlot:
    """One fold's wait. The fold writes `hook` (None between hook calls) and `call`, the
    awaitable of its latest hook call; the watchdog writes `seen`, the call it last saw, and
    `since`, when it first saw it (the object itself, not its id, so a new call can never
    be mistaken for a finished one at the same address)."""

    __slots__ = ("call", "hook", "seen", "since")

    def __init__(self) -> None:
        self.hook: Hook[Any] | None = None
        self.call: object = None
        self.seen: object = None
        self.since = 0.0


@final
class HookWatch:
    """The watchdog of one run (or gate call): the slots of the tasks that fold its hooks,
    and the task that reads them every `tick` seconds."""

    __slots__ = ("_closed", "_loop", "_runner", "_slots", "_tick", "expired")

    def __init__(self, tick: float) -> None:
        self._tick = tick
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: asyncio.Task[None] | None = None
        self._closed = False
        self._slots: dict[asyncio.Task[Any], list[WaitSlot]] = {}
        """task → its slots, outermost fold first."""
        self.expired: set[asyncio.Task[Any]] = set()
        """Tasks the watchdog cancelled, until the fold has dealt with it."""

    def slot(self) -> WaitSlot:
        """A slot for a fold in the current task, which asks once, at its first async hook:
        the first idle one (the busy ones belong to the folds it is nested in), or a new
        one. Any task that folds hooks is thus watched, tracked or not."""
        task = asyncio.current_task(self._loop)
        assert task is not None, "hooks are folded inside a task"
        stack = self._slots.get(task) or self._add(task)
        for slot in stack:
            if slot.hook is None:
                return slot
        slot = WaitSlot()
        stack.append(slot)
        return slot

    def track(self, task: asyncio.Task[Any]) -> None:
        """Start watching with `task` (idempotent and cheap); a fold in another task joins
        on its own."""
        if task not in self._slots:
            self._add(task)

    def timed_out(self, task: asyncio.Task[Any]) -> bool:
        """After a CancelledError: was it ours alone? Clears our share of the cancel."""
        if task not in self.expired:
            return False
        self.expired.discard(task)
        task.uncancel()
        return task.cancelling() == 0

    async def close(self) -> None:
        """Stop watching, for good: a fold after this is not timed."""
        self._closed = True
        self._slots.clear()
        runner, self._runner = self._runner, None
        if runner is not None:
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await runner

    def _add(self, task: asyncio.Task[Any]) -> list[WaitSlot]:
        stack = [WaitSlot()]
        if not self._closed:
            self._slots[task] = stack
            if self._runner is None:
                self._loop = asyncio.get_running_loop()
                self._runner = self._loop.create_task(self._watch())
        return stack

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(self._tick)
            now = perf_counter()
            for task, stack in list(self._slots.items()):
                if task.done():
                    del self._slots[task]
                else:
                    self._check(task, stack, now)

    def _check(self, task: asyncio.Task[Any], stack: list[WaitSlot], now: float) -> None:
        innermost: WaitSlot | None = None
        timeout: float | None = None
        for slot in stack:  # the busy slots come first: the innermost and its enclosing folds
            if slot.hook is None:
                break
            if slot.seen is not slot.call:
                slot.seen, slot.since = slot.call, now
            innermost, timeout = slot, slot.hook.timeout
        if innermost is None or timeout is None or task in self.expired:
            return
        if now - innermost.since > timeout:
            self.expired.add(task)
            task.cancel()
