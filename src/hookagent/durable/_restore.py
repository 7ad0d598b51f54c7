"""A run's state rebuilt from its store rows as they stood at its last checkpoint."""

from __future__ import annotations

import json

from hookagent.kernel._state import RunState
from hookagent.store._base import RunRows

__all__ = ["restore"]


def restore(rows: RunRows) -> RunState:
    """The state when the checkpointed segment began; the segment itself is run again."""
    point = rows.run.checkpoint
    scalars = json.loads(point.scalars if point is not None else rows.run.scalars)
    scalars.pop("segment", None)
    if scalars.get("stop_reason") is None:
        scalars["status"] = "running"  # a paused run, running again
    body = json.dumps({**scalars, "run_id": rows.run.id})
    text = (
        f'{body[:-1]},"messages":[{",".join(rows.messages)}],'
        f'"steps":[{",".join(rows.steps)}],"decisions":[{",".join(rows.decisions)}]}}'
    )
    return RunState.from_json(text)
