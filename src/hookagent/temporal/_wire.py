"""What crosses between a workflow and its activities: plain JSON data only.

A model request and reply, a tool call and its result, and a failure (its type name and
message; a `ModelError` whole) travel as the durable journal writes them (`durable.codec`,
`durable.errors`), so a run reads the same values on Temporal as on a store.
"""

from __future__ import annotations

import functools
from typing import Any, Final

from hookagent.durable import _errors as errors

__all__ = ["FOLD", "MODEL", "RECONCILE", "STOPPING", "TOOL", "WORKFLOW", "failure", "raised"]

WORKFLOW: Final = "hookagent.run"
"""The workflow of one run (a subagent's run is a child workflow of it)."""
STOPPING: Final = "subagent_stop"
"""The update a subagent's run sends its parent's when it is about to stop."""
MODEL: Final = "hookagent.model"
"""The activity that asks the agent's model."""
TOOL: Final = "hookagent.tool"
"""The activity that calls one tool."""
RECONCILE: Final = "hookagent.reconcile"
"""The activity that asks a tool whether a call left in doubt took effect."""
FOLD: Final = "hookagent.fold"
"""The activity that runs one point's hooks when some may do I/O."""


def failure(exc: BaseException) -> dict[str, Any]:
    """An exception a model or a tool raised, as an activity returns it (a return, not a
    raise: the kernel's error policy decides what becomes of it, not Temporal's retries)."""
    return {"error": errors.dump(exc)}


def raised(data: dict[str, Any]) -> Exception:
    """The exception `failure` carried, as the workflow raises it: a `ModelError` as it was,
    anything else as an exception of the same type name and message, so the run records the
    same text as a run in memory."""
    loaded = errors.load(data["error"])
    if not isinstance(loaded, errors.RecordedError):
        return loaded
    name, _, text = str(loaded).partition(": ")
    return _named(name)(text)


@functools.cache
def _named(name: str) -> type[Exception]:
    return type(name, (RuntimeError,), {"__module__": __name__})
