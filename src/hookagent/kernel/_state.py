"""`RunState`: everything a run is, owned by the kernel and nobody else.

Messages, steps and decisions are append-only (steps as a `StepTable` of columns over the
messages), so a step costs the same at any history length; hooks read the state through
`RunView` and change it only through their results.
The state round-trips through JSON (pydantic at this edge) so a store can persist it and a
later process can resume it.
"""

from __future__ import annotations

import functools
import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from hookagent._messages import Message, UserMessage
from hookagent._usage import Usage
from hookagent.hooks._decision import Decision
from hookagent.hooks._result import StopReason
from hookagent.kernel._step_table import NO_USAGE, StepTable

if TYPE_CHECKING:
    from pydantic import TypeAdapter

__all__ = ["Position", "RunState", "RunStatus"]

RunStatus = Literal["running", "waiting", "completed", "failed", "stopped"]


@dataclass(slots=True, kw_only=True)
class Position:
    """Where the loop is: enough for a store to resume a run suspended inside a fold."""

    phase: str = "start"
    """start | step | inference | tool | continue | stop | end."""
    step: int = 0
    call_id: str | None = None


def _uuid4_hex() -> str:
    """`uuid.uuid4().hex`, built from the same 16 random bytes with the same version and
    variant bits, without the `UUID` object's checks (a third of the cost: a run makes one)."""
    raw = bytearray(os.urandom(16))
    raw[6] = raw[6] & 0x0F | 0x40
    raw[8] = raw[8] & 0x3F | 0x80
    return raw.hex()


@dataclass(slots=True, kw_only=True)
class RunState:
    # The factories are the plain `list` and `dict`: a parametrized one (`list[Message]`)
    # is a typing alias whose call costs ten times as much, and every run makes a state.
    run_id: str = field(default_factory=_uuid4_hex)
    parent_run_id: str | None = None
    session_id: str | None = None
    status: RunStatus = "running"
    messages: list[Message] = field(default_factory=list)
    steps: StepTable = field(default_factory=StepTable)
    """Step records, built on read; a list of records given here is packed into a table."""
    decisions: list[Decision] = field(default_factory=list)
    usage: Usage = NO_USAGE  # (frozen: one zero shared by every new run)
    hook_spends: list[tuple[str | None, Usage]] = field(default_factory=list)
    """Model calls hooks made for this run, in order: (the model that answered, usage). They
    are in `usage` too; a cost meter prices them."""
    metadata: dict[str, Any] = field(default_factory=dict)
    output: str | None = None
    stop_reason: StopReason | None = None
    stop_message: str | None = None
    error: str | None = None
    started_at: float = field(default_factory=time.time)
    elapsed: float = 0.0
    """Seconds spent executing, summed across resumes."""
    position: Position = field(default_factory=Position)
    stop_block_streak: int = 0
    """Consecutive stops refused by stop hooks; reset by a step that calls tools."""
    agent_type: str = "main"
    """`main`, or the type of the subagent this run is."""

    def __post_init__(self) -> None:
        """Point the step table at this run's messages (pydantic calls this when loading,
        after it has read the steps as a list of records)."""
        self.steps = StepTable.over(self.messages, self.steps)

    @property
    def step_count(self) -> int:
        return len(self.steps)

    def add_reminder(self, texts: list[str] | tuple[str, ...]) -> None:
        """Deliver hook context to the model as a system reminder in the conversation."""
        if texts:
            body = "\n".join(texts)
            self.messages.append(
                UserMessage(
                    content=f"<system-reminder>\n{body}\n</system-reminder>", synthetic=True
                )
            )

    def stop_by(self, decision: Decision) -> None:
        """End the run because a hook returned `stop` (or a block that fails closed). A stop
        with the reason `completed` is a hook saying the work is done: the run completes."""
        reason = decision.stop_reason or "hook_stop"
        self.finish(
            "completed" if reason == "completed" else "stopped",
            reason,
            f"{decision.reason} (hook {decision.hook} at {decision.point})",
        )

    def finish(self, status: RunStatus, reason: StopReason, message: str | None = None) -> None:
        if self.stop_reason is None:
            self.status, self.stop_reason, self.stop_message = status, reason, message

    def fail_after_end(self, message: str) -> None:
        """An error at execution_end or session_end that the error policy did not ignore:
        the run ends `failed` even though it had finished, unless it had failed already."""
        if self.status != "failed":
            self.status, self.stop_reason, self.stop_message = "failed", "error", message

    # -- persistence ------------------------------------------------------------------
    def to_json(self) -> str:
        return _adapter().dump_json(self, fallback=_fallback, warnings=False).decode()

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = json.loads(self.to_json())
        return result

    @classmethod
    def from_json(cls, text: str | bytes) -> RunState:
        return _adapter().validate_json(text)


def _fallback(value: Any) -> Any:
    """Read-only mappings (tool args, vote diffs) as objects; anything else as its repr."""
    if isinstance(value, Mapping):
        return dict(value)
    return repr(value)


@functools.cache
def _adapter() -> TypeAdapter[RunState]:
    """Built on first use: building it costs more than importing hookagent."""
    from pydantic import TypeAdapter

    return TypeAdapter(RunState)
