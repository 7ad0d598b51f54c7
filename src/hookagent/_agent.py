"""`Agent`: a built, immutable configuration that runs the kernel.

One async implementation: `run` and `resume` are the loop; `stream` and `stream_resume` watch
the same loop through a queue (`live.watched`); `run_sync` drives `run` on a fresh event loop.

A run asked for an `output_type` gets a `StructuredOutput` installed for that run only: the
agent keeps one extended set of tools and hooks per output type, built on first use.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable, Mapping
from functools import partial
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, final, overload

from hookagent import _surrogates as surrogates
from hookagent._canonical import digest
from hookagent._errors import ConfigError
from hookagent._run_context import run_context
from hookagent._run_setup import RunSetup
from hookagent._run_setups import RunSetups
from hookagent.durable._journal import Durable
from hookagent.durable._layer import DurableLayer
from hookagent.durable._runner import DurableRuns
from hookagent.durable._seam import Suspended
from hookagent.hooks._registry import HookRegistry
from hookagent.hooks._watch import HookWatch
from hookagent.kernel._approval import Approver
from hookagent.kernel._context import Budgets, RunContext
from hookagent.kernel._loop import Kernel
from hookagent.kernel._result import RunResult
from hookagent.kernel._state import RunState
from hookagent.live._events import Emit, StreamEvent
from hookagent.live._observer import LiveObserver
from hookagent.live._stream import watched
from hookagent.models._base import Model
from hookagent.spill._files import default_root
from hookagent.spill._results import DEFAULT_MAX_RESULT_CHARS
from hookagent.store._base import Store
from hookagent.tools._base import Tool

if TYPE_CHECKING:
    from hookagent._capability import FinishesResults

__all__ = ["Agent"]

T = TypeVar("T")


def _result(state: RunState, setup: RunSetup) -> RunResult[Any]:
    return setup.finish(RunResult.of(state))


def _current_task() -> asyncio.Task[Any]:
    task = asyncio.current_task()
    assert task is not None, "a run executes inside a task"
    return task


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
        finishers: Iterable[FinishesResults] = (),
        model_aliases: Mapping[str, str | Model] | None = None,
        store: Store | None = None,
        max_result_chars: int | None = DEFAULT_MAX_RESULT_CHARS,
        files_root: str | PathLike[str] | None = None,
    ) -> None:
        """`finishers`: capabilities that post-process every run's result, in order.
        `model_aliases`: what the models agent and skill files name stand for
        (`AgentBuilder.model_alias`). `max_result_chars`: for tools that set none, the most
        characters of a result the model reads (None: no limit). `files_root`: where run
        folders go (`<root>/runs/<run_id>`); None: the folder of a SQLite store, else
        `.hookagent` here."""
        self.model = model
        self.model_aliases: Mapping[str, str | Model] = (
            model_aliases if model_aliases is not None else {}
        )
        self.finishers = tuple(finishers)
        self.tools = dict(tools)
        self.registry = registry
        self.system_prompt = system_prompt
        self.settings = dict(settings or {})
        self.budgets = budgets or Budgets()
        root = Path(files_root).resolve() if files_root is not None else default_root(store)
        self._setups = RunSetups(self, (root, max_result_chars))
        self._kernel = Kernel()
        self._live = LiveObserver()
        self.store = store
        self._durable: DurableRuns | None = None

    @property
    def policy_version(self) -> str:
        """A digest of the hooks and tools this agent runs with: approvals given under one
        set of hooks do not carry over to another. Observers that fail open (notifications,
        tracing) are left out: they can change no decision, so a run paused under them and
        resumed without them (or the other way round) keeps its answers."""
        hooks = sorted(
            f"{h.point.name}:{h.id}:{h.tier}:{h.priority}"
            for h in self.registry
            if not (h.kind == "observer" and h.on_failure == "proceed")
        )
        return digest(hooks, sorted(self.tools))

    def checker(self, model: Model, /, **options: Any) -> Agent:
        """An agent of this agent's kind that checks one condition over a project's files,
        read-only: what a Claude Code `agent` handler runs (`options`: project_dir,
        system_prompt, max_steps, meter; see `capabilities.files.checker`)."""
        from hookagent.capabilities.files._checker import checker_agent

        return checker_agent(type(self), model, **options)

    def setup_for(
        self, output_type: type[Any] | None = None, limits: Mapping[str, Any] | None = None
    ) -> RunSetup:
        """The tools, hooks and post-processing a run asking for `output_type` under
        `limits` uses (built on first use, then kept): for a backend that runs the agent's
        runs elsewhere."""
        return self._setups.of(output_type, limits)

    context = run_context
    """What the kernel runs a run with: `Agent.run` uses it, and so does a backend that
    runs the kernel itself."""

    def _runs(self) -> DurableRuns:
        if self.store is None:
            raise ConfigError(
                "this agent has no store: build it with .store(...) to keep sessions",
                key="store",
            )
        if self._durable is None:
            self._durable = DurableRuns(self.store, self.policy_version)
        return self._durable

    @overload
    async def run(
        self,
        prompt: str,
        *,
        output_type: type[T],
        approver: Approver | None = None,
        metadata: Mapping[str, Any] | None = None,
        parent_run_id: str | None = None,
        session: str | None = None,
        limits: Mapping[str, Any] | None = None,
        clear: bool = False,
    ) -> RunResult[T]: ...
    @overload
    async def run(
        self,
        prompt: str,
        *,
        output_type: None = None,
        approver: Approver | None = None,
        metadata: Mapping[str, Any] | None = None,
        parent_run_id: str | None = None,
        session: str | None = None,
        limits: Mapping[str, Any] | None = None,
        clear: bool = False,
    ) -> RunResult[Any]: ...
    async def run(
        self,
        prompt: str,
        *,
        output_type: type[Any] | None = None,
        approver: Approver | None = None,
        metadata: Mapping[str, Any] | None = None,
        parent_run_id: str | None = None,
        session: str | None = None,
        limits: Mapping[str, Any] | None = None,
        clear: bool = False,
    ) -> RunResult[Any]:
        """Run to the end and return what happened; failures are in the result, not raised
        (but a `LeaseLost` is: the run was taken over and goes on elsewhere).

        With `output_type` (a pydantic model, dataclass, TypedDict or any type pydantic
        validates) the run must end in a valid answer of that type: `result.parsed`. With a
        store, the run is kept in `session` (a name; continued if it exists; `clear`: its
        conversation starts afresh, session_start's source is `clear`), and a question
        nobody answers now pauses it: the result's status is then `waiting`.

        `limits` replaces the agent's limits for this run only: keys `max_steps`,
        `max_tokens`, `max_seconds`, `max_cost` (USD, priced as the agent's `CostLimit`
        prices, else by the built-in table; or a `CostLimit`), as in `AgentBuilder.limits`;
        None removes that limit. A run stopped by a limit has status
        `stopped`, a `stop_reason` such as `steps_limit` and a `stop_message`.

        Cancelling the task that awaits it (`task.cancel()`, Ctrl-C under `asyncio.run`, a
        timeout) stops the run at the await it is in, records that (status `stopped`, stop
        reason `user_requested`; a durable run is left resumable, see `kernel.cancellation`)
        and raises `CancelledError`, as a cancelled task does; `stream` also yields the
        stopped result."""
        setup = self._setups.of(output_type, limits)
        state = RunState(parent_run_id=parent_run_id, metadata=dict(metadata or {}))
        return await self._execute(
            prompt,
            state,
            setup=setup,
            approver=approver,
            emit=None,
            session=session,
            clear=clear,
        )

    async def run_child(self, prompt: str, state: RunState) -> RunResult[Any]:
        """Run with a state prepared by a parent (a subagent's: its type, parent, depth)."""
        return await self._execute(prompt, state, setup=self._setups.base, approver=None, emit=None)

    async def submit(
        self,
        prompt: str,
        *,
        session: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> str:
        """Write a run down as `queued` for a worker to claim and execute; its id."""
        state = RunState(metadata=dict(metadata or {}))
        await self._runs().start(surrogates.replace(prompt), state, session, queued=True)
        return state.run_id

    async def resume(
        self,
        key: str,
        *,
        approver: Approver | None = None,
        output_type: type[Any] | None = None,
        worker: str | None = None,
        force: bool = False,
    ) -> RunResult[Any]:
        """Take up a paused or interrupted run (by run id, or its session's id or name)
        where its last checkpoint left it: what its current segment already did is replayed
        from the journal, not done again. `worker` names who holds the run's lease (a
        worker that claimed the run passes its own name). `force` takes the run over before
        its lease runs out when its holder is provably gone (same host, process dead).

        Raises `LeaseLost` if another worker takes the run over while this one runs it."""
        state, durable, prompt = await self._runs().reopen(key, worker=worker, force=force)
        return await self._execute(
            prompt or "",
            state,
            setup=self._setups.of(output_type),
            approver=approver,
            emit=None,
            durable=durable,
        )

    def run_sync(self, prompt: str, **options: Any) -> RunResult[Any]:
        """`run` for code without an event loop. Ctrl-C stops the run as cancelling `run`
        does, then raises `KeyboardInterrupt`."""
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
        output_type: type[Any] | None = None,
        approver: Approver | None = None,
        metadata: Mapping[str, Any] | None = None,
        session: str | None = None,
        deltas: bool = True,
        limits: Mapping[str, Any] | None = None,
        clear: bool = False,
    ) -> AsyncIterator[StreamEvent]:
        """Yield steps, model deltas, tool calls and decisions as they happen, then
        `RunFinished`. `deltas=False`: model calls are made whole, not streamed, so no
        `TextDelta`, `ReasoningDelta` or `ToolCallDelta` comes.

        Cancelling the task that iterates stops the run (see `run`); the stream still yields
        what the run emits as it stops, and `RunFinished` with the stopped result, then
        raises the `CancelledError` on the next iteration. `limits`, `clear`: as in `run`."""
        setup = self._setups.streamed(self._setups.of(output_type, limits), self._live.hooks)
        state = RunState(metadata=dict(metadata or {}))
        run = partial(self._execute, prompt, state, setup=setup, approver=approver, deltas=deltas)
        events = watched(partial(run, session=session, clear=clear), lambda: _result(state, setup))
        async with contextlib.aclosing(events):
            async for event in events:
                yield event

    async def stream_resume(
        self,
        key: str,
        *,
        approver: Approver | None = None,
        output_type: type[Any] | None = None,
        worker: str | None = None,
        force: bool = False,
        deltas: bool = True,
    ) -> AsyncIterator[StreamEvent]:
        """`resume` watched as `stream` watches `run`: the resumed run's steps, deltas, tool
        calls and decisions as they happen (the segment it takes up again included), then
        `RunFinished`. Cancelling the task that iterates stops the run as `stream` does,
        leaving it resumable. The run is reopened on the first iteration."""
        state, durable, prompt = await self._runs().reopen(key, worker=worker, force=force)
        setup = self._setups.streamed(self._setups.of(output_type), self._live.hooks)
        run = partial(self._execute, prompt or "", state, setup=setup, approver=approver)
        events = watched(
            partial(run, durable=durable, deltas=deltas), lambda: _result(state, setup)
        )
        async with contextlib.aclosing(events):
            async for event in events:
                yield event

    async def _execute(
        self,
        prompt: str,
        state: RunState,
        *,
        setup: RunSetup,
        approver: Approver | None,
        emit: Emit | None,
        session: str | None = None,
        durable: Durable | None = None,
        deltas: bool = True,
        clear: bool = False,
    ) -> RunResult:
        resumed = durable is not None
        if durable is None and (self.store is not None or clear):  # clear: a kept session
            prompt = surrogates.replace(prompt)  # as the store keeps it, so as a resume sees it
            durable = await self._runs().start(prompt, state, session, clear=clear)
        layer = DurableLayer(durable, state, setup.outputs) if durable is not None else None
        watch = HookWatch(setup.watch_tick) if setup.watch_tick is not None else None
        ctx = self.context(
            state,
            setup,
            layer=layer,
            approver=approver,
            watch=watch,
            on_delta=emit if deltas else None,
        )
        if emit is not None:
            self._live.watch(state, emit)
        if watch is not None:
            watch.track(_current_task())  # tasks that fold hooks must be tracked
        try:
            if durable is None or layer is None:
                await self._kernel.run(ctx, prompt)
            else:
                mid_run = resumed and layer.mid_run
                await self._run_durably(
                    ctx, prompt, durable, resumed=resumed, mid_run=mid_run, cleared=clear
                )
        except asyncio.CancelledError:
            await self._kernel.cancelled(ctx)
            raise
        finally:
            if watch is not None:
                await watch.close()
            if emit is not None:
                self._live.close(state)
        return _result(state, setup)

    async def _run_durably(
        self,
        ctx: RunContext,
        prompt: str,
        durable: Durable,
        *,
        resumed: bool,
        mid_run: bool,
        cleared: bool,
    ) -> None:
        async with self._runs().leased(durable):
            try:
                await self._kernel.run(
                    ctx, prompt, resumed=resumed, mid_run=mid_run, cleared=cleared
                )
            except Suspended:
                ctx.state.status = "waiting"
                ctx.tick()
            await durable.close(ctx.state)
