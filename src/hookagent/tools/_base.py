"""The tool protocol and the result every tool call produces.

A tool never decides the fate of a run: whatever happens inside it (bad arguments, an
exception, a block by a hook) becomes a `ToolResult` the model reads, unless an error policy
says otherwise. Optional traits (`concurrent`, `idempotent`, `PreparesArgs`, `Reconciles`) are
met by having the attribute; `Tool` lists them with their defaults.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol, final, runtime_checkable

from hookagent._messages import ImagePart
from hookagent._record import record
from hookagent._slots import filler

if TYPE_CHECKING:
    from hookagent._messages import ToolCall
    from hookagent.kernel._view import RunView

__all__ = [
    "INHERIT",
    "PreparesArgs",
    "RECONCILE_TIMEOUT",
    "Reconciled",
    "Reconciles",
    "Tool",
    "ToolContext",
    "ToolResult",
    "text_result",
    "tool_context",
]


@final
class _Inherit:
    def __repr__(self) -> str:
        return "INHERIT"


INHERIT: Final[Any] = _Inherit()
"""A tool's `max_result_chars` that takes the agent's default (as having none does)."""


@record
class ToolResult:
    """What a tool call produced.

    `content` is what the model reads; `data` is the structured shape hooks see (for example
    Claude Code's `{stdout, stderr, interrupted}` for Bash). Either may be derived from the
    other.
    """

    content: str
    is_error: bool = False
    data: Any = None
    images: tuple[ImagePart, ...] = ()
    """Images for the model beside `content` (MCP image content); a model that does not
    accept images reads a placeholder line for each in `content` instead."""

    @classmethod
    def of(cls, value: object) -> ToolResult:
        """Wrap whatever a tool function returned."""
        if isinstance(value, ToolResult):
            return value
        if isinstance(value, str):
            return text_result(value, value)
        try:
            text = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            text = str(value)
        return cls(content=text, data=value)

    @classmethod
    def error(cls, message: str, *, data: Any = None) -> ToolResult:
        return cls(content=message, is_error=True, data=data)

    def returned(self, key: str) -> Any:
        """The value under `key` in what a successful call returned (`data`, a mapping);
        None for an error result, other data, or a missing key."""
        data = self.data
        return None if self.is_error or not isinstance(data, Mapping) else data.get(key)


text_result: Final[Callable[..., ToolResult]] = filler(
    ToolResult, ("content", "data"), {"is_error": False, "images": ()}
)
"""`text_result(text, text)`: `ToolResult.of(text)` for a str (`content` and `data` both
`text`), filled through the slots (`filler`): most tool functions return a str."""
_new: Final = object.__new__


@final
class ToolContext:
    """What a running tool may know about its run: `run` (a read-only view), `call`, and
    `idempotency_key`.

    The key is given as a str or as a function computing it, called the first time a tool
    reads it: most tools never do, and a tool call on the hot path should not pay for it.
    """

    __slots__ = ("_key", "call", "run")
    run: RunView
    call: ToolCall
    _key: str | Callable[[], str]

    def __init__(
        self, *, run: RunView, call: ToolCall, idempotency_key: str | Callable[[], str] = ""
    ) -> None:
        # through the slots (past the read-only `__setattr__`): one is built per tool call
        _SET_RUN(self, run)
        _SET_CALL(self, call)
        _SET_KEY(self, idempotency_key)

    @property
    def idempotency_key(self) -> str:
        """A digest of the run id, the call id and the call's canonical arguments (after
        hooks rewrote them): the key the journal records for the call, the same before and
        after a crash and resume. Pass it to services that deduplicate requests. Empty only
        in a context built by hand, outside a run."""
        key = self._key
        if not isinstance(key, str):
            key = key()
            _SET_KEY(self, key)
        return key

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"ToolContext is read-only (setting {name!r})")

    def __repr__(self) -> str:
        return f"ToolContext(run={self.run!r}, call={self.call!r})"


_SET_RUN, _SET_CALL, _SET_KEY = (
    ToolContext.__dict__[name].__set__ for name in ("run", "call", "_key")
)


def tool_context(run: RunView, call: ToolCall, key: str | Callable[[], str]) -> ToolContext:
    """`ToolContext(run=run, call=call, idempotency_key=key)` with no keyword call, as the
    kernel makes one per tool call."""
    context: ToolContext = _new(ToolContext)
    _SET_RUN(context, run)
    _SET_CALL(context, call)
    _SET_KEY(context, key)
    return context


@runtime_checkable
class Tool(Protocol):
    """Anything with a name, a description, an argument schema and an async call.

    Optional traits, declared by having the attribute (read and checked once, when the tool
    is registered, by `hookagent.tools._traits.traits_of`; a wrong one is a `ConfigError`):

    - `concurrent: bool = False`: its calls may run at the same time as neighbouring calls
      of the same step whose tools are concurrent too.
    - `idempotent: bool = False`: a call left in doubt by a crash may simply run again.
    - `prepare(args) -> args`: canonical arguments before hooks see them (`PreparesArgs`).
    - `reconcile(args, key)`: settles a call left in doubt (`Reconciles`), within
      `reconcile_timeout` seconds (a number above 0; default `RECONCILE_TIMEOUT`).
    """

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def parameters(self) -> Mapping[str, Any]:
        """JSON schema of the arguments object."""
        ...

    async def __call__(self, args: Mapping[str, Any], ctx: ToolContext, /) -> ToolResult:
        """Run with arguments already parsed from JSON (validation is the tool's job)."""
        ...


@runtime_checkable
class PreparesArgs(Protocol):
    """A tool that puts its arguments in canonical form before hooks see them (e.g. paths
    made absolute, as Claude Code sends them). Not a decision: nothing is recorded."""

    def prepare(self, args: Mapping[str, Any], /) -> Mapping[str, Any]: ...


RECONCILE_TIMEOUT: Final = 30.0
"""Seconds a `reconcile` may take unless its tool sets `reconcile_timeout`."""


@record
class Reconciled:
    """How a tool settled a call left in doubt (started, its end never recorded).

    Built with `done(result)`, `not_done(reason)` or `unknown(reason)`.
    """

    outcome: Literal["done", "not_done", "unknown"]
    result: ToolResult | None = None
    """For `done`: the call's result, recorded as if the call had just returned it."""
    reason: str = ""
    """What the tool found (shown in the decision record)."""

    @classmethod
    def done(cls, result: ToolResult, reason: str = "") -> Reconciled:
        """The effect happened: `result` is the call's result and the call is not run."""
        return cls(outcome="done", result=result, reason=reason)

    @classmethod
    def not_done(cls, reason: str = "") -> Reconciled:
        """The effect did not happen, so running the call now cannot repeat it."""
        return cls(outcome="not_done", reason=reason)

    @classmethod
    def unknown(cls, reason: str) -> Reconciled:
        """Cannot tell: the call stays in doubt (idempotent tools, hooks, or a report)."""
        return cls(outcome="unknown", reason=reason)


@runtime_checkable
class Reconciles(Protocol):
    """A tool that can tell, after a crash, whether a call in doubt took effect.

    Consulted when a resumed run meets a call that was started and never recorded as ended,
    before anything else decides about it. `key` is the call's idempotency key. It may be
    sync (then it runs on a worker thread) or async; it has `reconcile_timeout` seconds if
    the tool sets that attribute, else `RECONCILE_TIMEOUT`. Raising or running out of time
    counts as `unknown`, with the error recorded. Never answer `done` unless the effect is
    certainly there: `done` means the call is not run again.
    """

    def reconcile(
        self, args: Mapping[str, Any], key: str, /
    ) -> Reconciled | Awaitable[Reconciled]: ...
