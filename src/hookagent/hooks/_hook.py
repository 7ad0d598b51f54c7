"""A registered hook: a function plus where, when and how strictly it runs.

Everything about a hook that the hot path needs is decided here, once: whether it is async,
whether it wants to see the decision so far, which decisions it may return at its point.
"""

from __future__ import annotations

import fnmatch
import inspect
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import field
from typing import Any, Final, Generic, Literal, TypeAlias, TypedDict, TypeVar, Unpack

from hookagent._errors import ConfigError, check_choice
from hookagent._record import record
from hookagent.hooks._matchers import Matcher, MatchSpec, compile_matcher
from hookagent.hooks._points import HookPoint
from hookagent.hooks._result import HookResult, Kind

__all__ = [
    "DEFAULT_HOOK_TIMEOUT",
    "Hook",
    "Inherit",
    "InheritFor",
    "HookFn",
    "HookKind",
    "HookOptions",
    "OnFailure",
    "TIERS",
    "Tier",
    "make_hook",
    "match",
    "observers",
]

E = TypeVar("E")
HookKind = Literal["guard", "transform", "observer"]
OnFailure = Literal["block", "proceed", "raise"]
Tier = Literal["system", "policy", "default", "audit"]
TIERS: Final[dict[Tier, int]] = {"system": 0, "policy": 1, "default": 2, "audit": 3}
HookFn: TypeAlias = Callable[..., "HookResult | Awaitable[HookResult | None] | None"]


@record(kw_only=False)
class InheritFor:
    """A hook that subagents of these types inherit (`fnmatch` patterns)."""

    agent_types: tuple[str, ...]

    def __call__(self, agent_type: str) -> bool:
        return any(fnmatch.fnmatchcase(agent_type, t) for t in self.agent_types)


def match(*, agent_type: str | tuple[str, ...] | list[str]) -> InheritFor:
    """`inherit=match(agent_type="reviewer")`: only subagents of that type get the hook."""
    types = (agent_type,) if isinstance(agent_type, str) else tuple(agent_type)
    return InheritFor(types)


Inherit: TypeAlias = Literal["all", "none"] | InheritFor
"""Which subagents run a hook too. Policy-tier hooks are inherited by all, whatever this says:
a child never escapes a parent's guard."""

DEFAULT_HOOK_TIMEOUT: Final = 60.0
"""Seconds an async (or blocking) in-process hook may take before it counts as failed."""

_DEFAULT_ON_FAILURE: Final[dict[HookKind, OnFailure]] = {
    "guard": "block",
    "transform": "proceed",
    "observer": "proceed",
}
_PROCEED: Final[frozenset[Kind]] = frozenset({"proceed"})
_KIND_DECISIONS: Final[dict[HookKind, frozenset[Kind]]] = {
    "guard": frozenset({"proceed", "retry", "continue", "ask", "block", "stop"}),
    "transform": frozenset({"proceed", "retry", "continue"}),
    "observer": frozenset({"proceed"}),
}


@record
class Hook(Generic[E]):
    """One hook at one point. Build it with `make_hook`, which checks and normalises."""

    point: HookPoint[E]
    fn: HookFn = field(repr=False)
    name: str
    source: str = "user"
    """Who installed it: `user`, a capability name, or a settings file."""
    match: Matcher | None = None
    priority: int = 0
    tier: Tier = "default"
    kind: HookKind = "guard"
    timeout: float | None = DEFAULT_HOOK_TIMEOUT
    on_failure: OnFailure = "block"
    always: bool = False
    """Runs even after a block or stop, and sees the final decision (audit hooks)."""
    quiet: bool = False
    """Its routine votes (a plain proceed or continue with no context or change) are not
    recorded as decisions; for hooks that restate what step records already show."""
    blocking: bool = False
    """A sync function that may block: it runs on a worker thread, under `timeout`."""
    inherit: Inherit = "all"
    """Which subagents run this hook too (see `Inherit`)."""
    replayed: bool = False
    """Also called, over the event as the fold left it, when a resumed durable run takes
    the fold's outcome from its journal instead of calling the hooks: an observer of what
    this process sees of the run (spans, a live view; `observers`), where a record the run
    already wrote (an audit trail) must not see the fold twice."""
    is_async: bool = field(default=False, repr=False)
    wants_outcome: bool = field(default=False, repr=False)
    """The function takes a second argument: the strongest result so far."""
    allowed: frozenset[Kind] = field(default=frozenset(), repr=False)
    may_modify: bool = field(default=False, repr=False)
    may_context: bool = field(default=False, repr=False)
    plan: tuple[Any, int, Matcher | None, bool] = field(default=(None, 0, None, False), repr=False)
    """(fn, call mode, matcher, always), unpacked in one go on the fold's hot path."""

    id: str = field(default="", repr=False)
    """`source:name`, as records and errors show it (set by `make_hook`)."""

    def inherited_by(self, agent_type: str) -> bool:
        """Whether a subagent of `agent_type` runs this hook too."""
        if self.tier in ("system", "policy"):
            return True
        inherit = self.inherit
        if inherit == "all":
            return True
        if inherit == "none":
            return False
        return inherit(agent_type)

    @property
    def sort_key(self) -> tuple[int, int]:
        return (TIERS[self.tier], -self.priority)


class HookOptions(TypedDict, total=False):
    """How a hook runs; shared by `make_hook`, `AgentBuilder.on` and `@hook`."""

    match: MatchSpec
    name: str | None
    source: str
    priority: int
    tier: Tier
    kind: HookKind
    timeout: float | None
    on_failure: OnFailure | None
    always: bool
    blocking: bool
    quiet: bool
    inherit: Inherit


def make_hook(point: HookPoint[E], fn: HookFn, **options: Unpack[HookOptions]) -> Hook[E]:
    """Check a hook's settings against its point and freeze them."""
    return _build(point, fn, **options)


def observers(source: str, plan: Iterable[tuple[HookPoint[Any], HookFn]]) -> Iterator[Hook[Any]]:
    """Audit-tier observers, one per (point, function), each named after its point: they run
    after every other hook (`always`), so they see each fold's final outcome and change
    none (tracing, a live stream); they watch this process's view of a run, so they see the
    folds a resumed run replays too (`replayed`)."""
    for point, fn in plan:
        yield _build(
            point,
            fn,
            name=point.name,
            source=source,
            tier="audit",
            kind="observer",
            always=True,
            timeout=None,
            replayed=True,
        )


def _build(
    point: HookPoint[E],
    fn: HookFn,
    *,
    match: MatchSpec = None,
    name: str | None = None,
    source: str = "user",
    priority: int = 0,
    tier: Tier = "default",
    kind: HookKind = "guard",
    timeout: float | None = DEFAULT_HOOK_TIMEOUT,
    on_failure: OnFailure | None = None,
    always: bool = False,
    blocking: bool = False,
    quiet: bool = False,
    inherit: Inherit = "all",
    replayed: bool = False,
) -> Hook[E]:
    label = name or getattr(fn, "__name__", None) or type(fn).__name__
    where = f"hook {source}:{label} at {point.name}"
    if not callable(fn):
        raise ConfigError(f"{fn!r} is not callable", key=where)
    if tier not in TIERS:
        raise ConfigError(f"tier must be one of {', '.join(TIERS)}, not {tier!r}", key=where)
    if isinstance(priority, bool) or not isinstance(priority, int):
        raise ConfigError(
            f"priority must be a whole number (higher runs first), not {priority!r}",
            key=where,
            value=priority,
        )
    if kind not in _KIND_DECISIONS:
        raise ConfigError(f"kind must be guard, transform or observer, not {kind!r}", key=where)
    if on_failure is not None:
        check_choice(on_failure, ("block", "proceed", "raise"), key=where, what="on_failure")
    if inherit not in ("all", "none") and not isinstance(inherit, InheritFor):
        raise ConfigError(
            f'inherit must be "all", "none" or match(agent_type=...), not {inherit!r}',
            key=where,
            value=inherit,
        )
    if timeout is not None and not timeout > 0:
        raise ConfigError(
            f"timeout must be a positive number of seconds, not {timeout!r}",
            key=where,
            value=timeout,
        )
    matcher = compile_matcher(match)
    if matcher is not None and matcher.uses_subject and point.subject is None:
        raise ConfigError(
            f"{point.name} events have no name to match {match!r} against; use a callable matcher",
            key=where,
            value=match,
        )
    is_async = _is_async(fn)
    wants_outcome = _positional_arity(fn) >= 2
    if blocking and is_async:
        raise ConfigError("blocking=True is for sync functions; this one is async", key=where)
    return Hook(
        point=point,
        fn=fn,
        name=label,
        source=source,
        match=matcher,
        priority=priority,
        tier=tier,
        kind=kind,
        timeout=timeout,
        on_failure=on_failure or _DEFAULT_ON_FAILURE[kind],
        always=always,
        blocking=blocking,
        quiet=quiet,
        inherit=inherit,
        replayed=replayed,
        id=f"{source}:{label}",
        is_async=is_async or blocking,
        wants_outcome=wants_outcome,
        allowed=(point.decisions | _PROCEED) & _KIND_DECISIONS[kind],
        may_modify=bool(point.writable) and kind != "observer",
        may_context=point.feeds_model,
        plan=(fn, _mode(is_async, blocking, wants_outcome), matcher, always),
    )


CALL_SYNC: Final = 0
CALL_ASYNC: Final = 1
CALL_SYNC_OUTCOME: Final = 2
CALL_OTHER: Final = 3
"""How the fold calls a hook: plain sync, plain async, sync with the outcome so far, or
anything else (async with the outcome, or blocking on a thread)."""


def _mode(is_async: bool, blocking: bool, wants_outcome: bool) -> int:
    if blocking or (is_async and wants_outcome):
        return CALL_OTHER
    if is_async:
        return CALL_ASYNC
    return CALL_SYNC_OUTCOME if wants_outcome else CALL_SYNC


def _is_async(fn: Any) -> bool:
    if inspect.iscoroutinefunction(fn):
        return True
    call = getattr(fn, "__call__", None)  # noqa: B004  # callable objects with async __call__
    return call is not None and inspect.iscoroutinefunction(call)


def _positional_arity(fn: Any) -> int:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 1
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params):
        return 2
    # parameters with defaults (`lambda e, patch=patch: ...`) do not ask for the outcome
    empty = inspect.Parameter.empty
    return sum(1 for p in params if p.kind in kinds and p.default is empty)
