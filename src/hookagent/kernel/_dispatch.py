"""`fire`: the kernel's one call per hook point.

Runs the fold, settles any `ask` through the approver, records the decision in the run state,
and applies metadata changes. A point with no hooks costs a dict lookup.

The fold runner and the settling of questions are injected (`kernel.seams`): a layer that
keeps runs journals them there, and the dispatcher does not know it.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Final, TypeVar, cast, final

from hookagent._errors import ApprovalError
from hookagent._remedies import NO_APPROVER, advice
from hookagent.hooks._decision import Decision
from hookagent.hooks._engine import Folded, fold
from hookagent.hooks._events import NotificationEvent, PermissionEvent
from hookagent.hooks._hook import Hook
from hookagent.hooks._points import NOTIFICATION, PERMISSION_REQUEST, HookPoint
from hookagent.hooks._registry import HookRegistry
from hookagent.hooks._result import HookResult
from hookagent.hooks._watch import HookWatch
from hookagent.kernel._approval import Answer, Approver, Question
from hookagent.kernel._seams import FoldRunner, Settle, settle_directly
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView
from hookagent.models._base import ToolSpec

__all__ = ["NO_DECISION", "Dispatcher"]

E = TypeVar("E")

NO_DECISION: Final = Decision(point="", run_id="", step=0, call_id=None, outcome="proceed")
"""Returned when no hook ran; never recorded."""


@final
class Dispatcher:
    __slots__ = (
        "_approver",
        "_by_point",
        "_fold",
        "_on_decision",
        "_registry",
        "_settle_one",
        "_state",
        "_watch",
        "view",
        "wants",
    )

    def __init__(
        self,
        registry: HookRegistry,
        state: RunState,
        view: RunView | None = None,
        *,
        approver: Approver | None,
        watch: HookWatch | None,
        fold_runner: FoldRunner = fold,
        settle: Settle = settle_directly,
        tool_specs: tuple[ToolSpec, ...] = (),
        on_decision: Callable[[Decision], None] | None = None,
    ) -> None:
        """`view`: the run's view for hooks; None makes one over `state` that fires through
        this dispatcher (`RunView.fire`). `on_decision` hears of each decision this
        dispatcher records (a gate call keeps its own)."""
        self._registry = registry
        self._by_point = registry.snapshot()
        self.wants: Callable[[HookPoint[Any]], tuple[Hook[Any], ...] | None] = self._by_point.get
        """Truthy if any hook listens at a point; the kernel skips building events nobody
        would see. (A bound `dict.get`: this runs several times per step.)"""
        self._state = state
        self.view = view if view is not None else RunView(state, tool_specs, fire=self.fire)
        self._approver = approver
        self._watch = watch
        self._fold = fold_runner
        self._settle_one = settle
        self._on_decision = on_decision

    @property
    def has_approver(self) -> bool:
        return self._approver is not None

    async def fire(self, point: HookPoint[E], event: E) -> tuple[Decision, E]:
        hooks = self._by_point.get(point)
        if not hooks:
            return NO_DECISION, event
        folded = await self._fold(point, hooks, event, self._watch)
        if folded is None:
            return NO_DECISION, event
        if isinstance(folded, HookResult):  # only quiet hooks voted, routinely
            return _ROUTINE[folded.kind], event
        answer = await self._settle(point, folded) if folded.best.kind == "ask" else None
        decision = self._record(point, folded, answer)
        return decision, folded.event

    async def fire_now(self, point: HookPoint[E], event: E) -> tuple[Decision, E]:
        """`fire` past the injected fold runner, for points that belong to the process rather
        than to the run (session_start, session_end): a resumed run runs their hooks again
        instead of replaying them. Their points accept no `ask`."""
        hooks = self._by_point.get(point)
        folded = await fold(point, hooks, event, self._watch) if hooks else None
        if folded is None:
            return NO_DECISION, event
        if isinstance(folded, HookResult):
            return _ROUTINE[folded.kind], event
        return self._record(point, folded, None), folded.event

    def _record(self, point: HookPoint[E], folded: Folded[E], answer: str | None) -> Decision:
        best = folded.best
        state = self._state
        decision = Decision(
            point=point.name,
            run_id=state.run_id,
            step=state.position.step,
            call_id=point.call_field(folded.event, "call_id"),
            outcome=folded.outcome,
            reason=best.reason,
            hook=_decider(folded),
            votes=tuple(folded.votes),
            ran=folded.ran,
            duration=folded.duration,
            contexts=tuple(folded.contexts),
            stop_reason=best.stop_reason if best.kind == "stop" else None,
            message=best.message,
            answer=answer,
            by=best.by,
        )
        if folded.metadata:
            state.metadata.update(folded.metadata)
        state.decisions.append(decision)
        if self._on_decision is not None:
            self._on_decision(decision)
        return decision

    async def _settle(self, point: HookPoint[E], folded: Folded[E]) -> str:
        """Ask each question in turn; the first denial refuses the action."""
        answers: list[str] = []
        for index, (hook_id, spec) in enumerate(folded.asks):
            question = Question(
                point=point.name,
                hook=hook_id,
                question=spec.question,
                options=spec.options,
                run_id=self._state.run_id,
                step=self._state.position.step,
                call_id=point.call_field(folded.event, "call_id"),
                tool_name=point.call_field(folded.event, "tool_name"),
                args=point.call_field(folded.event, "args"),
                timeout=spec.timeout,
                default=spec.default,
            )
            answer = await self._settle_one(question, index, self)
            if not answer.approved:
                why = answer.reason or "no reason given"
                if answer.stop_reason is not None:  # every point that asks accepts `stop`
                    folded.best = HookResult.stop(why, stop_reason=answer.stop_reason)
                    folded.decided_by = answer.by
                    return f"stopped by {answer.by}: {why}"
                folded.best = _refusal(point, f"{hook_id} asked {spec.question!r}; denied: {why}")
                folded.decided_by = hook_id
                return f"denied by {answer.by}: {why}"
            if answer.updated_args is not None and "args" in point.call_fields:
                folded.event = replace(cast(Any, folded.event), args=answer.updated_args)
            answers.append(_describe(answer))
        return "; ".join(answers)  # the outcome stays `ask`, which the kernel lets through

    async def ask_hooks(self, question: Question) -> Answer | None:
        """permission_request hooks may answer for the human (or refuse)."""
        if not self.wants(PERMISSION_REQUEST):
            return None
        decision, event = await self.fire(
            PERMISSION_REQUEST,
            PermissionEvent(run=self.view, question=question, tool_name=question.tool_name),
        )
        if decision.outcome in ("block", "stop"):
            stop = (decision.stop_reason or "hook_stop") if decision.outcome == "stop" else None
            by = decision.hook or "a permission hook"
            return Answer(approved=False, by=by, reason=decision.reason, stop_reason=stop)
        if event.answer is not None:
            return replace(event.answer, by=decision.hook or event.answer.by)
        return None

    async def ask_human(self, question: Question) -> Answer:
        await self.fire(
            NOTIFICATION,
            NotificationEvent(
                run=self.view,
                kind="permission_prompt",
                message=question.question,
                title=f"{question.hook} asks",
                details={"point": question.point},
            ),
        )
        return await self._answer(question)

    async def _answer(self, question: Question) -> Answer:
        if self._approver is None:
            return Answer(
                approved=False,
                by="nobody",
                reason=(
                    f"approval required but this run has no approver (hook {question.hook} at "
                    f"{question.point}); " + advice(NO_APPROVER, "pass approver= to run()")
                ),
            )
        try:
            reply: Any = self._approver(question)
            if inspect.isawaitable(reply):
                reply = await asyncio.wait_for(reply, question.timeout)
        except TimeoutError:
            approved = question.default == "approve"
            return Answer(
                approved=approved,
                by="default",
                reason=f"no answer within {question.timeout} s; default {question.default}",
            )
        if isinstance(reply, bool):
            return Answer(approved=reply)
        if not isinstance(reply, Answer):
            raise ApprovalError(
                f"the approver returned {reply!r:.80}; expected an Answer or "
                f"a bool (question from hook {question.hook} at {question.point})"
            )
        return reply


def _decider(folded: Folded[Any]) -> str | None:
    """For a modification, the hook whose change stands last; else the deciding hook; for
    a fold that only added context, the hooks that added it (else those that voted)."""
    if folded.best.kind == "proceed" and folded.modified_by is not None:
        return folded.modified_by
    found = folded.decided_by or folded.modified_by
    if found is not None:
        return found
    votes = folded.votes
    named = [vote.hook for vote in votes if vote.contexts] or [vote.hook for vote in votes]
    return ", ".join(dict.fromkeys(named)) or None


_ROUTINE: Final = {
    kind: Decision(point="", run_id="", step=0, call_id=None, outcome=kind)
    for kind in ("proceed", "continue")
}
"""What quiet folds return: the outcome, with nothing to record."""


def _describe(answer: Answer) -> str:
    text = "approved" if answer.by == "approver" else f"approved by {answer.by}"
    return f"{text}: {answer.reason}" if answer.reason else text


def _refusal(point: HookPoint[Any], reason: str) -> HookResult:
    if point.accepts("block"):
        return HookResult.block(reason)
    return HookResult.stop(reason, stop_reason="guard")
