"""What a run remembers of each step and each tool call."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any, Literal

from hookagent._messages import AssistantMessage
from hookagent._record import record
from hookagent._usage import Usage
from hookagent.tools._base import ToolResult

__all__ = ["StepKind", "StepRecord", "ToolExecution"]

StepKind = Literal["tool_execution", "final_response", "error"]


@record
class ToolExecution:
    call_id: str
    name: str
    args: Mapping[str, Any]
    """The arguments the tool ran with (after hooks rewrote them)."""
    result: ToolResult
    blocked: bool = False
    started_at: float = 0.0
    duration: float = 0.0
    attempts: int = 1


@record
class StepRecord:
    index: int
    """1-based."""
    kind: StepKind
    response: AssistantMessage | None = None
    executions: tuple[ToolExecution, ...] = ()
    usage: Usage = field(default_factory=Usage)
    started_at: float = 0.0
    duration: float = 0.0
    errors: tuple[str, ...] = field(default=())

    @property
    def has_tool_calls(self) -> bool:
        return bool(self.response and self.response.tool_calls)
