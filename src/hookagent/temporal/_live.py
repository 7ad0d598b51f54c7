"""What a watcher sees of a run on Temporal: the events `Agent.stream` yields, kept in the
workflow as they happen.

The workflow runs a `LiveObserver` of its own over the run (its hooks stay in the workflow,
`layer`), which appends each event to an `EventLog`. The events are numbered across the
run: an execution that continued as new starts its log where the last one ended, so a
watcher's cursor (how many events it has seen) means the same in every execution. The
`events` query reads a page of them as JSON; it changes nothing.

No deltas: the model is called in an activity, on whichever worker takes it, and the
workflow sees its whole reply, so a run on Temporal shows each reply whole (`ModelReplied`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, final

from hookagent.live._events import (
    DecisionMade,
    ModelReplied,
    StepFinished,
    StepStarted,
    StreamEvent,
    ToolFinished,
    ToolStarted,
)
from hookagent.temporal._events import adapter, plain

__all__ = ["PAGE", "EventLog", "decode", "encode"]

PAGE: Final = 100
"""Events one query returns at most (a reply or a tool result may be long)."""

_KINDS: Final[dict[str, Any]] = {
    kind.__name__: kind
    for kind in (
        StepStarted,
        ModelReplied,
        ToolStarted,
        ToolFinished,
        DecisionMade,
        StepFinished,
    )
}
"""The events a run's observer makes (deltas and the run's end are not among them)."""


@final
class EventLog:
    """The events of one execution of a run, numbered from `first` (the number of events
    its earlier executions made)."""

    __slots__ = ("events", "first")

    def __init__(self, first: int) -> None:
        self.first = first
        self.events: list[StreamEvent] = []

    def emit(self, event: StreamEvent) -> None:
        self.events.append(event)

    @property
    def end(self) -> int:
        """The number of the next event."""
        return self.first + len(self.events)

    def page(self, since: int) -> dict[str, Any]:
        """At most `PAGE` events from number `since` (from `first` when `since` is
        earlier: those are an earlier execution's): `first`, `end`, `next` (the number
        after the last one given) and `events`."""
        start = max(since - self.first, 0)
        chunk = self.events[start : start + PAGE]
        return {
            "first": self.first,
            "end": self.end,
            "next": self.first + start + len(chunk),
            "events": [encode(event) for event in chunk],
        }


def encode(event: StreamEvent) -> dict[str, Any]:
    kind: Any = type(event)
    data = adapter(kind).dump_python(event, mode="json", fallback=plain, warnings=False)
    return {"kind": kind.__name__, "event": data}


def decode(data: Mapping[str, Any]) -> StreamEvent:
    """The event `encode` wrote."""
    kind = _KINDS.get(data["kind"])
    if kind is None:
        raise ValueError(f"not an event of a run's log: {data['kind']!r}")
    event: StreamEvent = adapter(kind).validate_python(data["event"])
    return event
