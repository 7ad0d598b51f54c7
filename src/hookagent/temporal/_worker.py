"""`agent_worker`: a Temporal worker that runs an agent's runs on one task queue.

The worker serves the `AgentRun` workflow and the model, tool, fold and reconcile
activities of `agent`; any worker of the task queue may run any of them.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Final

from temporalio.client import Client
from temporalio.worker import Worker

from hookagent._agent import Agent
from hookagent.temporal._activities import AgentActivities
from hookagent.temporal._remote import PAYLOAD, Timeouts
from hookagent.temporal._task import check_agent
from hookagent.temporal._workflow import AgentRun, Served, serve

__all__ = ["HEARTBEAT", "HISTORY", "MODEL_TIMEOUT", "TOOL_TIMEOUT", "agent_worker"]

HEARTBEAT: Final = 10.0
"""Seconds without a heartbeat after which a tool's worker counts as lost."""
MODEL_TIMEOUT: Final = 600.0
TOOL_TIMEOUT: Final = 3600.0
HISTORY: Final = 5000
"""Events in a run's history after which it continues as new (a step adds about ten)."""


def agent_worker(
    client: Client,
    agent: Agent,
    task_queue: str,
    *,
    heartbeat: float = HEARTBEAT,
    model_timeout: float = MODEL_TIMEOUT,
    tool_timeout: float = TOOL_TIMEOUT,
    max_cached_workflows: int = 1000,
    history: int = HISTORY,
    sticky_timeout: float = 10.0,
    payload_limit: int = PAYLOAD,
) -> Worker:
    """A worker for `agent`'s runs on `task_queue` (run it with `async with` or `.run()`).
    `max_cached_workflows`: runs kept in memory between their steps; one that is not is
    replayed from its history at its next step (0: every step replays). `history`: the
    number of events after which a run continues as new (Temporal may suggest it sooner).
    `sticky_timeout`: seconds a run's next step waits for the worker that ran its last one
    before any worker of the queue takes it (how soon a lost worker's runs move on).
    `payload_limit`: bytes a model request or a continue-as-new may carry (the server's
    blob size limit, 2 MiB by default, is the most it may be).
    Subagents run as child workflows on the same task queue; they are built now
    (`task.check_agent`)."""
    check_agent(agent)
    timeouts = Timeouts(
        model=model_timeout, tool=tool_timeout, heartbeat=heartbeat, payload=payload_limit
    )
    serve(task_queue, Served(agent, timeouts, history))
    activities = AgentActivities(agent, heartbeat)
    return Worker(
        client,
        task_queue=task_queue,
        workflows=[AgentRun],
        max_cached_workflows=max_cached_workflows,
        sticky_queue_schedule_to_start_timeout=timedelta(seconds=sticky_timeout),
        activities=[
            activities.model,
            activities.tool,
            activities.fold,
            activities.reconcile,
        ],
    )
