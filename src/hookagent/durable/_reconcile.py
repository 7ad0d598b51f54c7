"""Settling a call in doubt with its tool's `reconcile`, and the record of how it went.

A resumed run that meets a call started but never recorded as ended asks the tool, if it
`Reconciles`, whether the effect happened. Whatever the answer, a decision at the
`reconcile` point records it (outcome `done`, `not_done` or `unknown`, the tool's reason, and
the error when the reconcile raised, ran out of time or answered something else), so the user
sees how the doubt was settled.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Mapping
from dataclasses import replace
from time import perf_counter
from typing import Any, Final

from hookagent._messages import ToolCall
from hookagent._threads import in_thread
from hookagent.durable import _codec as codec
from hookagent.durable._seam import Journal
from hookagent.hooks._decision import Decision, Vote
from hookagent.kernel._context import RunContext
from hookagent.store._records import CallState
from hookagent.tools._base import Reconciled, ToolResult
from hookagent.tools._traits import Reconcile, ToolTraits

__all__ = ["RECONCILE", "note", "reconcile", "settle"]

RECONCILE: Final = "reconcile"
"""The point name of the decisions that record a reconcile."""


async def settle(
    ctx: RunContext, call: ToolCall, args: Mapping[str, Any], durable: Journal, key: str
) -> Reconciled | None:
    """Mark the call in doubt and ask its tool (None if it does not reconcile); the answer
    is recorded as a decision and journaled under `key`, and a call found done is done."""
    step = ctx.state.position.step
    record = durable.call(call.id, step, call.name, args, "in_doubt")
    found = await reconcile(
        call.name,
        ctx.traits[call.name],
        args,
        record.idempotency_key,
        run_id=ctx.view.run_id,
        step=step,
        call_id=call.id,
    )
    if found is None:
        return None
    answer, decision = found
    durable.record(key, RECONCILE, codec.dump("decision", decision))
    note(ctx, decision)
    if answer.result is not None:  # as a resumed run will read it
        data, result = codec.stored("result", answer.result)
        state: CallState = "failed" if result.is_error else "done"
        durable.finish_call(call.id, state, data)
        answer = replace(answer, result=result)
    return answer


def note(ctx: RunContext, decision: Decision) -> None:
    """Add a decision to the run's records."""
    ctx.state.decisions.append(decision)


async def reconcile(
    name: str,
    traits: ToolTraits,
    args: Mapping[str, Any],
    key: str,
    *,
    run_id: str,
    step: int,
    call_id: str,
) -> tuple[Reconciled, Decision] | None:
    """The tool's answer and its decision record; None when the tool does not reconcile."""
    ask = traits.reconcile
    if ask is None:
        return None
    started = perf_counter()
    answer: Any = None
    timeout = traits.reconcile_timeout  # checked when the agent was built
    error: str | None = None
    scope = asyncio.timeout(timeout)
    try:
        async with scope:
            answer = await _answer(ask, dict(args), key)
    except Exception as exc:  # the tool's failure to tell: the call stays in doubt
        error = (
            f"reconcile timed out after {timeout:g} s"
            if scope.expired()
            else f"reconcile raised {type(exc).__name__}: {exc}"
        )
    if error is None and not _valid(answer):
        error = f"reconcile returned {answer!r}, not Reconciled.done/not_done/unknown"
    settled: Reconciled = Reconciled.unknown(error) if error is not None else answer
    duration = perf_counter() - started
    hook, reason = f"tool:{name}", settled.reason or None
    vote = Vote(hook=hook, decision=settled.outcome, reason=reason, duration=duration, error=error)
    decision = Decision(
        point=RECONCILE,
        run_id=run_id,
        step=step,
        call_id=call_id,
        outcome=settled.outcome,
        reason=reason,
        hook=hook,
        votes=(vote,),
        ran=1,
        duration=duration,
    )
    return settled, decision


async def _answer(ask: Reconcile, args: dict[str, Any], key: str) -> Any:
    """An async reconcile is awaited; a sync one runs on a worker thread, so one that hangs
    is abandoned at its timeout without keeping the process alive."""
    if inspect.iscoroutinefunction(ask):
        return await ask(args, key)
    answer: Any = await in_thread(ask, args, key)
    if inspect.isawaitable(answer):
        answer = await answer
    return answer


def _valid(answer: Any) -> bool:
    if not isinstance(answer, Reconciled):
        return False
    if answer.outcome == "done":
        return isinstance(answer.result, ToolResult)
    return answer.outcome in ("not_done", "unknown")
