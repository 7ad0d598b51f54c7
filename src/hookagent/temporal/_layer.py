"""`TemporalLayer`: the kernel's seams (`kernel.seams`) inside a Temporal workflow.

- **folds** whose hooks are all synchronous and in-process run in the workflow, and replay
  the same; a fold with a hook that may do I/O (`io_hooks`: any async or blocking hook,
  which command, http, prompt and agent hooks are) runs in an activity, whose outcome the
  workflow history keeps (`events` carries the event there, `durable.folds` the outcome
  back). A fold activity gets one attempt: a worker lost in it fails the fold, as a hook
  that raised does, and the error policy decides. A result an after_tool hook put in place
  is cut there, as the tool activity cuts the tool's own; one over its tool's limit from a
  fold here is folded again in an activity to be cut (`_cut`);
- a **question** no hook answers waits in the workflow for an update (`questions`);
- the **model** is asked through an activity (`remote.ActivityModel`);
- the **`Agent` tool** of subagents runs here, each child as a child workflow
  (`subagents.ChildWorkflows`);
- each **tool call** runs through an activity (`remote.ActivityTool`); the call log keeps
  each call's state (planned, started, done, failed, in_doubt) for queries, and settles a
  call whose worker was lost as a resumed run on a store does (`durable.in_doubt`): the
  tool's `reconcile` (in an activity) first, then a before_tool fold told of the doubt may
  approve a rerun with an `ask`; otherwise the model is told the call may or may not have
  taken effect. An idempotent tool's call is retried by Temporal instead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Final, final

from temporalio import workflow

from hookagent._messages import ToolCall
from hookagent.capabilities.subagents._capability import AgentTool
from hookagent.durable import _codec as codec
from hookagent.durable import _folds as folds
from hookagent.durable._in_doubt import unless_hooks_rerun
from hookagent.durable._reconcile import note
from hookagent.durable._replaced import over_limit
from hookagent.hooks._engine import Folded, fold
from hookagent.hooks._events import ToolResultEvent
from hookagent.hooks._hook import Hook
from hookagent.hooks._points import AFTER_TOOL, HookPoint
from hookagent.hooks._result import HookResult
from hookagent.hooks._watch import HookWatch
from hookagent.kernel._approval import Answer, Question
from hookagent.kernel._context import RunContext
from hookagent.kernel._seams import Asking, RunTool
from hookagent.kernel._state import RunState
from hookagent.models._base import Model, ToolSpec
from hookagent.spill._results import ToolOutputs
from hookagent.temporal import _events as events
from hookagent.temporal._questions import Questions
from hookagent.temporal._remote import (
    ONCE,
    ActivityModel,
    ActivityTool,
    InDoubt,
    Timeouts,
    oversize,
)
from hookagent.temporal._subagents import ChildWorkflows
from hookagent.temporal._wire import FOLD, RECONCILE
from hookagent.tools._base import Tool, ToolResult
from hookagent.tools._traits import ToolTraits

__all__ = ["TemporalCalls", "TemporalLayer", "io_hooks"]


_TIMERS_ONLY: Final = frozenset({"policies:error_policy"})
"""Async hooks whose only await is `asyncio.sleep` (the error policy's backoff), which in a
workflow is a durable timer: they replay the same."""


def io_hooks(hooks: Iterable[Hook[Any]]) -> list[str]:
    """The hooks that may do I/O (async, or sync but blocking: command, http, prompt and
    agent hooks among them), which a workflow cannot run and replay deterministically."""
    return sorted({h.id for h in hooks if (h.is_async or h.blocking) and h.id not in _TIMERS_ONLY})


@final
class TemporalCalls:
    """The `CallLog` of a run on Temporal: each call's state, and calls left in doubt."""

    def __init__(self, timeouts: Timeouts, setup: Mapping[str, Any]) -> None:
        self.calls: dict[str, dict[str, Any]] = {}
        self._timeouts = timeouts
        self._setup = setup

    def planned(self, step: int, calls: Sequence[ToolCall], /) -> None:
        for call in calls:
            self.calls[call.id] = {"step": step, "name": call.name, "state": "planned"}

    async def execute(
        self,
        ctx: RunContext,
        call: ToolCall,
        args: Mapping[str, Any],
        attempt: int,
        run: RunTool,
        /,
    ) -> tuple[ToolResult, int]:
        row = self.calls.setdefault(
            call.id, {"step": ctx.state.position.step, "name": call.name, "state": "planned"}
        )
        row["state"] = "started"
        try:
            result, attempt = await run(ctx, call, args, attempt)
        except InDoubt:
            row["state"] = "in_doubt"
            settled = await self._reconciled(ctx, call, args)
            if isinstance(settled, ToolResult):
                result = settled
            elif not settled and (
                refused := await unless_hooks_rerun(ctx, call, args, lost="its worker was lost")
            ):
                return refused, attempt
            else:
                row["state"] = "started"
                result, attempt = await run(ctx, call, args, attempt + 1)
        row["state"] = "failed" if result.is_error else "done"
        return result, attempt

    async def _reconciled(
        self, ctx: RunContext, call: ToolCall, args: Mapping[str, Any]
    ) -> ToolResult | bool:
        """Ask a tool that reconciles (in an activity) whether the call took effect: its
        result if done, True if not done (the call runs now), False if it cannot tell or
        does not reconcile. The answer is recorded as a decision at point `reconcile`."""
        if ctx.traits[call.name].reconcile is None:
            return False
        task = {
            **self._setup,
            "run_id": ctx.state.run_id,
            "step": ctx.state.position.step,
            "call_id": call.id,
            "name": call.name,
            "args": codec.dump_field("args", dict(args)),
        }
        found: dict[str, Any] | None = await workflow.execute_activity(
            RECONCILE, task, start_to_close_timeout=self._timeouts.tool, retry_policy=ONCE
        )
        if found is None:
            return False
        note(ctx, codec.load("decision", found["decision"]))
        if found["outcome"] == "done" and found["result"] is not None:
            done: ToolResult = codec.load("result", found["result"])
            return done
        return bool(found["outcome"] == "not_done")


_Plan = tuple[tuple[Hook[Any], ...], list[str] | None, tuple[Hook[Any], ...]]
"""A point's hooks (kept alive), the ids of those an activity runs (None: all run here),
and the observers that stay here when the others run in an activity."""


CUT_REPLACED: Final = "hookagent.cut-replaced-results"
"""The patch marking runs that cut an over-limit result a workflow fold put in place."""


def _plan(hooks: tuple[Hook[Any], ...], here: frozenset[str]) -> _Plan:
    stay = tuple(h for h in hooks if h.id in here)
    rest = tuple(h for h in hooks if h.id not in here) if stay else hooks
    return (hooks, [h.id for h in rest], stay) if io_hooks(rest) else (hooks, None, ())


@final
class TemporalLayer:
    """The seams of one run in its workflow."""

    spills_here = False  # a result over its tool's limit is cut in the tool or fold activity

    def __init__(
        self,
        questions: Questions,
        state: RunState,
        timeouts: Timeouts,
        traits: Mapping[str, ToolTraits],
        carry: Callable[[RunState], dict[str, Any]],
        *,
        setup: Mapping[str, Any],
        history: int,
        children: ChildWorkflows,
        outputs: ToolOutputs,
        here: frozenset[str] = frozenset(),
    ) -> None:
        self.questions = questions
        self.children = children
        self.calls = TemporalCalls(timeouts, setup)
        self._state = state
        self._timeouts = timeouts
        self._traits = traits
        self._carry = carry
        self._setup = setup
        """The run's options an activity builds its setup from (`task.setup_of`)."""
        self._history = history
        self._outputs = outputs
        """Per tool, the limit of its result (read here; files are written in activities)."""
        self._here = here
        """Observers that always run in the workflow (the run's live view)."""
        self._remote: dict[int, _Plan] = {}
        """Per hook tuple (by identity): how it runs."""

    async def fold(
        self,
        point: HookPoint[Any],
        hooks: tuple[Hook[Any], ...],
        event: Any,
        watch: HookWatch | None,
    ) -> Folded[Any] | HookResult | None:
        """In the workflow, unwatched, when its hooks are synchronous and do no I/O;
        otherwise in a fold activity, then the live view's observers here over its
        outcome (they run after every other hook wherever they are)."""
        found = self._remote.get(id(hooks))
        if found is None:
            found = self._remote[id(hooks)] = _plan(hooks, self._here)
        _, ids, stay = found
        if ids is None:
            folded = await fold(point, hooks, event, None)
            if (
                point is AFTER_TOOL
                and isinstance(folded, Folded)
                and over_limit(self._outputs, event, folded)
                and workflow.patched(CUT_REPLACED)  # a history from before replays as it ran
            ):
                return await self._cut(point, hooks, event, folded)
            return folded
        folded = await self._in_activity(point, ids, event)
        if stay:
            await fold(point, stay, folded.event if isinstance(folded, Folded) else event, None)
        return folded

    async def _in_activity(
        self, point: HookPoint[Any], ids: list[str], event: Any
    ) -> Folded[Any] | HookResult | None:
        """The fold of the hooks `ids` names, run in a fold activity."""
        task = {
            **self._setup,
            "point": point.name,
            "hooks": ids,
            "event": events.encode(event, self._state),
        }
        outcome: str = await workflow.execute_activity(
            FOLD, task, start_to_close_timeout=self._timeouts.tool, retry_policy=ONCE
        )
        return folds.decode(event, outcome)

    async def _cut(
        self,
        point: HookPoint[Any],
        hooks: tuple[Hook[Any], ...],
        event: ToolResultEvent,
        folded: Folded[ToolResultEvent],
    ) -> Folded[Any] | HookResult | None:
        """`folded`, whose hooks put a result over its tool's limit in place, with that
        result cut. A workflow cannot save the whole text, and its history must not carry
        it, so the hooks (the workflow's own, which replay alike) fold again in a fold
        activity, which saves it in the run's folder and sends back the cut result. The
        live view's observers ran already, here."""
        again = await self._in_activity(
            point, [h.id for h in hooks if h.id not in self._here], event
        )
        if not isinstance(again, Folded):  # the hooks decided otherwise there
            return again
        folded.event = replace(folded.event, result=again.event.result)
        return folded

    def model(self, model: Model, /) -> Model:
        return ActivityModel(model, self._timeouts, self._setup.get("agent"))

    def tools(self, tools: Mapping[str, Tool], /) -> Mapping[str, Tool]:
        """Stand-ins that call each tool through the tool activity; the `Agent` tool runs
        here, each child as a child workflow (`subagents`)."""
        return {name: self._stand_in(name, tool) for name, tool in tools.items()}

    def _stand_in(self, name: str, tool: Tool) -> Tool:
        if isinstance(tool, AgentTool):
            return AgentTool(tool.owner, self.children)
        return ActivityTool(
            ToolSpec(name=tool.name, description=tool.description, parameters=tool.parameters),
            self._state,
            idempotent=self._traits[name].idempotent,
            timeouts=self._timeouts,
            setup=self._setup,
        )

    async def turn(self, state: RunState) -> None:
        """The workflow's history is the run's record, so there is no checkpoint to take;
        a run whose history has grown long continues as new here, with its state (unless
        that state is over the payload limit: then its history grows instead)."""
        info = workflow.info()
        if state.stop_reason is None and (
            info.is_continue_as_new_suggested()
            or info.get_current_history_length() >= self._history
        ):
            await workflow.wait_condition(workflow.all_handlers_finished)
            carried = self._carry(state)
            size = oversize(carried, self._timeouts.payload)
            if size is None:
                workflow.continue_as_new(carried)
            workflow.logger.warning(  # the history grows instead, and the run goes on
                "run %s goes on without continuing as new: its state is %d bytes, over the "
                "%d-byte payload limit",
                state.run_id,
                size,
                self._timeouts.payload,
            )

    async def settle(self, question: Question, index: int, asking: Asking) -> Answer:
        """permission_request hooks first, then an approval in scope or someone's answer."""
        return await asking.ask_hooks(question) or await self.questions.settle(question)
