"""The fold: one pass over a point's ordered hooks, combining their results.

Each hook sees the event as modified by the hooks before it. The strongest decision wins
(``stop > block > ask > retry/continue > modify > proceed``); context texts accumulate. After
a `stop` or `block` only `always` hooks run, and they see the final decision. The caller
resolves asks and records the decision; this module only folds.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass, field, replace
from time import perf_counter
from typing import Any, Generic, TypeGuard, TypeVar, cast, final

from hookagent._errors import HookError
from hookagent._threads import ABANDONED, in_thread
from hookagent.hooks._decision import NO_CHANGES, Vote, diff
from hookagent.hooks._hook import CALL_ASYNC, CALL_SYNC_OUTCOME, Hook
from hookagent.hooks._points import HookPoint
from hookagent.hooks._result import PROCEED, AskSpec, HookResult
from hookagent.hooks._watch import HookTimeout, HookWatch, WaitSlot

__all__ = ["Folded", "fold"]

E = TypeVar("E")
_UNREAD: Any = object()
"""The matchers' subject before the first matcher reads it: most folds have no matcher."""
log = logging.getLogger("hookagent.hooks")


@final
@dataclass(slots=True, kw_only=True)
class Folded(Generic[E]):
    """The combined outcome of one fold. (Its factories are the plain `list`: a
    parametrized one is a typing alias whose call costs ten times as much.)"""

    event: E
    best: HookResult = PROCEED
    decided_by: str | None = None
    votes: list[Vote] = field(default_factory=list)
    contexts: list[str] = field(default_factory=list)
    metadata: dict[str, Any] | None = None
    asks: list[tuple[str, AskSpec]] = field(default_factory=list)
    modified_by: str | None = None
    ran: int = 0
    duration: float = 0.0

    @property
    def outcome(self) -> str:
        kind = self.best.kind
        if kind != "proceed":
            return kind
        if self.modified_by is not None:
            return "modify"
        return "context" if self.contexts else "proceed"


async def fold(  # noqa: C901, PLR0912, PLR0915  # one frame: a helper call is paid per hook
    point: HookPoint[E], hooks: tuple[Hook[E], ...], event: E, watch: HookWatch | None
) -> Folded[E] | HookResult | None:
    """Run `hooks` (ordered, all registered at `point`) over `event`.

    Returns None if no hook voted, the outcome alone (a `HookResult`) if only quiet hooks
    voted and routinely (nothing to record), and otherwise the whole `Folded` record.

    The loop body is the hot path of every step: a hook that returns None costs its call
    and a matcher check; an async hook also marks itself in the fold's `WaitSlot` for the
    watchdog that times it (see `watch.py`).
    """
    subject: Any = _UNREAD  # what matchers test, read from the event the fold began with
    given = event
    out: Folded[E] | None = None
    final = False
    skipped = 0  # counted on the path that calls nothing, so `ran` is free for the rest
    quiet: HookResult | None = None  # the strongest routine vote of quiet hooks, and whose
    quiet_by: str | None = None
    slot: WaitSlot | None = None  # fetched at the first async hook, when watched
    start = mark = perf_counter()
    for hook in hooks:
        fn, mode, matcher, always = hook.plan
        if final and not always:
            skipped += 1
            continue
        if matcher is not None:
            if subject is _UNREAD:
                subject = getattr(given, point.subject) if point.subject is not None else None
            if not matcher.accepts(subject, event):
                skipped += 1
                continue
        try:
            if not mode:  # CALL_SYNC, the common case, tested first and cheapest
                result = fn(event)
            elif mode == CALL_SYNC_OUTCOME:
                result = fn(event, _best(out))
            else:
                pending = fn(event) if mode == CALL_ASYNC else _pending(hook, event, out)
                if watch is None:
                    result = await pending
                else:
                    slot = slot or watch.slot()
                    slot.hook, slot.call = hook, pending
                    try:
                        result = await pending
                    except asyncio.CancelledError:
                        if watch.timed_out(_task()):
                            raise HookTimeout(hook.id, hook.blocking) from None
                        raise
                    finally:
                        slot.hook = None
                    if watch.expired and watch.timed_out(_task()):
                        # the hook swallowed the watchdog's cancel
                        raise HookTimeout(hook.id, hook.blocking)
        except HookTimeout as exc:
            error: BaseException | None = exc
            result = _on_failure(hook, point, _timed_out(hook), exc)
        except Exception as exc:
            error = exc
            result = _on_failure(hook, point, f"failed: {type(exc).__name__}: {exc}", exc)
        else:
            if result is None:
                continue
            if hook.quiet and out is None and _routine(result, hook):
                if quiet is None or result.rank > quiet.rank:
                    quiet, quiet_by = result, hook.id
                continue
            error = None
        # a vote's duration runs from the previous vote (or the fold's start)
        now = perf_counter()
        if out is None:
            out = Folded(event=event, best=quiet or PROCEED, decided_by=quiet_by)
        out.votes.append(_apply(point, hook, out, result, final, now - mark, error))
        event = out.event
        mark = now
        final = out.best.is_final
    if out is None:
        return quiet
    out.ran = len(hooks) - skipped
    out.duration = perf_counter() - start
    return out


def _routine(result: object, hook: Hook[Any]) -> TypeGuard[HookResult]:
    """A quiet hook's vote that needs no record: proceed or continue, nothing attached (a
    vote naming what decided it, `by`, is recorded)."""
    return (
        isinstance(result, HookResult)
        and result.kind in ("proceed", "continue")
        and result.kind in hook.allowed
        and not result.changes
        and not result.contexts
        and result.message is None
        and result.by is None
    )


def _task() -> asyncio.Task[Any]:
    task = asyncio.current_task()
    assert task is not None, "hooks are folded inside a task"
    return task


def _best(out: Folded[E] | None) -> HookResult:
    return PROCEED if out is None else out.best


def _pending(hook: Hook[E], event: E, out: Folded[E] | None) -> Awaitable[object]:
    args = (event, _best(out)) if hook.wants_outcome else (event,)
    if hook.blocking:
        return in_thread(hook.fn, *args)
    return cast(Awaitable[object], hook.fn(*args))


def _timed_out(hook: Hook[E]) -> str:
    """What a timed-out hook's failure says: a blocking hook's thread cannot be stopped."""
    what = f"timed out after {hook.timeout} s"
    return f"{what}; {ABANDONED}" if hook.blocking else what


def _on_failure(
    hook: Hook[E], point: HookPoint[E], what: str, exc: BaseException
) -> HookResult | None:
    message = f"hook {hook.id} at {point.name} {what}"
    if hook.on_failure == "raise":
        raise HookError(what, hook=hook.id, point=point.name) from exc
    if hook.on_failure == "block":
        if point.fail_closed == "block":
            return HookResult.block(message)
        return HookResult.stop(message, stop_reason="guard")
    log.warning("%s (failing open: the hook is %s)", message, _a(hook.kind))
    return None


def _apply(
    point: HookPoint[E],
    hook: Hook[E],
    out: Folded[E],
    result: HookResult | object | None,
    final: bool,
    duration: float,
    error: BaseException | None,
) -> Vote:
    if result is None:
        return Vote(hook=hook.id, decision="proceed", duration=duration, error=_text(error))
    # a result the engine built for a failing hook is legal by construction
    checked = cast(HookResult, result) if error is not None else _check(point, hook, result)
    changes: Mapping[str, Any] = NO_CHANGES
    if checked.changes and not final:
        changes = _modify(point, out, checked)
        out.modified_by = hook.id
    if checked.contexts and not final:
        out.contexts.extend(checked.contexts)
    if checked.rank > out.best.rank or _names_a_proceed(checked, out.best):
        out.best = checked
        out.decided_by = hook.id
    if checked.kind == "ask" and checked.ask_spec is not None and not final:
        out.asks.append((hook.id, checked.ask_spec))
    return Vote(
        hook=hook.id,
        decision=checked.label,
        reason=checked.reason,
        changes=changes,
        contexts=checked.contexts,
        duration=duration,
        error=_text(error) or checked.error,
        by=checked.by,
    )


def _names_a_proceed(result: HookResult, best: HookResult) -> bool:
    """A plain proceed naming what decided it (`by`) decides over plain proceeds naming
    nothing, so the record says why the call went ahead (an auto-allowed sandboxed call)."""
    return (
        result.by is not None
        and best.by is None
        and result.kind == best.kind == "proceed"
        and result.rank == best.rank
    )


def _check(point: HookPoint[E], hook: Hook[E], result: object) -> HookResult:
    def fail(problem: str) -> HookError:
        return HookError(problem, hook=hook.id, point=point.name)

    if not isinstance(result, HookResult):
        if inspect.isawaitable(result):
            if inspect.iscoroutine(result):
                result.close()
            raise fail(
                "returned an awaitable from a function registered as sync; declare it `async def`"
            )
        raise fail(
            f"returned {type(result).__name__} {result!r:.80}; expected a HookResult or None"
        )
    if not point.accepts(result.kind):
        legal = ", ".join(sorted({"proceed", *point.decisions}))
        raise fail(f"`{result.kind}` is not a legal decision here (legal: {legal})")
    if result.kind not in hook.allowed:
        raise fail(f"{_a(hook.kind)} hook may not return `{result.kind}`")
    if result.changes:
        if not hook.may_modify:
            raise fail(f"{_a(hook.kind)} hook may not modify the event")
        illegal = sorted(set(result.changes) - point.writable)
        if illegal:
            writable = ", ".join(sorted(point.writable)) or "nothing"
            raise fail(f"cannot modify {', '.join(illegal)} (writable here: {writable})")
    if result.contexts and not hook.may_context:
        raise fail("`context` is not delivered to the model from this point")
    return result


def _modify(point: HookPoint[E], out: Folded[E], result: HookResult) -> dict[str, Any]:
    fields = dict(result.changes)
    changes: dict[str, Any] = {}
    patch = fields.pop("metadata", None)
    if patch is not None:
        if out.metadata is None:
            out.metadata = {}
        out.metadata.update(patch)
        changes["metadata"] = {str(key): {"after": value} for key, value in patch.items()}
    if fields:
        for name, value in fields.items():
            changes[name] = diff(getattr(out.event, name), value)
        out.event = replace(cast(Any, out.event), **fields)
    return changes


def _a(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def _text(error: BaseException | None) -> str | None:
    if error is None:
        return None
    if isinstance(error, HookTimeout):
        return "timed out" + (f"; {ABANDONED}" if error.abandoned else "")
    return f"{type(error).__name__}: {error}"
