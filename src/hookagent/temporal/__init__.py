"""hookagent runs as durable Temporal workflows (the `temporal` extra).

A worker (`agent_worker`) serves an agent on a task queue; `TemporalRuns` starts its runs
there, answers their questions and reads them. The workflow runs the kernel with the seams of
`layer.TemporalLayer`: model and tool calls are activities, folds run in the workflow, and
questions wait there for an update.
"""

from hookagent.temporal._client import TemporalRuns, connect
from hookagent.temporal._worker import agent_worker

__all__ = ["TemporalRuns", "agent_worker", "connect"]
