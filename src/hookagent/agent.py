"""`Agent`: a built, immutable configuration that runs the kernel.

One async implementation: `run` is the loop; `stream` watches the same loop through a queue;
`run_sync` drives `run` on a fresh event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import Any, Final, final

from hookagent.errors import ConfigError
from hookagent.hooks.registry import HookRegistry
from hookagent.hooks.watch import HookWatch
from hookagent.kernel.approval import Approver
from hookagent.kernel.context import Budgets, RunContext
from hookagent.kernel.dispatch import Dispatcher
from hookagent.kernel.loop import Kernel
from hookagent.kernel.result import RunResult
from hookagent.kernel.state import RunState
from hookagent.kernel.stream import Emit, RunFinished, StreamEvent
from hookagent.kernel.view import RunView
from hookagent.models.base import Model, ToolSpec
from hookagent.tools.base import PreparesArgs, Tool

__all__ = ["Agent"]


def _current_task() -> asyncio.Task[Any]:
    task = asyncio.current_task()
    assert task is not None, "a run executes inside a task"
    return task


_DONE: Final = object()


@final
class Agent:
    def __init__(
        self,
        *,
        model: Model,
        tools: Mapping[str, Tool],
        registry: HookRegistry,
        system_prompt: str | None = None,
        settings: Mapping[str, Any] | None = None,
        budgets: Budgets | None = None,
    ) -> None:
        self.model = model
        self.tools = dict(tools)
        self.registry = registry
        self.system_prompt = system_prompt
        self.settings = dict(settings or {})
        self.budgets = budgets or Budgets()
        self._specs = tuple(
            ToolSpec(name=t.name, description=t.description, parameters=t.parameters)
            for t in self.tools.values()
        )
        self._preparers = {
            name: tool.prepare
            for name, tool in self.tools.items()
            if isinstance(tool, PreparesArgs)
        }
        self._kernel = Kernel()
        timeouts = [h.timeout for h in registry if h.is_async and h.timeout is not None]
        self._watch_tick = min(1.0, max(0.005, min(timeouts) / 10)) if timeouts else None

    async def run(
        self,
        prompt: str,
        *,
        approver: Approver | None = None,
        metadata: Mapping[str, Any] | None = None,
        parent_run_id: str | None = None,
    ) -> RunResult:
        """Run to the end and return what happened; failures are in the result, not raised."""
        return await self._execute(
            prompt, approver=approver, metadata=metadata, parent_run_id=parent_run_id, emit=None
        )

    def run_sync(self, prompt: str, **options: Any) -> RunResult:
        """`run` for code without an event loop."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.run(prompt, **options))
        raise ConfigError(
            "run_sync() was called inside a running event loop; use `await agent.run(...)` there"
        )

    async def stream(
        self,
        prompt: str,
        *,
        approver: Approver | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> AsyncIterator[StreamEvent]:
        """Yield steps, tool calls and decisions as they happen, then `RunFinished`."""
        queue: asyncio.Queue[Any] = asyncio.Queue()
        task = asyncio.create_task(
            self._execute(
                prompt,
                approver=approver,
                metadata=metadata,
                parent_run_id=None,
                emit=queue.put_nowait,
            )
        )
        task.add_done_callback(lambda _: queue.put_nowait(_DONE))
        try:
            while (item := await queue.get()) is not _DONE:
                yield item
            yield RunFinished(task.result())
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    async def _execute(
        self,
        prompt: str,
        *,
        approver: Approver | None,
        metadata: Mapping[str, Any] | None,
        parent_run_id: str | None,
        emit: Emit | None,
    ) -> RunResult:
        state = RunState(parent_run_id=parent_run_id, metadata=dict(metadata or {}))
        view = RunView(state, self._specs)
        watch = HookWatch(self._watch_tick) if self._watch_tick is not None else None
        ctx = RunContext(
            state=state,
            view=view,
            hooks=Dispatcher(self.registry, state, view, approver=approver, emit=emit, watch=watch),
            model=self.model,
            tools=self.tools,
            preparers=self._preparers,
            tool_specs=self._specs,
            system_prompt=self.system_prompt,
            settings=self.settings,
            budgets=self.budgets,
            emit=emit,
        )
        if watch is not None:
            watch.track(_current_task())  # tasks that fold hooks must be tracked
        try:
            await self._kernel.run(ctx, prompt)
        finally:
            if watch is not None:
                await watch.close()
        return RunResult.of(state)
