"""Timeouts for async hooks at no cost on the hot path.

Arming a timer for every hook call would cost far more than a typical hook (tens of µs
against well under one), and even bookkeeping per call shows in the benchmarks. So the fold
does nothing per hook: it registers its task once, and one watchdog task per run wakes every
tick, follows each task's chain of awaits down to the fold's frame, and reads which hook that
fold is awaiting. A wait is identified by the awaited object; when the same wait is seen for
longer than the hook's timeout the watchdog cancels the task, and the fold turns that
cancellation into a hook failure. A timeout thus fires between `timeout` and `timeout + tick`
seconds. Sync hooks cannot be interrupted; hooks that may block declare ``blocking=True`` and
run on a worker thread, which the watchdog covers like any async hook: past its timeout the
thread is abandoned (a daemon, it never holds the process) and the vote says so.
"""

from __future__ import annotations

import asyncio
import contextlib
from time import perf_counter
from types import CodeType, CoroutineType
from typing import Any, Final, final

__all__ = ["HookTimeout", "HookWatch", "watch_frames_of"]

_FOLD_CODES: set[CodeType] = set()
_HOOK_LOCAL: Final = "hook"
_WATCH_LOCAL: Final = "watch"
"""The names under which a watched frame keeps the hook it awaits and its watch."""


def watch_frames_of(fn: Any) -> Any:
    """Mark a coroutine function whose frame keeps the awaited hook in its `hook` local and
    its watch in `watch`."""
    _FOLD_CODES.add(fn.__code__)
    return fn


class HookTimeout(Exception):
    """Raised inside the fold when the watchdog cancelled an overrunning hook."""

    def __init__(self, hook_id: str, abandoned: bool = False) -> None:
        super().__init__(hook_id)
        self.abandoned = abandoned
        """The hook ran on a worker thread, left running (see `hookagent.threads`)."""


def awaited_hook(task: asyncio.Task[Any], watch: object) -> tuple[Any, object] | None:
    """(hook, awaited object) if the task is suspended in a hook call of a fold that `watch`
    watches; with folds nested (a hook running another agent), the innermost one."""
    found: tuple[Any, object] | None = None
    coro: Any = task.get_coro()
    while coro is not None:
        if isinstance(coro, CoroutineType) and coro.cr_code in _FOLD_CODES:
            frame, awaited = coro.cr_frame, coro.cr_await
            if frame is not None and awaited is not None:
                locals_ = frame.f_locals
                if locals_.get(_WATCH_LOCAL) is watch:
                    found = (locals_.get(_HOOK_LOCAL), awaited)
        coro = getattr(coro, "cr_await", None)
    return found


@final
class HookWatch:
    __slots__ = ("_runner", "_seen", "_tasks", "_tick", "expired")

    def __init__(self, tick: float) -> None:
        self._tick = tick
        self._runner: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._seen: dict[asyncio.Task[Any], tuple[object, float]] = {}
        """task → (the awaited object, when first seen); the object itself, not its id, so
        a new wait can never be mistaken for a finished one at the same address."""
        self.expired: set[asyncio.Task[Any]] = set()
        """Tasks the watchdog cancelled, until the fold has dealt with it."""

    def track(self, task: asyncio.Task[Any]) -> None:
        """Watch a task that folds hooks (idempotent and cheap)."""
        if task not in self._tasks:
            self._tasks.add(task)
            if self._runner is None:
                self._runner = asyncio.get_running_loop().create_task(self._watch())

    def timed_out(self, task: asyncio.Task[Any]) -> bool:
        """After a CancelledError: was it ours alone? Clears our share of the cancel."""
        if task not in self.expired:
            return False
        self.expired.discard(task)
        self._seen.pop(task, None)
        task.uncancel()
        return task.cancelling() == 0

    async def close(self) -> None:
        self._tasks.clear()
        self._seen.clear()
        runner, self._runner = self._runner, None
        if runner is not None:
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await runner

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(self._tick)
            now = perf_counter()
            for task in list(self._tasks):
                if task.done():
                    self._tasks.discard(task)
                    self._seen.pop(task, None)
                    continue
                self._check(task, now)

    def _check(self, task: asyncio.Task[Any], now: float) -> None:
        found = awaited_hook(task, self)
        timeout = getattr(found[0], "timeout", None) if found is not None else None
        if found is None or timeout is None or task in self.expired:
            self._seen.pop(task, None)
            return
        awaited = found[1]
        seen = self._seen.get(task)
        if seen is None or seen[0] is not awaited:
            self._seen[task] = (awaited, now)
        elif now - seen[1] > timeout:
            self.expired.add(task)
            task.cancel()
