"""Test doubles for hookagent users and for hookagent's own tests.

Drive the real kernel with a `ScriptedModel` (strict) or a `FunctionModel`, and assert on the
run's decisions.
"""

from hookagent.kernel._approval import Answer, Question
from hookagent.models._scripted import (
    FunctionModel,
    RecordedCall,
    ScriptedModel,
    reply,
    tool_call,
    turn,
)

__all__ = [
    "Answer",
    "FunctionModel",
    "Question",
    "RecordedCall",
    "ScriptedModel",
    "reply",
    "tool_call",
    "turn",
]
