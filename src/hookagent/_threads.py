"""Worker threads for blocking user code: sync tools, blocking hooks, the file tools.

Not `asyncio.to_thread`: the loop's default executor is joined when `asyncio.run` ends, and
`concurrent.futures` joins its threads at interpreter exit, so a call that outlived its
timeout, or the run that was cancelled around it, would hold the process until it returned.
These threads are daemons. A call whose awaiter stops waiting (a timeout, a cancelled run) is
**abandoned**: it runs on to its end, its result is dropped, and it never keeps the process
alive. The awaiter's `CancelledError` then carries the note `ABANDONED` (see `abandoned`), so
the run can say so in its record.

One small pool per process: a call takes an idle thread, or starts one when every thread is
busy (abandoned ones included, so a hung call never starves the next); a thread with nothing
to do for `IDLE` seconds ends. Results come back with `loop.call_soon_threadsafe`.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import os
import threading
from collections.abc import Callable
from queue import Empty, SimpleQueue
from typing import Any, Final, ParamSpec, TypeVar, final

__all__ = ["ABANDONED", "IDLE", "abandoned", "in_thread"]

P = ParamSpec("P")
R = TypeVar("R")

IDLE: Final = 30.0
"""Seconds an idle worker thread waits for work before it ends."""
ABANDONED: Final = "its worker thread was abandoned and may still be running"
"""The note a `CancelledError` gets when it left a call running on its thread."""

_Job = tuple[Callable[[], Any], asyncio.AbstractEventLoop, "asyncio.Future[Any]"]


async def in_thread(fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    """`fn(*args, **kwargs)` on a worker thread, in a copy of the caller's context.

    Cancelling the awaiter abandons the call: it runs to its end on its thread, and the
    `CancelledError` raised here carries the note `ABANDONED`."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[R] = loop.create_future()
    call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
    _pool.submit((call, loop, future))
    try:
        return await future
    except asyncio.CancelledError as exc:
        if future.cancelled():  # not settled when the wait was given up
            exc.add_note(ABANDONED)
        raise


def abandoned(error: BaseException) -> bool:
    """Whether `error` (a cancellation) left a call running on a worker thread."""
    return ABANDONED in getattr(error, "__notes__", ())


@final
class _Pool:
    __slots__ = ("_idle", "_jobs")

    def __init__(self) -> None:
        self._jobs: SimpleQueue[_Job] = SimpleQueue()
        self._idle = threading.Semaphore(0)
        """One count per idle thread that no call has claimed yet."""

    def reset(self) -> None:
        """Start empty: a forked child has none of its parent's threads."""
        self._jobs, self._idle = SimpleQueue(), threading.Semaphore(0)

    def submit(self, job: _Job) -> None:
        self._jobs.put(job)
        if not self._idle.acquire(blocking=False):
            name = f"hookagent-worker-{threading.active_count()}"
            threading.Thread(target=self._work, name=name, daemon=True).start()

    def _work(self) -> None:
        jobs, idle = self._jobs, self._idle
        while True:
            try:
                job = jobs.get(timeout=IDLE)
            except Empty:
                if idle.acquire(blocking=False):
                    return  # idle long enough, and no call counts on this thread
                continue  # a call claimed the idle count: its job is queued already
            _run(*job, idle)
            del job  # let the result go before waiting again


def _run(
    call: Callable[[], Any],
    loop: asyncio.AbstractEventLoop,
    future: asyncio.Future[Any],
    idle: threading.Semaphore,
) -> None:
    settle: Callable[[Any], None]
    try:
        value = call()
        settle = future.set_result
    except BaseException as exc:  # the awaiter decides what a failure means
        if isinstance(exc, StopIteration):  # cannot travel through a future
            exc = RuntimeError(f"StopIteration raised in a worker thread: {exc}")
        value, settle = exc, future.set_exception
    idle.release()  # idle before the result is handed back, which may bring the next call
    _deliver(loop, settle, future, value)


def _deliver(
    loop: asyncio.AbstractEventLoop,
    settle: Callable[[Any], None],
    future: asyncio.Future[Any],
    value: object,
) -> None:
    with contextlib.suppress(RuntimeError):  # the loop closed: nobody is waiting
        loop.call_soon_threadsafe(_settle, settle, future, value)


def _settle(settle: Callable[[Any], None], future: asyncio.Future[Any], value: object) -> None:
    if not future.done():  # a cancelled (abandoned) call's result is dropped
        settle(value)


_pool = _Pool()
os.register_at_fork(after_in_child=_pool.reset)
