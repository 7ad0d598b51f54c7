"""Sessions on Temporal: a session is a line of runs, each its own workflow, found through
the server's visibility by the `HookagentSession` search attribute (a keyword, registered
on first use: `ensure_session_attribute`).

A new run of a session continues its conversation: it starts with the messages of the
session's newest run, read from that run's result, and with the approvals of scope session
still in force there, read from that run's memo (`questions.MEMO_APPROVALS`). A session
whose newest run has not ended is refused, as on a store. A run continued as new is one run
(one workflow id) over several executions; the listings show each run once, as its newest
execution stands.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any, Final, final

from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest
from temporalio.client import Client, WorkflowExecution, WorkflowExecutionStatus
from temporalio.common import SearchAttributeKey

from hookagent._errors import ConfigError
from hookagent._messages import Message
from hookagent.kernel._state import RunState
from hookagent.temporal._questions import MEMO_APPROVALS, MEMO_QUESTIONS, Approval

__all__ = [
    "SESSION",
    "RunEntry",
    "ensure_session_attribute",
    "head",
    "inspect",
    "listed",
    "session_runs",
    "sessions",
]

SESSION: Final = SearchAttributeKey.for_keyword("HookagentSession")
_TYPE: Final = 'WorkflowType = "hookagent.run"'


async def ensure_session_attribute(client: Client) -> None:
    """Register `HookagentSession` in the client's namespace (nothing if it exists)."""
    await client.operator_service.add_search_attributes(
        AddSearchAttributesRequest(
            namespace=client.namespace,
            search_attributes={SESSION.name: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD},
        )
    )


@final
@dataclass(frozen=True, slots=True)
class RunEntry:
    """One run as visibility lists it."""

    run_id: str
    session: str | None
    status: str
    started_at: float
    ended_at: float | None
    prompt: str
    policy: str = ""
    """The agent's policy version (its hooks and tools) the run was started with."""
    questions: tuple[dict[str, Any], ...] = ()
    """The questions it waits on, as its memo lists them (`questions.MEMO_QUESTIONS`)."""

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


async def session_runs(client: Client, session: str, limit: int = 1000) -> list[RunEntry]:
    """The runs of `session`, newest first."""
    return await _listed(client, f"{_TYPE} AND {SESSION.name} = {json.dumps(session)}", limit)


async def sessions(client: Client, limit: int = 1000) -> list[dict[str, Any]]:
    """Each session of the namespace's latest `limit` runs, newest first: its name, run
    count, newest run and when that run started."""
    found: dict[str, dict[str, Any]] = {}
    for entry in await _listed(client, _TYPE, limit):
        if entry.session is None:
            continue
        row = found.setdefault(
            entry.session,
            {"session": entry.session, "runs": 0, "head": entry.run_id, "status": entry.status},
        )
        row["runs"] += 1
        row.setdefault("updated_at", entry.started_at)
        row["created_at"] = entry.started_at  # the oldest run's, once all are seen
    return list(found.values())


async def head(client: Client, session: str) -> tuple[list[Message], list[Approval]]:
    """The conversation the next run of `session` continues and the approvals of scope
    session it starts with (none for a new session)."""
    runs = await session_runs(client, session)
    if not runs:
        return [], []
    head = runs[0]
    handle = client.get_workflow_handle(head.run_id)
    described = await handle.describe()  # visibility may lag: ask the run itself
    if described.status == WorkflowExecutionStatus.RUNNING:
        raise ConfigError(
            f"session {session} has a run that is not finished ({head.run_id}): answer "
            "its questions or wait for its end first",
            key="session",
            value=session,
        )
    if described.status != WorkflowExecutionStatus.COMPLETED:
        ended = described.status.name.lower() if described.status else "unknown"
        raise ConfigError(
            f"session {session}'s newest run ({head.run_id}) ended without a result (its "
            f"workflow is {ended}): there is no conversation to continue",
            key="session",
            value=session,
        )
    messages = RunState.from_json(await handle.result()).messages
    approvals = (await described.memo()).get(MEMO_APPROVALS) or []
    return messages, [(mark, data, at) for mark, data, at in approvals]


async def inspect(client: Client, run_id: str) -> tuple[RunEntry, RunState, list[dict[str, Any]]]:
    """Run `run_id` as it stands: its entry, its state (from its result once it ended, a
    query while it runs) and the questions it waits on."""
    handle = client.get_workflow_handle(run_id)
    described = await handle.describe()
    entry = await _entry(described)
    if described.status == WorkflowExecutionStatus.RUNNING:
        state = RunState.from_json(await handle.query("state"))
        return entry, state, await handle.query("questions")
    return entry, RunState.from_json(await handle.result()), []


async def listed(client: Client, query: str, limit: int) -> list[RunEntry]:
    """The runs `query` (a visibility query) finds, newest first, each once."""
    return await _listed(client, f"{_TYPE} AND {query}", limit)


async def _listed(client: Client, query: str, limit: int) -> list[RunEntry]:
    newest: dict[str, WorkflowExecution] = {}
    async for execution in client.list_workflows(query, limit=limit):
        seen = newest.get(execution.id)
        if seen is None or execution.start_time > seen.start_time:
            newest[execution.id] = execution
    entries = [await _entry(e) for e in newest.values()]
    return sorted(entries, key=lambda e: e.started_at, reverse=True)


async def _entry(execution: WorkflowExecution) -> RunEntry:
    memo = await execution.memo()
    status = execution.status.name.lower() if execution.status is not None else "unknown"
    return RunEntry(
        run_id=execution.id,
        session=execution.typed_search_attributes.get(SESSION),
        status=status,
        started_at=execution.start_time.timestamp(),
        ended_at=execution.close_time.timestamp() if execution.close_time else None,
        prompt=str(memo.get("prompt", "")),
        policy=str(memo.get("policy", "")),
        questions=tuple(memo.get(MEMO_QUESTIONS) or ()),
    )
