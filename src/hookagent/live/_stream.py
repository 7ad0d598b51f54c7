"""A run's events as an async iterator: the one way `Agent.stream` and `Agent.stream_resume`
watch a run, so a started run and a resumed one stream, stop and end alike.

The run executes in a task of its own, emitting into a queue the iterator drains. Cancelling
the task that iterates cancels the run's task and waits for it to stop: the run records the
stop and emits its events, which are still yielded, then `RunFinished` with the stopped result,
and the `CancelledError` is raised on the next iteration.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Callable, Coroutine
from typing import TYPE_CHECKING, Any, Final

from hookagent.live._events import Emit, RunFinished, StreamEvent

if TYPE_CHECKING:
    from hookagent.kernel._result import RunResult

__all__ = ["watched"]

_DONE: Final = object()


async def watched(
    run: Callable[..., Coroutine[Any, Any, RunResult[Any]]],
    stopped: Callable[[], RunResult[Any]],
) -> AsyncGenerator[StreamEvent, None]:
    """Yield what `run(emit=emit)` emits as it happens, then `RunFinished` with its result, or with
    `stopped()` (the result as the run's state holds it) if the run was cancelled. Left early
    (`aclose`), the run is cancelled and awaited."""
    queue: asyncio.Queue[Any] = asyncio.Queue()
    emit: Emit = queue.put_nowait
    task = asyncio.create_task(run(emit=emit))
    task.add_done_callback(lambda _: queue.put_nowait(_DONE))
    cancelled: asyncio.CancelledError | None = None
    try:
        while True:
            try:
                item = await queue.get()
            except asyncio.CancelledError as exc:
                if cancelled is not None:
                    raise  # cancelled again: no more waiting for the run to stop
                cancelled = exc
                task.cancel()
                continue
            if item is _DONE:
                break
            yield item
        yield RunFinished(stopped() if task.cancelled() else task.result())
        if cancelled is not None:
            raise cancelled
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
