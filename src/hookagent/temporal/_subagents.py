"""Subagents on Temporal: the `Agent` tool runs each child as a child workflow.

A run's `Agent` tool (`capabilities.subagents.AgentTool`) runs in the workflow with
`ChildWorkflows` as its `ChildRuns`: `subagent_start` fires in the parent as in memory, then
the child's run starts as an `AgentRun` child workflow with its own history, questions and
hooks, and its final state comes back as the call's result. The child's workflow id is its
run id, derived from the parent's run id and the call's id (`child_run_id`), and its start
is in the parent's history: a worker that takes the parent over replays the start, never
makes a second one (the id is never reused either). A parent cancelled or closed asks its
children to cancel.

`subagent_stop` fires in the parent too: the child's stop hook (`Subagents`' bridge, a fold
activity of the child) reaches the parent through the parent's `subagent_stop` update
(`relaying`), which folds the parent's hooks in the parent's workflow and returns the
decision; the update's id is the activity's, so it is applied once.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator, Mapping
from typing import Any, final

from temporalio import activity, workflow
from temporalio.common import WorkflowIDReusePolicy
from temporalio.exceptions import ChildWorkflowError

from hookagent._agent import Agent
from hookagent.capabilities.subagents._specs import AgentSpec
from hookagent.durable import _codec as codec
from hookagent.hooks._decision import Decision
from hookagent.hooks._events import SubagentEvent
from hookagent.hooks._points import SUBAGENT_STOP, HookPoint
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView
from hookagent.temporal._task import child_task, subagents_of
from hookagent.temporal._wire import STOPPING, WORKFLOW
from hookagent.tools._base import ToolContext

__all__ = ["ChildWorkflows", "child_run_id", "relaying"]


def child_run_id(parent_run_id: str, call_id: str) -> str:
    """The run id (and workflow id) of the child an `Agent` call starts."""
    return f"{parent_run_id}/{call_id}"


@final
class ChildWorkflows:
    """The `ChildRuns` of one run on Temporal; `running`: each child running now, by run
    id, with its type and the parent's view its `subagent_stop` fires on."""

    def __init__(self, policy: str, queue: str) -> None:
        self._policy, self._queue = policy, queue
        self.running: dict[str, tuple[str, RunView]] = {}

    def run_id(self, parent: RunView, ctx: ToolContext, /) -> str:
        return child_run_id(parent.run_id, ctx.call.id)

    async def run(
        self, spec: AgentSpec, prompt: str, state: RunState, parent: RunView, /
    ) -> RunState:
        child = await workflow.start_child_workflow(
            WORKFLOW,
            child_task(self._policy, self._queue, spec.name, prompt, state),
            id=state.run_id,
            parent_close_policy=workflow.ParentClosePolicy.REQUEST_CANCEL,
            id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            memo={"prompt": prompt},
        )
        self.running[state.run_id] = (spec.name, parent)
        try:
            ended: str = await child
        except ChildWorkflowError as exc:
            if workflow.cancellation_reason() is not None:  # this run was cancelled: it
                raise asyncio.CancelledError(str(exc)) from exc  # stops, as in memory
            raise
        finally:
            del self.running[state.run_id]
        return RunState.from_json(ended)

    def check(self, event: Mapping[str, Any]) -> None:
        """Refuse a `subagent_stop` from a run that is not a child running now."""
        if event.get("agent_id") not in self.running:
            running = ", ".join(self.running) or "none"
            raise ValueError(f"no subagent {event.get('agent_id')!r} runs here ({running})")

    async def stopping(self, event: Mapping[str, Any]) -> str:
        """The parent's `subagent_stop` decision on a child about to stop, as JSON."""
        kind, parent = self.running[event["agent_id"]]
        decision, _ = await parent.fire(
            SUBAGENT_STOP,
            SubagentEvent(
                run=parent,
                agent_id=event["agent_id"],
                agent_type=kind,
                output=event.get("output"),
                stop_hook_active=bool(event.get("stop_hook_active")),
            ),
        )
        return codec.dump("decision", decision)


@contextlib.contextmanager
def relaying(root: Agent, task: Mapping[str, Any], run_id: str) -> Iterator[None]:
    """While a fold activity of child run `run_id` runs, its `Subagents` reaches the parent
    (`task["parent"]`) through the parent's `subagent_stop` update."""
    owner = subagents_of(root)
    parent = task.get("parent")
    if owner is None or parent is None:
        yield
        return
    owner.parents[run_id] = RunView(RunState(run_id=parent), fire=_Relay(parent))
    try:
        yield
    finally:
        owner.parents.pop(run_id, None)


@final
class _Relay:
    """`fire` of a parent's view in a child's fold activity: `subagent_stop` as an update."""

    def __init__(self, parent: str) -> None:
        self._parent = parent

    async def __call__(self, point: HookPoint[Any], event: Any) -> tuple[Decision, Any]:
        if point is not SUBAGENT_STOP:
            raise RuntimeError(f"a subagent's run reaches its parent only at {STOPPING}")
        info = activity.info()
        sent = {
            "agent_id": event.agent_id,
            "output": event.output,
            "stop_hook_active": event.stop_hook_active,
        }
        handle = activity.client().get_workflow_handle(self._parent)
        found: str = await handle.execute_update(
            STOPPING, sent, id=f"{info.workflow_run_id}/{info.activity_id}"
        )
        decision: Decision = codec.load("decision", found)
        return decision, event
