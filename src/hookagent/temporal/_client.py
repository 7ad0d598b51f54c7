"""`TemporalRuns`: start an agent's runs on Temporal, answer their questions, read them.

A run's workflow id is its run id. The result is the agent's own `RunResult`, finished by
its capabilities here, from the state the workflow returns.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Mapping
from typing import Any, final

from temporalio.client import Client, WorkflowHandle
from temporalio.common import SearchAttributePair, TypedSearchAttributes

from hookagent._agent import Agent
from hookagent._messages import Message
from hookagent.durable import _codec as codec
from hookagent.durable._answers import Scope, answer_json
from hookagent.hooks._decision import Decision
from hookagent.kernel._result import RunResult
from hookagent.kernel._state import RunState
from hookagent.live._events import StreamEvent
from hookagent.temporal._questions import MEMO_APPROVALS, Approval
from hookagent.temporal._sessions import (
    SESSION,
    RunEntry,
    ensure_session_attribute,
    head,
    inspect,
    session_runs,
    sessions,
)
from hookagent.temporal._task import check_agent, run_task
from hookagent.temporal._watch import watch
from hookagent.temporal._workflow import WORKFLOW, AgentRun

__all__ = ["TemporalRuns", "answer", "connect", "waiting"]


async def connect(address: str, namespace: str = "default") -> Client:
    """A client of the Temporal server at `address` (HOST:PORT), in `namespace`."""
    return await Client.connect(address, namespace=namespace)


@final
class TemporalRuns:
    """`agent`'s runs on the workers of `task_queue`."""

    def __init__(self, agent: Agent, client: Client, task_queue: str) -> None:
        check_agent(agent)
        self._agent = agent
        self.client = client
        self.task_queue = task_queue

    async def start(
        self,
        prompt: str,
        *,
        run_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        session: str | None = None,
        limits: Mapping[str, Any] | None = None,
        output_type: type[Any] | None = None,
    ) -> str:
        """Start a run; its id. In `session` (a name), the run continues the conversation of
        the session's newest run (`sessions`); `limits` and `output_type` are the run's own,
        as in `Agent.run`."""
        run_id = run_id or uuid.uuid4().hex
        messages: list[Message] = []
        approvals: list[Approval] = []
        if session is not None:
            await ensure_session_attribute(self.client)
            messages, approvals = await head(self.client, session)
        task = run_task(
            self._agent,
            prompt,
            metadata=metadata,
            session=session,
            messages=messages,
            limits=limits,
            output_type=output_type,
        )
        task["approvals"], task["queue"] = approvals, self.task_queue
        memo = {"prompt": prompt, "policy": task["policy"]}
        if approvals:
            memo[MEMO_APPROVALS] = approvals
        await self.client.start_workflow(
            WORKFLOW,
            task,
            id=run_id,
            task_queue=self.task_queue,
            memo=memo,
            search_attributes=TypedSearchAttributes(
                [SearchAttributePair(SESSION, session)] if session is not None else []
            ),
        )
        return run_id

    async def run(
        self, prompt: str, *, output_type: type[Any] | None = None, **options: Any
    ) -> RunResult[Any]:
        """Start a run and wait for its end (`options`: as `start` takes them)."""
        started = await self.start(prompt, output_type=output_type, **options)
        return await self.result(started, output_type=output_type)

    async def stream(
        self,
        prompt: str,
        *,
        output_type: type[Any] | None = None,
        interval: float = 0.2,
        **options: Any,
    ) -> AsyncIterator[StreamEvent]:
        """Start a run (`options`: as `start` takes them) and yield what happens in it, as
        `Agent.stream` does, but each model reply whole: the model is called in an activity
        on some worker, so no `TextDelta`, `ReasoningDelta` or `ToolCallDelta` comes (as
        `Agent.stream(deltas=False)`). A question that waits for an answer is a
        `QuestionWaiting`. See `watch`."""
        started = await self.start(prompt, output_type=output_type, **options)
        async for event in self.watch(started, output_type=output_type, interval=interval):
            yield event

    async def watch(
        self,
        run_id: str,
        *,
        output_type: type[Any] | None = None,
        since: int = 0,
        interval: float = 0.2,
    ) -> AsyncIterator[StreamEvent]:
        """The events of run `run_id` (started anywhere) from its `since`-th on (0: from
        its start, whatever it did before), read with the `events` query every `interval`
        seconds, followed across continue-as-new; `QuestionWaiting` for each question when
        it starts to wait; `RunFinished` with its result last. Stopping the iteration stops
        watching, not the run."""
        async for event in watch(
            self.client,
            run_id,
            lambda state: self._finished(state, output_type),
            since=since,
            interval=interval,
        ):
            yield event

    async def result(self, run_id: str, *, output_type: type[Any] | None = None) -> RunResult[Any]:
        """The run's result, once it ended (with `output_type`: parsed as that type)."""
        return self._finished(await self._handle(run_id).result(), output_type)

    def _finished(self, state: str, output_type: type[Any] | None) -> RunResult[Any]:
        return self._agent.setup_for(output_type).finish(RunResult.of(RunState.from_json(state)))

    async def sessions(self, limit: int = 1000) -> list[dict[str, Any]]:
        """The sessions of the latest `limit` runs (`sessions.sessions`)."""
        return await sessions(self.client, limit)

    async def runs(self, session: str) -> list[RunEntry]:
        """The runs of `session`, newest first."""
        return await session_runs(self.client, session)

    async def inspect(self, run_id: str) -> tuple[RunEntry, RunState, list[dict[str, Any]]]:
        """The run as it stands: as listed, its state (its final state once it ended, from
        its workflow history), and the questions it waits on. `sessions.Recording.of` makes
        a recording of it for `sessions.replay`."""
        return await inspect(self.client, run_id)

    async def state(self, run_id: str) -> RunState:
        """The run as it stands."""
        return RunState.from_json(await self._handle(run_id).query(AgentRun.state))

    async def decisions(self, run_id: str) -> list[Decision]:
        found = await self._handle(run_id).query(AgentRun.decisions)
        return [codec.load("decision", json.dumps(d)) for d in found]

    async def questions(self, run_id: str) -> list[dict[str, Any]]:
        """The questions waiting now: each with its `id` and what `question_json` holds."""
        return await waiting(self.client, run_id)

    async def calls(self, run_id: str) -> dict[str, dict[str, Any]]:
        """Each tool call's step, name and state (planned, started, done, failed, in_doubt)."""
        return await self._handle(run_id).query(AgentRun.calls)

    async def answer(
        self,
        run_id: str,
        question_id: str,
        approved: bool,
        *,
        reason: str | None = None,
        by: str = "cli",
        scope: Scope = "once",
        ttl: float | None = None,
        seen: str | None = None,
    ) -> None:
        """Answer question `question_id` of run `run_id` with an update, as a store takes an
        answer (`answer_json`); refused if it does not wait, or if `seen` (the fingerprint
        the answerer read) is not the question's now."""
        given = answer_json(approved, reason=reason, by=by, scope=scope, ttl=ttl)
        await answer(self.client, run_id, question_id, given, seen=seen)

    def _handle(self, run_id: str) -> WorkflowHandle[Any, Any]:
        return self.client.get_workflow_handle(run_id)


async def answer(
    client: Client, run_id: str, question_id: str, given: str, *, seen: str | None = None
) -> None:
    """Answer question `question_id` of run `run_id` with the update `answer`, carrying
    `given` (`answer_json`) and the fingerprint `seen`, if any, that it must still have."""
    data = json.loads(given)
    if seen is not None:
        data["fingerprint"] = seen
    handle = client.get_workflow_handle(run_id)
    await handle.execute_update(AgentRun.answer, args=[question_id, data])


async def waiting(client: Client, run_id: str) -> list[dict[str, Any]]:
    """Run `run_id`'s questions waiting now, then those of the subagents it runs (each
    question names the run that asks it, `run_id`: answer it there)."""
    handle = client.get_workflow_handle(run_id)
    found = [{**q, "run_id": run_id} for q in await handle.query(AgentRun.questions)]
    for child in await handle.query(AgentRun.children):
        found += await waiting(client, child)
    return found
