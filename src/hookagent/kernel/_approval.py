"""Questions for a human, raised by hooks returning `ask`.

A run answers them through the `approver` callback given to `run`; a layer that keeps runs
may answer them from its records, or pause the run until someone answers (`kernel.seams`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import field
from typing import Any, TypeAlias

from hookagent._record import record
from hookagent.hooks._result import StopReason

__all__ = ["Answer", "Approver", "Question"]


@record
class Question:
    point: str
    hook: str
    question: str
    options: tuple[str, ...] = ()
    run_id: str
    step: int
    call_id: str | None = None
    tool_name: str | None = None
    args: Mapping[str, Any] | None = None
    timeout: float | None = None
    default: str = "deny"


@record
class Answer:
    approved: bool
    by: str = "approver"
    reason: str | None = None
    choice: str | None = None
    """The option picked, when the question offered options."""
    updated_args: Mapping[str, Any] | None = None
    """Approved with these arguments instead (a permission hook may rewrite the call)."""
    extra: Mapping[str, Any] = field(default_factory=dict[str, Any])
    stop_reason: StopReason | None = None
    """Refused, and the run ends for this reason: a permission hook answered with `stop`
    (a Claude Code PermissionRequest's `continue: false`, or a deny that interrupts)."""

    @classmethod
    def approve(cls, reason: str | None = None, *, choice: str | None = None) -> Answer:
        return cls(approved=True, reason=reason, choice=choice)

    @classmethod
    def deny(cls, reason: str | None = None) -> Answer:
        return cls(approved=False, reason=reason)


Approver: TypeAlias = Callable[[Question], "Answer | bool | Awaitable[Answer | bool]"]
"""Answers a question; `True`/`False` are shorthand for approve/deny."""
