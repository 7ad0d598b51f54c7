"""Limits stop a run that would go on: a run whose model answers on its last allowed step
completes, as it would have without the limit.

Each limit is an `always` hook at the end of should_continue (audit tier) that sees the
folded decision and stops the run only when that decision is to continue (the model called
tools, a hook asked for another step); and one at stop that turns a stop hook's block (which
would buy another step) into a stop. A stop outranks continue and block, so no hook can
outvote a limit. The builder installs StepLimit(20), TokenLimit(32768), TimeLimit(300 s) and
ToolCallPresence by default, and `AgentBuilder.limits` replaces them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Final, final

from hookagent._errors import ConfigError
from hookagent.hooks._events import ContinueEvent, StopEvent
from hookagent.hooks._hook import Hook, make_hook
from hookagent.hooks._points import SHOULD_CONTINUE, STOP
from hookagent.hooks._result import HookResult
from hookagent.tools._base import Tool

if TYPE_CHECKING:
    from hookagent.kernel._view import RunView

__all__ = [
    "Limit",
    "StepLimit",
    "TimeLimit",
    "TokenLimit",
    "ToolCallPresence",
    "quiet_continue",
    "quiet_stop",
]


Check = Callable[["ContinueEvent | StopEvent"], "HookResult | None"]


def _positive(owner: str, name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ConfigError(
            f"must be a positive number, not {value!r}", key=f"{owner}({name})", value=value
        )


class Limit:
    """A capability whose check stops a run that would go on (see the module)."""

    name = "limits"

    def tools(self) -> Iterable[Tool]:
        return ()

    def _hooks(
        self, label: str, measure: Callable[[RunView], float], ceiling: float, check: Check
    ) -> Iterable[Hook[Any]]:
        """`check(event)` (the stop, with its message) at should_continue when the run would
        continue and `measure(run)` has reached `ceiling`, and at stop when a stop hook blocks
        the stop."""

        common: dict[str, Any] = {
            "name": label,
            "source": "limits",
            "tier": "audit",
            "always": True,
            "timeout": None,
        }
        yield make_hook(SHOULD_CONTINUE, _Reached(measure, ceiling, check), **common)
        yield make_hook(STOP, _RefusesBlock(check), **common)


@final
class _Reached:
    """A limit's should_continue hook. It tests the limit in its own frame and calls `check`
    only to stop; its `measure` and `ceiling` let `quiet_continue` tell, with no fold, that
    it would not vote."""

    __slots__ = ("ceiling", "check", "measure")

    def __init__(self, measure: Callable[[RunView], float], ceiling: float, check: Check):
        self.measure = measure
        self.ceiling = ceiling
        self.check = check

    def __call__(self, event: ContinueEvent, best: HookResult) -> HookResult | None:
        # ToolCallPresence's continue is a quiet vote, not in `best`: count the calls.
        if (best.kind == "continue" or event.tool_calls) and self.measure(
            event.run
        ) >= self.ceiling:
            return self.check(event)
        return None


@final
class _RefusesBlock:
    """A limit's stop hook: a stop hook's block would buy another step, so it stops the run
    instead (`check`) when the fold so far blocks, and else does not vote. A type of its own
    lets `quiet_stop` tell, with no fold, that it would not vote."""

    __slots__ = ("check",)

    def __init__(self, check: Check):
        self.check = check

    def __call__(self, event: StopEvent, best: HookResult) -> HookResult | None:
        return self.check(event) if best.kind == "block" else None


Hooks = tuple[Hook[Any], ...] | None
Current = Callable[[], Hooks]
"""A point's hooks as they are now (`Dispatcher.wants` for the point)."""
Quiet = Callable[["RunView", int], bool]


def quiet_continue(hooks: Hooks, current: Current | None = None) -> Quiet | None:
    """For the hooks at should_continue: when they are only the limits' own, with a
    `ToolCallPresence`, a test `quiet(run, calls)` of whether their fold after a step that
    ran `calls` tool calls records nothing: presence's routine continue when the model
    called tools and no limit is reached, no vote at all when it called none. The kernel
    then goes on (or on to the stop) without building the event or folding; when a limit
    is reached the fold runs and records the stop as ever. None when any other hook
    listens there: then every step folds. `current()` gives the point's hooks as they are
    now: once a hook is added or removed during the run, every step folds."""
    seen, limits = _SEEN[0]
    if seen is not hooks:  # every run asks, mostly of the same hooks: the last answer is kept
        limits = _gauges(hooks)
        _SEEN[0] = (hooks, limits)
    if limits is None:
        return None

    def under(run: RunView, calls: int) -> bool:
        if current is not None and current() is not hooks:
            return False  # the hooks changed since: the fold decides
        if not calls:
            return True  # presence does not vote, and so neither does a limit
        for measure, ceiling in limits:  # noqa: SIM110  # no generator: this runs every step
            if measure(run) >= ceiling:
                return False
        return True

    return under


Gauges = tuple[tuple[Callable[["RunView"], float], float], ...]


def _gauges(hooks: Hooks) -> Gauges | None:
    """The limits' measures and ceilings, if `hooks` are only the limits' own with a
    `ToolCallPresence`; else None."""
    gauges: list[tuple[Callable[[RunView], float], float]] = []
    presence = False
    for hook in hooks or ():
        fn = hook.fn
        if hook.match is not None:
            return None
        if isinstance(fn, _Reached):
            gauges.append((fn.measure, fn.ceiling))
        elif isinstance(getattr(fn, "__self__", None), ToolCallPresence):
            presence = True
        else:
            return None
    return tuple(gauges) if presence else None


_SEEN: list[tuple[Hooks, Gauges | None]] = [(None, None)]
"""The hooks `quiet_continue` was last asked about, and its answer (one tuple, replaced
whole, so a reader on another thread sees a matching pair)."""


def quiet_stop(hooks: Hooks, current: Current | None = None) -> Callable[[], bool] | None:
    """For the hooks at stop: when they are only the limits' own (or none), which vote only
    on a block no other hook there can give, a test that their fold records nothing and the
    run completes; the kernel then ends the run without building the event or folding. None
    when any other hook listens there. `current()` as for `quiet_continue`."""
    for hook in hooks or ():
        if hook.match is not None or not isinstance(hook.fn, _RefusesBlock):
            return None

    def unchanged() -> bool:
        return current is None or current() is hooks

    return unchanged


_STEPS: Final = attrgetter("step_count")
_TOKENS: Final = attrgetter("usage.total_tokens")
_ELAPSED: Final = attrgetter("elapsed")
"""What the default limits measure, read without a Python frame of their own."""


@final
class StepLimit(Limit):
    """Stops the run once it has taken `max_steps` steps."""

    def __init__(self, max_steps: int = 20) -> None:
        if isinstance(max_steps, float):
            raise ConfigError(
                f"must be a whole number, not {max_steps!r}",
                key="StepLimit(max_steps)",
                value=max_steps,
            )
        _positive("StepLimit", "max_steps", max_steps)
        self.max_steps = max_steps

    def hooks(self) -> Iterable[Hook[Any]]:
        yield from self._hooks("step_limit", _STEPS, self.max_steps, self.check)

    def check(self, event: ContinueEvent | StopEvent) -> HookResult | None:
        if event.run.step_count >= self.max_steps:
            return HookResult.stop(
                f"step limit reached ({self.max_steps} steps)", stop_reason="steps_limit"
            )
        return None


@final
class TokenLimit(Limit):
    """Stops the run once input plus output tokens reach `max_tokens`."""

    def __init__(self, max_tokens: int = 32_768) -> None:
        _positive("TokenLimit", "max_tokens", max_tokens)
        self.max_tokens = max_tokens

    def hooks(self) -> Iterable[Hook[Any]]:
        yield from self._hooks("token_limit", _TOKENS, self.max_tokens, self.check)

    def check(self, event: ContinueEvent | StopEvent) -> HookResult | None:
        used = event.run.usage.total_tokens
        if used >= self.max_tokens:
            return HookResult.stop(
                f"token limit reached ({used} of {self.max_tokens} tokens)",
                stop_reason="token_limit",
            )
        return None


@final
class TimeLimit(Limit):
    """Stops the run once its execution time (summed across resumes) reaches `max_seconds`.

    Checked between steps, like the original: a step in progress is not interrupted.
    """

    def __init__(self, max_seconds: float = 300.0) -> None:
        _positive("TimeLimit", "max_seconds", max_seconds)
        self.max_seconds = float(max_seconds)

    def hooks(self) -> Iterable[Hook[Any]]:
        yield from self._hooks("time_limit", _ELAPSED, self.max_seconds, self.check)

    def check(self, event: ContinueEvent | StopEvent) -> HookResult | None:
        if event.run.elapsed >= self.max_seconds:
            return HookResult.stop(
                f"time limit reached ({event.run.elapsed:.1f} of {self.max_seconds:g} s)",
                stop_reason="time_limit",
            )
        return None


@final
class ToolCallPresence(Limit):
    """Keeps the loop going while the model calls tools; a reply without calls ends it."""

    def hooks(self) -> Iterable[Hook[Any]]:
        yield make_hook(
            SHOULD_CONTINUE,
            self.check,
            name="tool_call_presence",
            source="limits",
            tier="policy",
            priority=0,
            kind="transform",
            timeout=None,
            quiet=True,
        )

    def check(self, event: ContinueEvent) -> HookResult | None:
        if event.tool_calls:
            return _CONTINUE
        return None


_CONTINUE = HookResult.continue_("the model called tools")
