"""`AgentRun`: one run of an agent as a Temporal workflow.

The workflow runs the kernel itself, wired as `Agent` wires a run but with the seams of
`TemporalLayer`: its pure folds run here, folds with hooks that may do I/O and its model
and tool calls are activities, and its questions wait here for an update. The kernel is
deterministic given what its activities return, so a worker that takes the workflow over
replays it from history to where it was. The workflow is not sandboxed: the agent is the
worker's own object, found by the policy version (its hooks and tools) the run was started
with (`serve`); a worker serving another agent leaves the run to one that serves it.

One clock decides: a time limit (`max_seconds`) reads the execution time of the worker
that runs the workflow, so a run its limit stopped, replayed by another worker before its
end was recorded, may fail to replay.

Queries: `state` (the run as `RunState.to_json` has it), `decisions`, `questions` (those
waiting), `calls` (each tool call's state). Update: `answer(question_id, answer)`.
"""

from __future__ import annotations

import json
from typing import Any, Final, final

from temporalio import workflow

from hookagent._agent import Agent
from hookagent._run_setup import RunSetup
from hookagent.durable import _codec as codec
from hookagent.kernel._loop import Kernel
from hookagent.kernel._state import RunState
from hookagent.temporal._layer import TemporalLayer
from hookagent.temporal._questions import Questions
from hookagent.temporal._remote import Timeouts

__all__ = ["WORKFLOW", "AgentRun", "Served", "serve"]

WORKFLOW: Final = "hookagent.run"


@final
class Served:
    """What a worker serves on its task queue: the agent, the setup its runs use, and the
    activities' timeouts."""

    __slots__ = ("agent", "setup", "timeouts")

    def __init__(self, agent: Agent, setup: RunSetup, timeouts: Timeouts) -> None:
        self.agent, self.setup, self.timeouts = agent, setup, timeouts


_SERVED: dict[str, Served] = {}
"""By policy version, the agents this process serves."""


def serve(served: Served) -> None:
    """Runs of an agent with `served`'s policy version (its hooks and tools) use it."""
    _SERVED[served.agent.policy_version] = served


@workflow.defn(name=WORKFLOW, sandboxed=False)
class AgentRun:
    @workflow.init
    def __init__(self, task: dict[str, Any]) -> None:
        served = _SERVED.get(task["policy"])
        if served is None:  # fails the workflow task: a worker that serves it takes it up
            raise RuntimeError(
                f"this worker serves no agent of policy version {task['policy']} (the run's "
                "hooks and tools); start a worker built with the same options"
            )
        self._served = served
        self._state = RunState(
            run_id=workflow.info().workflow_id, started_at=workflow.now().timestamp()
        )
        self._layer = TemporalLayer(
            Questions(served.agent.policy_version),
            self._state,
            served.timeouts,
            served.setup.traits,
        )

    @workflow.run
    async def run(self, task: dict[str, Any]) -> str:
        """Run `task["prompt"]` to its end; the final state (`RunState.to_json`)."""
        served, state, layer = self._served, self._state, self._layer
        state.metadata.update(task.get("metadata") or {})
        ctx = served.agent.context(state, served.setup, layer=layer)
        await Kernel().run(ctx, task["prompt"])
        return state.to_json()

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

    @workflow.update
    async def answer(self, question_id: str, answer: dict[str, Any]) -> None:
        self._layer.questions.answer(question_id, answer)

    @answer.validator
    def _check(self, question_id: str, answer: dict[str, Any]) -> None:
        self._layer.questions.check(question_id, answer)
