"""`ToolGate`: hookagent's hook engine around any function, without hookagent's loop.

The same hooks an agent runs at its tool points (in-process, or Claude Code command hooks
from settings files) run around a call of any function: before_tool may block the call,
rewrite its arguments or ask a human; after_tool may replace the result or ask for the call
to run again. Nothing here folds or settles: every call goes through the kernel's own
`Dispatcher` over a run state kept per session, so decisions, asks (permission_request hooks,
then the approver), hook timeouts and decision records are exactly those of an agent.

This module keeps the gate itself (registration, sessions, `call`/`call_sync`); one call's
flow through the hooks is `gate.sequence`, `wrap`'s wrappers are `gate.wrap`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import logging
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from os import PathLike
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, ParamSpec, Self, TypeVar, final, overload

from hookagent._registration import HookRegistrations
from hookagent.gate._result import GateResult
from hookagent.gate._sequence import GatedCall
from hookagent.gate._wrap import gated
from hookagent.hooks._decision import Decision
from hookagent.hooks._events import RunEvent
from hookagent.hooks._hook import Hook
from hookagent.hooks._points import (
    AFTER_TOOL,
    BEFORE_TOOL,
    EXECUTION_END,
    NOTIFICATION,
    PERMISSION_REQUEST,
    HookPoint,
)
from hookagent.hooks._registry import HookRegistry
from hookagent.hooks._watch import HookWatch
from hookagent.kernel._approval import Approver
from hookagent.kernel._context import Budgets
from hookagent.kernel._dispatch import Dispatcher
from hookagent.kernel._result import DecisionLog
from hookagent.kernel._state import RunState
from hookagent.spill._files import default_root
from hookagent.spill._results import DEFAULT_MAX_RESULT_CHARS, INHERIT, check_limit

if TYPE_CHECKING:
    from hookagent.claude._bridge import ClaudeHooks

__all__ = ["GATE_POINTS", "ToolGate"]

P = ParamSpec("P")
R = TypeVar("R")
log = logging.getLogger("hookagent.gate")

GATE_POINTS: Final[tuple[HookPoint[Any], ...]] = (
    BEFORE_TOOL,
    AFTER_TOOL,
    PERMISSION_REQUEST,
    NOTIFICATION,
)
"""The points a gate fires: around the call, and while a question waits for an answer."""


def _blocking(method: Callable[P, Coroutine[Any, Any, R]], doc: str) -> Callable[P, R]:
    """`method` run to its end from sync code (see `_run_sync`), with the same signature,
    named as `method` with `_sync` after it."""

    @functools.wraps(method)
    def blocking(*args: P.args, **kwargs: P.kwargs) -> R:
        return _run_sync(method(*args, **kwargs))

    blocking.__name__ += "_sync"
    blocking.__qualname__ += "_sync"
    blocking.__doc__ = doc
    return blocking


@final
class ToolGate(HookRegistrations):
    """Hooks around calls of any function: `await gate.call(name, args, execute=fn)`.

    Register hooks with `on` (or `hook`), Claude Code settings files with `with_settings`;
    answer `ask`s with `approver` (else a question no permission_request hook answers is
    denied, as in a run without an approver). Calls in one `session` share a run state:
    hooks see earlier decisions and metadata there (`run.decisions`, `run.metadata`); the
    default session's run id is `run_id`, a named session's is `<run_id>:<session>`.
    """

    _FIRES = GATE_POINTS
    _HOST = "a tool gate"

    def __init__(
        self,
        *,
        approver: Approver | None = None,
        run_id: str | None = None,
        retries: int = 3,
        max_result_chars: int | None = DEFAULT_MAX_RESULT_CHARS,
        folder: str | PathLike[str] | None = None,
    ) -> None:
        self.run_id = run_id or uuid.uuid4().hex
        self.approver = approver
        self.max_result_chars = check_limit(max_result_chars, "ToolGate(max_result_chars)")
        """For calls that set none, the most characters of a result the caller reads."""
        self.folder = Path(folder).resolve() if folder is not None else default_root(None)
        """Outputs too long to read whole are saved in `<folder>/runs/<session run id>/`."""
        self._budgets = Budgets(retries=retries)
        self._registry = HookRegistry()
        self._sessions: dict[str | None, RunState] = {}
        """Per session, the run state its calls share (decisions, metadata)."""
        self._tick: float | None = None
        self._tick_known = False

    # -- registration (`on`, `hook`, `with_settings`: `HookRegistrations`) ----------------
    @property
    def hooks(self) -> tuple[Hook[Any], ...]:
        """Every registered hook, point by point, in the order each point runs them."""
        return tuple(self._registry)

    def _add_hook(self, hook: Hook[Any]) -> None:
        self._registry.add(hook)
        self._tick_known = False

    def _add_settings(self, claude: ClaudeHooks, files: tuple[str | PathLike[str], ...]) -> None:
        from hookagent._agent import Agent
        from hookagent.capabilities.files._checker import checker_agent

        claude.use_checker(functools.partial(checker_agent, Agent))  # for `agent` handlers
        left_out: list[str] = []
        for hook in claude.hooks():
            if hook.point in GATE_POINTS or hook.point is EXECUTION_END:
                self._add_hook(hook)  # execution_end: the Claude session ends with the gate's
            else:
                left_out.append(hook.name)
        if left_out:
            log.info("hooks of %s not run by a tool gate: %s", files, ", ".join(left_out))

    # -- calls ----------------------------------------------------------------------------
    async def call(
        self,
        tool_name: str,
        args: Mapping[str, Any] | None = None,
        *,
        execute: Callable[..., Any],
        invocation_id: str | None = None,
        session: str | None = None,
        raise_errors: bool = False,
        max_result_chars: int | None = INHERIT,
        blocking: bool = True,
    ) -> GateResult:
        """Run before_tool hooks, then `execute(**args)` (sync or async) with the arguments
        as they left the hooks, then after_tool hooks; exactly the sequence of an agent's
        tool call. A block (or a denied ask) skips `execute` and gives an error result;
        an exception from `execute` becomes an error result too (`Tool 'x' failed: …`),
        after_tool hooks included, unless `raise_errors` makes it propagate once they ran.
        `invocation_id` is the call's id in events and records (a new UUID if None). A
        result longer than `max_result_chars` (`INHERIT`: the gate's) is saved whole in
        the session's run folder and read as a preview, as an agent's tool result is.
        A sync `execute` runs on a worker thread, as an agent's sync tools do, so it never
        holds the caller's event loop; `blocking=False` calls it on the loop instead."""
        limit = (
            self.max_result_chars
            if max_result_chars is INHERIT
            else check_limit(max_result_chars, f"call {tool_name!r}: max_result_chars")
        )
        call_id = invocation_id or str(uuid.uuid4())
        state = self._session(session)
        decisions: list[Decision] = []
        tick = self._watch_tick()
        watch = HookWatch(tick) if tick is not None else None
        hooks = Dispatcher(
            self._registry, state, approver=self.approver, watch=watch, on_decision=decisions.append
        )
        hooks.view.files_root = self.folder
        if watch is not None:
            task = asyncio.current_task()
            assert task is not None, "a gate call runs inside a task"
            watch.track(task)  # hook timeouts: the watchdog follows this task's folds
        try:
            retries = self._budgets.retries
            call = GatedCall(
                hooks, hooks.view, call_id, tool_name, execute, retries, limit, blocking=blocking
            )
            result = await call.call(MappingProxyType(dict(args or {})))
        finally:
            if watch is not None:
                await watch.close()
        if raise_errors and call.error is not None and result.is_error:
            raise call.error
        return GateResult(
            invocation_id=call_id,
            tool_name=tool_name,
            args=call.args,
            result=result,
            value=call.output if result is call.pristine else result.content,
            blocked=call.blocked,
            decisions=DecisionLog(decisions),
            attempts=call.attempts,
            duration=call.duration,
            error=call.error,
            contexts=call.contexts,
            stop_reason=call.stop_reason,
            stop_message=call.stop_message,
        )

    call_sync = _blocking(
        call,
        """`call` for code without an event loop. Called where a loop is running (a sync
        tool that a framework calls from async code), the call runs on its own loop in a
        worker thread and this thread waits, as it would for the sync function itself.""",
    )

    @overload
    def wrap(
        self,
        fn: Callable[P, Awaitable[R]],
        *,
        name: str | None = None,
        raise_errors: bool = False,
        max_result_chars: int | None = INHERIT,
        blocking: bool = True,
    ) -> Callable[P, Coroutine[Any, Any, R | str]]: ...
    @overload
    def wrap(
        self,
        fn: Callable[P, R],
        *,
        name: str | None = None,
        raise_errors: bool = False,
        max_result_chars: int | None = INHERIT,
        blocking: bool = True,
    ) -> Callable[P, R | str]: ...
    @overload
    def wrap(
        self,
        fn: None = None,
        *,
        name: str | None = None,
        raise_errors: bool = False,
        max_result_chars: int | None = INHERIT,
        blocking: bool = True,
    ) -> Callable[[Callable[P, R]], Callable[P, Any]]: ...
    def wrap(
        self,
        fn: Callable[..., Any] | None = None,
        *,
        name: str | None = None,
        raise_errors: bool = False,
        max_result_chars: int | None = INHERIT,
        blocking: bool = True,
    ) -> Any:
        """`fn` with every call going through the gate, as tool `name` (default: the
        function's name); usable as `@gate.wrap` or `@gate.wrap(name=...)`. The arguments,
        positional ones bound to their names, are the call's `args`. An async function gives
        an async wrapper, a sync one a sync wrapper (see `call_sync`); the signature,
        name and docstring are kept, so a framework's tool decorator can be put on top.
        `max_result_chars` is the tool's own limit, `blocking=False` runs a sync function
        on the loop that calls it (see `call`).

        The wrapper returns `GateResult.value`: the function's return value, or the text
        the model should read when hooks had a say (a block, a replaced result, context),
        the result was cut to a preview, or the function raised (unless `raise_errors`)."""
        options = functools.partial(
            gated,
            name=name,
            raise_errors=raise_errors,
            max_result_chars=max_result_chars,
            blocking=blocking,
        )
        if fn is None:
            return lambda fn: options(self, fn)
        return options(self, fn)

    # -- sessions -------------------------------------------------------------------------
    def state(self, session: str | None = None) -> RunState:
        """The run state of a session: its decisions so far, the metadata hooks set."""
        return self._session(session)

    def decisions(self, session: str | None = None) -> DecisionLog:
        """Every decision recorded in a session, across its calls."""
        return DecisionLog(self._session(session).decisions)

    async def end(self, session: str | None = None) -> None:
        """End a session: execution_end hooks run (Claude Code settings: the transcript is
        flushed, `async` handlers are waited for) and its state is dropped."""
        state = self._sessions.pop(session, None)
        if state is None or not self._registry.at(EXECUTION_END):
            return
        state.finish("completed", "completed")
        hooks = Dispatcher(self._registry, state, approver=None, watch=None)
        await hooks.fire(EXECUTION_END, RunEvent(run=hooks.view))

    async def aclose(self) -> None:
        """End every session."""
        for session in list(self._sessions):
            await self.end(session)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def _session(self, session: str | None) -> RunState:
        state = self._sessions.get(session)
        if state is None:
            run_id = self.run_id if session is None else f"{self.run_id}:{session}"
            state = self._sessions[session] = RunState(run_id=run_id, session_id=session)
            state.position.phase = "tool"
        return state

    def _watch_tick(self) -> float | None:
        """How often the watchdog looks, as an agent sets it: a tenth of the shortest timeout
        of an async hook (None: no hook to watch)."""
        if not self._tick_known:
            timeouts = [h.timeout for h in self._registry if h.is_async and h.timeout is not None]
            self._tick = min(1.0, max(0.005, min(timeouts) / 10)) if timeouts else None
            self._tick_known = True
        return self._tick

    def __repr__(self) -> str:
        return f"ToolGate(run_id={self.run_id!r}, hooks={len(self._registry)})"


@functools.cache
def _workers() -> concurrent.futures.ThreadPoolExecutor:
    """Runs sync calls made where an event loop is already running, each on a loop of its
    own (made on first use)."""
    return concurrent.futures.ThreadPoolExecutor(thread_name_prefix="hookagent-gate")


def _run_sync(coro: Coroutine[Any, Any, R]) -> R:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    return _workers().submit(asyncio.run, coro).result()
