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
from collections.abc import Awaitable
from dataclasses import dataclass, field, replace
from time import perf_counter
from typing import Any, Generic, TypeVar, cast, final

from hookagent.errors import HookError
from hookagent.hooks.decision import Vote, diff
from hookagent.hooks.hook import Hook
from hookagent.hooks.points import HookPoint
from hookagent.hooks.result import PROCEED, AskSpec, HookResult
from hookagent.hooks.watch import HookTimeout, HookWatch

__all__ = ["Folded", "fold"]

E = TypeVar("E")
log = logging.getLogger("hookagent.hooks")


@final
@dataclass(slots=True, kw_only=True)
class Folded(Generic[E]):
    """The combined outcome of one fold."""

    event: E
    best: HookResult = PROCEED
    decided_by: str | None = None
    votes: list[Vote] = field(default_factory=list[Vote])
    contexts: list[str] = field(default_factory=list[str])
    metadata: dict[str, Any] | None = None
    asks: list[tuple[str, AskSpec]] = field(default_factory=list[tuple[str, AskSpec]])
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


async def fold(
    point: HookPoint[E], hooks: tuple[Hook[E], ...], event: E, watch: HookWatch | None
) -> Folded[E]:
    """Run `hooks` (already ordered and all registered at `point`) over `event`."""
    out = Folded(event=event)
    subject = getattr(event, point.subject) if point.subject is not None else None
    final = False
    start = mark = perf_counter()
    for hook in hooks:
        if final and not hook.always:
            continue
        matcher = hook.match
        if matcher is not None and not matcher.accepts(subject, out.event):
            continue
        out.ran += 1
        error: BaseException | None = None
        try:
            result = await _call(hook, out, watch) if hook.is_async else _call_sync(hook, out)
        except HookTimeout as exc:
            error = exc
            result = _on_failure(hook, point, f"timed out after {hook.timeout} s", exc)
        except Exception as exc:
            error = exc
            result = _on_failure(hook, point, f"failed: {type(exc).__name__}: {exc}", exc)
        now = perf_counter()
        if result is None and error is None:
            mark = now
            continue
        vote = _apply(point, hook, out, result, final, now - mark, error)
        out.votes.append(vote)
        mark = now
        final = out.best.is_final
    out.duration = perf_counter() - start
    return out


async def _call(hook: Hook[E], out: Folded[E], watch: HookWatch | None) -> object:
    if hook.blocking:
        pending: Awaitable[object] = asyncio.to_thread(hook.fn, *_args(hook, out))
    else:
        pending = cast(Awaitable[object], hook.fn(*_args(hook, out)))
    if watch is None or hook.timeout is None:
        return await pending
    task = asyncio.current_task()
    assert task is not None
    watch.enter(task, hook, hook.timeout)
    try:
        return await pending
    except asyncio.CancelledError:
        # only our own cancellation becomes a timeout; one from outside still propagates
        if watch.leave(task) and task.cancelling() == 0:
            raise HookTimeout(hook.id) from None
        raise
    finally:
        watch.leave(task)


def _call_sync(hook: Hook[E], out: Folded[E]) -> object:
    return hook.fn(out.event, out.best) if hook.wants_outcome else hook.fn(out.event)


def _args(hook: Hook[E], out: Folded[E]) -> tuple[object, ...]:
    return (out.event, out.best) if hook.wants_outcome else (out.event,)


def _on_failure(
    hook: Hook[E], point: HookPoint[E], what: str, exc: BaseException
) -> HookResult | None:
    message = f"hook {hook.id} at {point.name} {what}"
    if hook.on_failure == "raise":
        raise HookError(what, hook=hook.id, point=point.name) from exc
    if hook.on_failure == "block":
        if point.accepts("block"):
            return HookResult.block(message)
        return HookResult.stop(message, stop_reason="guard")
    log.warning("%s (failing open: the hook is %s)", message, _a(hook.kind))
    return None


def _apply(
    point: HookPoint[E],
    hook: Hook[E],
    out: Folded[E],
    result: object,
    final: bool,
    duration: float,
    error: BaseException | None,
) -> Vote:
    if result is None:
        return Vote(hook=hook.id, decision="proceed", duration=duration, error=_text(error))
    # a result the engine built for a failing hook is legal by construction
    checked = result if error is not None else _check(point, hook, result)
    changes: dict[str, Any] = {}
    if checked.changes and not final:
        changes = _modify(point, out, checked)
        out.modified_by = hook.id
    if checked.contexts and not final:
        out.contexts.extend(checked.contexts)
    if checked.rank > out.best.rank:
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
        error=_text(error),
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
        return "timed out"
    return f"{type(error).__name__}: {error}"
