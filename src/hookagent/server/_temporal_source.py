"""The runs of a Temporal server, as the API shows a store's (`source.RunSource`).

Sessions and runs are listed through visibility (`temporal.sessions`); a run is read as
`TemporalRuns.inspect` reads it. The inbox lists the questions waiting runs hold in their
memo, so neither the listing nor a question needs a worker; an answer is the workflow's
`answer` update, which checks the question still waits and, when the body names one, that
its fingerprint is still the one the answerer saw (else 409, as on a store).

A question's id is `RUN_ID:QUESTION` (`q1`…: a question's id in its run). What a store
offers and Temporal keeps elsewhere (resuming, forking, queuing and replaying a run, a run's
live events) is a 501 problem naming it.
"""

from __future__ import annotations

import json
import time
from typing import Any, Final, final

from temporalio.client import Client, WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode

from hookagent.durable import _codec as codec
from hookagent.durable._answering import StaleQuestion
from hookagent.durable._answers import answer_json
from hookagent.durable._journal import scalars_of
from hookagent.kernel._state import RunState
from hookagent.server._problems import Problem
from hookagent.server._source import Reply, Table
from hookagent.server._views import run_json
from hookagent.store._base import Store
from hookagent.store._records import RunRecord, RunStatus
from hookagent.temporal._client import answer
from hookagent.temporal._sessions import RunEntry, inspect, listed, session_runs, sessions

__all__ = ["TemporalSource"]

_STATUS: Final[dict[str, RunStatus]] = {
    "completed": "completed",
    "failed": "failed",
    "terminated": "failed",
    "timed_out": "failed",
    "canceled": "stopped",
}
_WAITING: Final = "ExecutionStatus = 'Running'"
_RUNS: Final = 1000
"""The newest runs a listing reads from visibility."""


@final
class TemporalSource:
    """The `hookagent.run` workflows of `client`'s namespace (on `task_queue` only, if
    given)."""

    def __init__(self, client: Client, address: str, task_queue: str | None = None) -> None:
        self._client = client
        self._queue = f" AND TaskQueue = {json.dumps(task_queue)}" if task_queue else ""
        self.name = f"temporal:{address}/{client.namespace}"

    async def sessions(
        self, status: str | None, search: str | None, limit: int, offset: int
    ) -> list[dict[str, Any]]:
        found = []
        waiting = {e.run_id for e in await listed(self._client, _WAITING + self._queue, _RUNS)}
        for row in await sessions(self._client, _RUNS):
            shown = _session(row, row["head"] in waiting)
            if status is not None and shown["status"] != status:
                continue
            if search is not None and search.lower() not in row["session"].lower():
                continue
            found.append(shown)
        return found[offset : offset + limit]

    async def session(self, key: str) -> dict[str, Any] | None:
        runs = await session_runs(self._client, key)
        if not runs:
            return None
        head = runs[0]
        row = {
            "session": key,
            "head": head.run_id,
            "status": head.status,
            "updated_at": head.started_at,
            "created_at": runs[-1].started_at,
        }
        return {
            "session": _session(row, bool(head.questions)),
            "runs": [_run(entry, None) for entry in reversed(runs)],
        }

    async def run(self, run_id: str) -> dict[str, Any] | None:
        found = await self._inspected(run_id)
        if found is None:
            return None
        entry, state, questions = found
        return {**_run(entry, state), "questions": [_question(entry, q) for q in questions]}

    async def rows(self, run_id: str, table: Table, limit: int, offset: int) -> list[Any] | None:
        found = await self._inspected(run_id)
        if found is None:
            return None
        return _table(found[1], table)[offset : offset + limit]

    async def inbox(
        self, limit: int, offset: int = 0, *, rewrites: bool = False
    ) -> tuple[list[dict[str, Any]], int]:
        """Arguments as the model gave them are not shown here (`rewrites`): the
        conversation is the run's, read by a query only a worker answers."""
        runs = await listed(self._client, _WAITING + self._queue, _RUNS)
        items = [_question(entry, q) for entry in runs for q in entry.questions]
        items.sort(key=lambda item: item["created_at"], reverse=True)
        chosen = items[offset : offset + limit]
        return chosen, len(chosen)

    async def question(self, question_id: str) -> dict[str, Any] | None:
        return (await self._found(question_id))[1]

    async def settled(self, item: dict[str, Any]) -> dict[str, Any] | None:
        """A question that left its run's memo before it expired was answered (the
        answer itself is in the run's decisions)."""
        expires = item["expires_at"]
        return {**item, "answer": None} if expires is None or expires > time.time() else None

    async def answer(self, question_id: str, reply: Reply) -> tuple[dict[str, Any], str]:
        run, item = await self._found(question_id)
        if not run:
            raise Problem(404, f"no question {question_id!r}: its run is not on this server")
        if item is None:
            raise StaleQuestion(
                f"question {question_id} does not wait (answered, or its run went past it)"
            )
        run_id, asked = _split(question_id)
        given = answer_json(
            reply.approved, reason=reply.reason, by=reply.by, scope=reply.scope, ttl=reply.ttl
        )
        try:
            await answer(self._client, run_id, asked, given, seen=reply.seen)
        except WorkflowUpdateFailedError as exc:
            raise StaleQuestion(f"question {question_id}: {exc.cause}") from None
        except RPCError as exc:
            if exc.status == RPCStatusCode.NOT_FOUND:
                raise StaleQuestion(f"question {question_id}: its run ended") from None
            raise
        answered = {**item, "answer": json.loads(given), "answered_at": time.time()}
        return answered, "the run goes on by itself on its Temporal workers"

    async def _found(self, question_id: str) -> tuple[bool, dict[str, Any] | None]:
        """Whether the question's run is there, and the question if it waits."""
        run_id, asked = _split(question_id)
        found = await listed(self._client, f"WorkflowId = {json.dumps(run_id)}", 100)
        for entry in found:
            for q in entry.questions:
                if q["id"] == asked:
                    return True, _question(entry, q)
        return bool(found), None

    def kept(self, feature: str) -> Store:
        raise Problem(
            501,
            f"{feature} is not offered for runs on Temporal (this server reads "
            f"{self.name}); use the hookagent temporal commands",
        )

    async def _inspected(self, run_id: str) -> tuple[RunEntry, RunState, list[Any]] | None:
        try:
            return await inspect(self._client, run_id)
        except RPCError as exc:
            if exc.status == RPCStatusCode.NOT_FOUND:
                return None
            raise


def _session(row: dict[str, Any], waiting: bool) -> dict[str, Any]:
    """A session (`temporal.sessions`' row) as a store's `session_json` shows one."""
    name = row["session"]
    return {
        "id": name,
        "name": name,
        "status": "waiting" if waiting else _status(row["status"]),
        "title": "",
        "created_at": row.get("created_at", row["updated_at"]),
        "updated_at": row["updated_at"],
        "head_run_id": row["head"],
        "forked_from": None,
    }


def _table(state: RunState, table: Table) -> list[Any]:
    if table == "messages":
        return [json.loads(codec.dump("message", m)) for m in state.messages]
    if table == "steps":
        return [json.loads(codec.dump("step", s)) for s in state.steps]
    if table == "decisions":
        return [json.loads(codec.dump("decision", d)) for d in state.decisions]
    return [
        {
            "call_id": e.call_id,
            "step": step.index,
            "name": e.name,
            "args": dict(e.args),
            "state": "failed" if e.result.is_error else "done",
            "result": json.loads(codec.dump("result", e.result)),
            "updated_at": step.started_at + step.duration,
        }
        for step in state.steps
        for e in step.executions
    ]


def _status(workflow: str) -> RunStatus:
    return _STATUS.get(workflow, "running")


def _run(entry: RunEntry, state: RunState | None) -> dict[str, Any]:
    """A run as a store's `run_json` shows it; its outcome from `state` when read."""
    status = "waiting" if entry.questions else _status(entry.status)
    record = RunRecord(
        id=entry.run_id,
        session_id=entry.session or "",
        status=state.status if state is not None and entry.status == "completed" else status,
        created_at=entry.started_at,
        updated_at=entry.ended_at or entry.started_at,
        prompt=entry.prompt,
        scalars=scalars_of(state, 0) if state is not None else "{}",
        policy_version=entry.policy,
    )
    return {**run_json(record), "session_id": entry.session}


def _question(entry: RunEntry, asked: dict[str, Any]) -> dict[str, Any]:
    """A question a run's memo holds, as the inbox shows a store's."""
    timeout = asked.get("timeout")
    expires = asked["asked_at"] + timeout if timeout is not None else None
    session = entry.session
    shown = {
        "id": f"{entry.run_id}:{asked['id']}",
        "run_id": entry.run_id,
        "call_id": asked.get("call_id"),
        "tool": asked.get("tool_name"),
        "args": asked.get("args"),
        "question": asked.get("question"),
        "hook": asked.get("hook"),
        "point": asked.get("point"),
        "expires_at": expires,
        "session_id": session,
        "step": asked.get("step"),
        "options": asked.get("options") or [],
        "default": asked.get("default"),
        "created_at": asked["asked_at"],
        "expired": expires is not None and expires <= time.time(),
        "fingerprint": asked.get("fingerprint"),
        "answer": None,
        "answered_at": None,
    }
    if session is not None:
        shown["session"] = {"id": session, "name": session, "title": ""}
    return shown


def _split(question_id: str) -> tuple[str, str]:
    run_id, _, asked = question_id.rpartition(":")
    if not run_id:
        raise Problem(404, f"no question {question_id!r} (a question on Temporal is RUN_ID:QN)")
    return run_id, asked
