"""What a cancelled run leaves behind.

Cancelling the task a run executes in (`task.cancel()`, Ctrl-C under `asyncio.run`, a timeout
around `run`) stops the run at the await it is in: a tool call, a model call, a hook. Before
the cancellation goes on, the run records where it stopped. The call that was running gets an
error result saying it was interrupted (and that its worker thread was left running, if it
had one); calls of the same turn not yet made get "not run"; the step is recorded as it
stands; the state ends `stopped`, stop reason `user_requested`. A run nobody keeps then
fires execution_end. A kept (durable) run is left as a crash leaves it, resumable: nothing more is
written, its lease is released, and the interrupted call stays `started`, in doubt when the
run is resumed. Both then fire session_end with the reason `LEFT`: the process leaves the
session (a kept run taken up again opens it with `resume`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from hookagent._messages import AssistantMessage, Message, ToolCall, ToolResultMessage
from hookagent._threads import ABANDONED, abandoned
from hookagent.kernel._state import RunState
from hookagent.tools._base import ToolResult

__all__ = ["LEFT", "NOT_RUN", "interrupted", "stop", "unanswered"]

LEFT: Final = "prompt_input_exit"
"""session_end's reason for a cancelled run: Claude Code's for a user who quit."""

NOT_RUN: Final = "the run was cancelled before this call"
"""Why a call of the turn was not made (`Not run: …`)."""


def stop(state: RunState, *, kept: bool) -> None:
    """The state of a run whose task was cancelled (unless it had ended already)."""
    note = "; it is kept and can be resumed" if kept else ""
    state.finish("stopped", "user_requested", f"cancelled{note}")


def interrupted(call: ToolCall, error: BaseException) -> ToolResult:
    """The result of a call the run was cancelled in."""
    left = f"; {ABANDONED}" if abandoned(error) else ""
    return ToolResult.error(
        f"Interrupted: the run was cancelled while {call.name!r} ran{left}. "
        "It may or may not have taken effect.",
        data={"state": "interrupted", "call_id": call.id},
    )


def unanswered(messages: Sequence[Message], calls: Sequence[ToolCall]) -> list[ToolCall]:
    """The calls of the turn that have no result yet (results follow the turn's reply)."""
    answered: set[str] = set()
    for message in reversed(messages):
        if isinstance(message, AssistantMessage):
            break
        if isinstance(message, ToolResultMessage):
            answered.add(message.call_id)
    return [call for call in calls if call.id not in answered]
