"""Timeouts for async hooks without a timer per call.

Arming a timer for every hook call would cost more than the hook itself (tens of µs against
well under one). Instead the fold notes which hook each task is waiting in, and one watchdog
task per run wakes periodically and cancels a task whose hook has overrun its timeout. The
fold turns that cancellation into a hook failure. Sync hooks cannot be interrupted; hooks
that may block declare ``blocking=True`` and run on a worker thread, which the watchdog
covers like any async hook.
"""

from __future__ import annotations

import asyncio
import contextlib
from time import perf_counter
from typing import Any, final

__all__ = ["HookTimeout", "HookWatch"]


class HookTimeout(Exception):
    """Raised inside the fold when the watchdog cancelled an overrunning hook."""


@final
class HookWatch:
    """Tracks the hook each task is awaiting, and cancels the ones that overrun."""

    __slots__ = ("_runner", "_tick", "active", "expired")

    def __init__(self, tick: float) -> None:
        self._tick = tick
        self._runner: asyncio.Task[None] | None = None
        self.active: dict[asyncio.Task[Any], tuple[Any, float, float]] = {}
        """task → (hook, started, timeout)."""
        self.expired: set[asyncio.Task[Any]] = set()

    def enter(self, task: asyncio.Task[Any], hook: Any, timeout: float) -> None:
        self.active[task] = (hook, perf_counter(), timeout)
        if self._runner is None:
            self._runner = asyncio.get_running_loop().create_task(self._watch())

    def leave(self, task: asyncio.Task[Any]) -> bool:
        """Forget the task's hook; True if it had expired (so its cancellation was ours)."""
        self.active.pop(task, None)
        if task in self.expired:
            self.expired.discard(task)
            task.uncancel()
            return True
        return False

    async def close(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await runner

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(self._tick)
            now = perf_counter()
            for task, (_hook, started, timeout) in list(self.active.items()):
                if now - started > timeout and task not in self.expired:
                    self.expired.add(task)
                    task.cancel()
