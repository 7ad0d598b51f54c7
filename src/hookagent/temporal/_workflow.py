"""`AgentRun`: one run of an agent as a Temporal workflow.

The workflow runs the kernel itself, wired as `Agent` wires a run but with the seams of
`TemporalLayer`: its pure folds run here, folds with hooks that may do I/O and its model
and tool calls are activities, and its questions wait here for an update. The kernel is
deterministic given what its activities return, so a worker that takes the workflow over
replays it from history to where it was. The workflow is not sandboxed: the agent is the
worker's own object, found by the policy version (its hooks and tools) the run was started
with (`serve`); a worker serving another agent leaves the run to one that serves it.

A run's execution time (a time limit, `max_seconds`) is measured on the workflow's clock
(`workflow.now()`), which replays the same on any worker.

A run whose history has grown long (`workflow.info().is_continue_as_new_suggested()`, or
`Served.history` events) **continues as new** at its next turn: the next workflow of the
same id gets the run's state, its questions' approvals and its calls, and takes the loop up
where it was, so a step costs the same at any length of the run.

A subagent's run is a child workflow of its parent's (`subagents`): the task names the
subagent (`agent`) and the parent run, and the worker runs the child agent `Subagents` builds.

Queries: `state` (the run as `RunState.to_json` has it), `decisions`, `questions` (those
waiting), `calls` (each tool call's state), `children` (the subagents running now), `events`
(the live view's events from a number on, `live`; what a watcher polls). Updates:
`answer(question_id, answer)`, and `subagent_stop` from a subagent about to stop. A run of a
session carries the session's name in the `HookagentSession` search attribute, which
`sessions` lists runs by.
"""

from __future__ import annotations

import json
from typing import Any, final

from temporalio import workflow

from hookagent._agent import Agent
from hookagent._run_setups import observed
from hookagent.durable import _codec as codec
from hookagent.kernel._loop import Kernel
from hookagent.kernel._state import RunState
from hookagent.live._observer import LiveObserver
from hookagent.temporal._layer import TemporalLayer
from hookagent.temporal._live import EventLog
from hookagent.temporal._questions import Questions
from hookagent.temporal._remote import Timeouts
from hookagent.temporal._subagents import ChildWorkflows
from hookagent.temporal._task import agent_of, messages_of, setup_of
from hookagent.temporal._wire import STOPPING, WORKFLOW

__all__ = ["WORKFLOW", "AgentRun", "Served", "serve"]


@final
class Served:
    """What a worker serves on its task queue: the agent, the activities' timeouts, and the
    history length (events) at which a run continues as new."""

    __slots__ = ("agent", "history", "timeouts")

    def __init__(self, agent: Agent, timeouts: Timeouts, history: int) -> None:
        self.agent, self.timeouts, self.history = agent, timeouts, history


_SERVED: dict[tuple[str, str], Served] = {}
"""By task queue and policy version, the agents this process serves."""


def serve(task_queue: str, served: Served) -> None:
    """Runs on `task_queue` of an agent with `served`'s policy version (its hooks and tools)
    use it. The queue is part of the key: two agents whose hooks have the same names but
    other code (another model, other settings) are told apart by the queues they serve, so
    a run replays with the agent it ran with."""
    _SERVED[task_queue, served.agent.policy_version] = served


def _served(queue: str, policy: str) -> Served | None:
    """The agent serving `policy` on `queue`; else, for a history replayed away from its
    queue, the one agent of this process with that policy version (None if several)."""
    found = _SERVED.get((queue, policy))
    if found is None:
        alike = [
            served for (_, served_policy), served in _SERVED.items() if served_policy == policy
        ]
        found = alike[0] if len(alike) == 1 else None
    return found


def _now() -> float:
    return workflow.now().timestamp()


@workflow.defn(name=WORKFLOW, sandboxed=False)
class AgentRun:
    @workflow.init
    def __init__(self, task: dict[str, Any]) -> None:
        queue = task.get("queue") or workflow.info().task_queue  # a replay has its own
        served = _served(queue, task["policy"])
        if served is None:  # fails the workflow task: a worker that serves it takes it up
            raise RuntimeError(
                f"this worker serves no agent of policy version {task['policy']} (the run's "
                f"hooks and tools) on task queue {queue!r}; start a worker built with the "
                "same options"
            )
        self._agent = agent = agent_of(served.agent, task)
        self._task = task
        carried = task.get("carried")
        if carried is None:
            self._state = RunState(
                run_id=workflow.info().workflow_id,
                parent_run_id=task.get("parent"),
                agent_type=task.get("agent") or "main",
                session_id=task.get("session"),
                started_at=_now(),
                messages=messages_of(task),
            )
        else:
            self._state = RunState.from_json(carried["state"])
        questions = Questions(
            agent.policy_version,
            (carried or {}).get("questions"),
            inherited=task.get("approvals") or (),
        )
        self._live = LiveObserver()
        self._log = EventLog((carried or {}).get("events", 0))
        live = tuple(self._live.hooks())
        self._setup = observed(setup_of(served.agent, task), live)
        self._layer = TemporalLayer(
            questions,
            self._state,
            served.timeouts,
            self._setup.traits,
            self._carry,
            setup=_setup(task),
            history=served.history,
            children=ChildWorkflows(task["policy"], queue),
            outputs=self._setup.outputs,
            here=frozenset(hook.id for hook in live),
        )
        if carried is not None:
            self._layer.calls.calls.update(carried["calls"])

    @workflow.run
    async def run(self, task: dict[str, Any]) -> str:
        """Run `task["prompt"]` to its end; the final state (`RunState.to_json`)."""
        state, layer = self._state, self._layer
        carried = task.get("carried") is not None
        if not carried:
            state.metadata.update(task.get("metadata") or {})
        ctx = self._agent.context(state, self._setup, layer=layer)
        ctx.clock = _now
        ctx.resumed_at = _now()
        self._live.watch(state, self._log.emit)
        try:
            if carried:  # the same run, taken up at the turn where it continued as new
                await Kernel().run(ctx, None, resumed=True, mid_run=True, opened=True)
            else:
                await Kernel().run(ctx, task["prompt"])
        finally:
            self._live.close(state)
        return state.to_json()

    def _carry(self, state: RunState) -> dict[str, Any]:
        """This workflow's input for the next one of the same run (continue-as-new); the
        live view's events so far are sent first, and the next one numbers on from them."""
        self._live.catch_up(state)
        carried = {
            "state": state.to_json(),
            "questions": self._layer.questions.carried(),
            "calls": self._layer.calls.calls,
            "events": self._log.end,
        }
        return {**self._task, "messages": [], "carried": carried}

    @workflow.query
    def state(self) -> str:
        return self._state.to_json()

    @workflow.query
    def decisions(self) -> list[Any]:
        return [json.loads(codec.dump("decision", d)) for d in self._state.decisions]

    @workflow.query
    def questions(self) -> list[dict[str, Any]]:
        return list(self._layer.questions.pending.values())

    @workflow.query
    def calls(self) -> dict[str, dict[str, Any]]:
        return self._layer.calls.calls

    @workflow.query
    def events(self, since: int) -> dict[str, Any]:
        """The live view's events from number `since` on (`EventLog.page`), with this
        execution's id and the one it continued from (`previous`), and the questions
        waiting now."""
        info = workflow.info()
        return {
            **self._log.page(since),
            "execution": info.run_id,
            "previous": info.continued_run_id,
            "questions": self.questions(),
        }

    @workflow.update
    async def answer(self, question_id: str, answer: dict[str, Any]) -> None:
        self._layer.questions.answer(question_id, answer)

    @answer.validator
    def _check(self, question_id: str, answer: dict[str, Any]) -> None:
        self._layer.questions.check(question_id, answer)

    @workflow.query
    def children(self) -> list[str]:
        """The run ids of the subagents running now (each a child workflow)."""
        return list(self._layer.children.running)

    @workflow.update(name=STOPPING)
    async def subagent_stop(self, event: dict[str, Any]) -> str:
        """A subagent of this run is about to stop: this run's `subagent_stop` decision."""
        return await self._layer.children.stopping(event)

    @subagent_stop.validator
    def _check_stop(self, event: dict[str, Any]) -> None:
        self._layer.children.check(event)


def _setup(task: dict[str, Any]) -> dict[str, Any]:
    """The run's options its activities build their setup from (`task.setup_of`): with
    the subagent and parent of a subagent's run."""
    setup = {"output_type": task.get("output_type"), "limits": task.get("limits")}
    if task.get("agent") is not None:
        setup |= {"agent": task["agent"], "parent": task["parent"]}
    return setup
