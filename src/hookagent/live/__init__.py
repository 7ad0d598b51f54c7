"""Live views of a run: the events `Agent.stream` yields, and the observer that makes them."""

from hookagent.live.events import (
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
from hookagent.live.observer import LiveObserver

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
