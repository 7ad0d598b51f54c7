"""Live views of a run: the events `Agent.stream` yields, and the observer that makes them."""

from hookagent.live._events import (
    DecisionMade,
    Emit,
    ModelReplied,
    ReasoningDelta,
    RunFinished,
    StepFinished,
    StepStarted,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    ToolFinished,
    ToolStarted,
)
from hookagent.live._observer import LiveObserver

__all__ = [
    "DecisionMade",
    "Emit",
    "LiveObserver",
    "ModelReplied",
    "ReasoningDelta",
    "RunFinished",
    "StepFinished",
    "StepStarted",
    "StreamEvent",
    "TextDelta",
    "ToolCallDelta",
    "ToolFinished",
    "ToolStarted",
]
